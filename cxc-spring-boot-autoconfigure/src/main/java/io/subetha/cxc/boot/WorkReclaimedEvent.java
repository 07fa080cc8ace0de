package io.subetha.cxc.boot;

import io.subetha.cxc.liveness.ReclaimReport;
import org.springframework.context.ApplicationEvent;

/**
 * A {@code cxc.watchdogs.<name>} watchdog's scan on this process's ticker moved work away from a
 * dead or silent participant (or freed an abandoned claim). Published on the ticker's thread: keep
 * listeners short, or the next tick waits.
 */
public class WorkReclaimedEvent extends ApplicationEvent {

    private final String watchdog;
    private final ReclaimReport report;

    public WorkReclaimedEvent(Object source, String watchdog, ReclaimReport report) {
        super(source);
        this.watchdog = watchdog;
        this.report = report;
    }

    /** The watchdog's bean name, as in {@code cxc.watchdogs.<name>}. */
    public String watchdog() {
        return watchdog;
    }

    /** What the scan moved: only this process's own moves. */
    public ReclaimReport report() {
        return report;
    }

    @Override
    public String toString() {
        return "WorkReclaimedEvent[watchdog=" + watchdog + ", " + report + "]";
    }
}
