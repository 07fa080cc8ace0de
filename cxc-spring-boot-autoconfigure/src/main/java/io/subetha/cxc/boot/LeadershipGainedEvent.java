package io.subetha.cxc.boot;

/** This process became the leader under {@link #term()}. */
public class LeadershipGainedEvent extends LeadershipEvent {

    public LeadershipGainedEvent(Object source, long pid, long term) {
        super(source, pid, term);
    }
}
