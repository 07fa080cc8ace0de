package io.subetha.cxc.election;

/**
 * Whether a healthy leader gives way to a lower PID that appears (or thaws) later.
 *
 * <p>The trade-off: with {@link #LOWEST_PID} the leader is predictable (always the lowest live PID,
 * as in the seed), but every lower PID that joins late, or an ex-leader that thaws after a pause
 * longer than the grace window, takes the seat back at once: one more handover, one more term, and
 * the deposed leader's in-flight work is refused downstream. With {@link #NONE} leadership is
 * stable: a leader keeps its seat until it dies, steps down, or stops beating; which process leads
 * then depends on history, not only on PIDs.
 */
public enum Preemption {
    /** The lowest live PID always wins: a lower PID takes the seat from a healthy leader. */
    LOWEST_PID,
    /** A healthy leader keeps its seat; a lower PID waits for a vacancy. */
    NONE
}
