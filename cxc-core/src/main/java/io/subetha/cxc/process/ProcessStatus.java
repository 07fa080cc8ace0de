package io.subetha.cxc.process;

/** What {@link ProcessProbe} can tell about a PID. */
public enum ProcessStatus {
    /** Running (or sleeping, stopped) and, where a start time was given, the same process. */
    ALIVE,
    /** Gone, a zombie, or another process that reused the PID. */
    DEAD,
    /** Could not be determined (no /proc, no permission): treat as alive. */
    UNKNOWN
}
