package io.subetha.cxc.boot;

import io.subetha.cxc.election.LeaderSnapshot;
import java.util.OptionalLong;

/**
 * This process's view of the shared leader election, for application code. The starter's bean reads
 * the mapped file on every call, so answers are current, not cached. With a backend across hosts
 * (the {@code cxc-zookeeper} module), leadership here means global leadership: the host leader that
 * also holds the global latch.
 */
public interface CxcLeadership {

    /** This process's PID, as the election knows it. */
    long pid();

    /** Whether this process leads now: one volatile read and a compare. */
    boolean isLeader();

    /** The leader's PID, empty when no process leads. */
    OptionalLong currentLeader();

    /** The election term: rises by one on each handover; hand it to downstream writes. */
    long term();

    /**
     * The term this process leads under, read atomically with the leadership check, or -1 when it
     * does not lead: what {@code @LeaderOnly} decides by and binds to {@link LeaderContext}. The
     * starter's implementations answer from one read, allocation-free; this default (for
     * implementations of the application's own) reads {@link #isLeader()} and {@link #term()}
     * apart, so a handover between the two reads can pair them wrongly.
     */
    default long termIfLeader() {
        return isLeader() ? term() : -1;
    }

    /**
     * Gives up leadership if this process leads, so another participant takes over within one tick.
     * The lowest live PID wins, so a process with the lowest PID claims again after a short
     * hold-off of {@code cxc.leader.grace-epochs + 1} ticks.
     *
     * @return whether this process was the leader
     */
    boolean stepDown();

    /** Leader, term, heartbeat and epoch in one read, for display. */
    LeaderSnapshot snapshot();
}
