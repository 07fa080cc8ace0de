package io.subetha.cxc.claim;

/** What the owner of an {@link OwnerRecord} (a slot, a seat, a claim) looks like to an observer. */
public enum OwnerStatus {
    /** Nobody holds it. */
    FREE,
    /** Held, heartbeat within the grace, process not known to be dead. */
    LIVE,
    /** Held, but the heartbeat lags by more than the grace. */
    STALE,
    /** Held by a process that is gone, a zombie, or whose PID was reused. */
    DEAD;

    /** Whether another process may take it over (and a watchdog move its work). */
    public boolean isReclaimable() {
        return this == STALE || this == DEAD;
    }
}
