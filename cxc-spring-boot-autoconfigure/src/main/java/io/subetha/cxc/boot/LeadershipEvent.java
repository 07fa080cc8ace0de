package io.subetha.cxc.boot;

import org.springframework.context.ApplicationEvent;

/**
 * Published on the ticker's thread when this process gains or loses leadership. Listeners run on
 * that thread: keep them short or hand work off, or the next tick waits.
 */
public abstract class LeadershipEvent extends ApplicationEvent {

    private final long pid;
    private final long term;

    protected LeadershipEvent(Object source, long pid, long term) {
        super(source);
        this.pid = pid;
        this.term = term;
    }

    /** This process's PID. */
    public long pid() {
        return pid;
    }

    /** The term this process gained, or the term it led in and lost. */
    public long term() {
        return term;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[pid=" + pid + ", term=" + term + "]";
    }
}
