package io.subetha.cxc.boot;

/**
 * This process no longer leads: it stepped down, was preempted by a lower PID, or was replaced
 * after its heartbeat went stale. {@link #term()} is the term it led in; any work fenced with that
 * term will now be rejected downstream.
 */
public class LeadershipLostEvent extends LeadershipEvent {

    public LeadershipLostEvent(Object source, long pid, long term) {
        super(source, pid, term);
    }
}
