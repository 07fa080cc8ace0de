package io.subetha.cxc.wake;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a {@link DoorbellWaiter} spins ({@code Thread.onSpinWait}) and then yields the processor
 * ({@code Thread.yield}) before it sleeps on its doorbell. A wake-up through the doorbell costs
 * about a Unix socket's hand-over (~10–20 µs here), so a waiter that must answer faster spins; one
 * that shares a core with its writer should yield rather than spin (a spinner holds the core until
 * the scheduler preempts it).
 */
public record WaitPhases(Duration spin, Duration yield) {

    /**
     * 10 µs of spinning, 50 µs of yielding: a peer that answers within the same burst is caught
     * without a system call, and a waiter whose peer is idle sleeps within ~60 µs of CPU.
     */
    public static final WaitPhases DEFAULT =
            new WaitPhases(Duration.ofNanos(10_000), Duration.ofNanos(50_000));

    /** No spinning, no yielding: the waiter announces itself and sleeps at once. */
    public static final WaitPhases SLEEP_AT_ONCE = new WaitPhases(Duration.ZERO, Duration.ZERO);

    public WaitPhases {
        if (Objects.requireNonNull(spin, "spin").isNegative()
                || Objects.requireNonNull(yield, "yield").isNegative()) {
            throw new IllegalArgumentException(
                    "spin and yield must be 0 or more, got " + spin + ", " + yield);
        }
    }
}
