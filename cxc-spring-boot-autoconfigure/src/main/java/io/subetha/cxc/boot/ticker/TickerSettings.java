package io.subetha.cxc.boot.ticker;

import io.subetha.cxc.election.Preemption;
import io.subetha.cxc.election.SharedLeaderElection;

/**
 * How this process ticks the election.
 *
 * @param election the tick interval and grace, as core's record checks them (written into a new
 *     election file; an existing file keeps its own, which the participant then follows)
 * @param preemption whether a healthy leader gives way to a lower PID
 * @param stepDownOnShutdown whether to step down on graceful shutdown, so a successor takes over
 *     within a tick
 */
public record TickerSettings(
        SharedLeaderElection.Settings election,
        Preemption preemption,
        boolean stepDownOnShutdown) {}
