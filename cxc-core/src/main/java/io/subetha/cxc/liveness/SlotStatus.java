package io.subetha.cxc.liveness;

/** What a heartbeat slot's owner looks like to an observer. */
public enum SlotStatus {
    /** Nobody holds the slot. */
    FREE,
    /** Held, heartbeat within the grace window, process not known to be dead. */
    LIVE,
    /** Held, but the heartbeat lags the global epoch by more than the grace window. */
    STALE,
    /** Held by a process that is gone, a zombie, or whose PID was reused. */
    DEAD;

    /** Whether another process may take the slot (and the watchdog move its work). */
    public boolean isReclaimable() {
        return this == STALE || this == DEAD;
    }
}
