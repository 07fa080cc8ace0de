package io.subetha.cxc.wait;

import java.util.concurrent.locks.LockSupport;

/**
 * How a cross-process waiter idles without a futex: spin briefly, then park with exponential
 * backoff, capped low. One instance per wait, used by one thread; create it when the first wait
 * begins, so that a call that never waits allocates nothing.
 *
 * <p>Why these numbers: a peer that is about to arrive usually does so within microseconds, so a
 * short spin ({@link #SPINS} × {@link Thread#onSpinWait()}, a few µs) catches it without a syscall;
 * beyond that, spinning steals the very core the laggard needs. Parking starts at {@link
 * #MIN_PARK_NANOS} (Linux rounds any park up to its timer slack, ~50–60 µs, so one park is the real
 * unit) and doubles up to {@link #MAX_PARK_NANOS}, which bounds how late a waiter notices a release
 * after a long wait. Measured with three JVMs on a 2-vCPU host shared with other builds ({@code
 * BarrierPhaseCost}, 20 000 phases): 100 spins / 200 µs cap, 57–97 µs per phase (depending on
 * load); a 1 ms cap, 68–87 µs; 10 spins / 50 µs cap, 75–80 µs; 2 000 spins, 316–336 µs (spinners
 * starve the laggard); 100 000 spins starved a participant past its one-second grace.
 *
 * <p>A wait whose peer is slower by nature (a file's creator, a lock held across a call) spins less
 * or not at all and parks from a higher floor to a higher cap: {@link #parking}.
 */
public final class Backoff {

    /** Spins before the first park. */
    public static final int SPINS = 100;

    /** The first park. */
    public static final long MIN_PARK_NANOS = 1_000;

    /** The longest park, unless the wait says otherwise. */
    public static final long MAX_PARK_NANOS = 200_000;

    private final int spinLimit;
    private final long maxParkNanos;
    private int spins;
    private long parkNanos;

    /**
     * {@link #SPINS} spins, then parks doubling from {@link #MIN_PARK_NANOS} to {@link
     * #MAX_PARK_NANOS}.
     */
    public Backoff() {
        this(SPINS, MIN_PARK_NANOS, MAX_PARK_NANOS);
    }

    /**
     * {@code spins} spins, then parks doubling from {@code minParkNanos} to {@code maxParkNanos}.
     *
     * @throws IllegalArgumentException if {@code spins} is negative, {@code minParkNanos} is not
     *     positive, or {@code maxParkNanos} is below it
     */
    public Backoff(int spins, long minParkNanos, long maxParkNanos) {
        if (spins < 0 || minParkNanos <= 0 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException(
                    "a back-off needs spins >= 0 and 0 < first park <= longest park, not "
                            + spins
                            + " spins, "
                            + minParkNanos
                            + " ns, "
                            + maxParkNanos
                            + " ns");
        }
        this.spinLimit = spins;
        this.parkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
    }

    /**
     * {@link #SPINS} spins, then parks doubling from {@link #MIN_PARK_NANOS} to {@code
     * maxParkNanos}.
     */
    public static Backoff cappedAt(long maxParkNanos) {
        return new Backoff(SPINS, MIN_PARK_NANOS, maxParkNanos);
    }

    /**
     * No spin: parks doubling from {@code minParkNanos} to {@code maxParkNanos} from the first
     * idle.
     */
    public static Backoff parking(long minParkNanos, long maxParkNanos) {
        return new Backoff(0, minParkNanos, maxParkNanos);
    }

    /**
     * Idles once: a spin while spins remain, else one park, the next one twice as long (capped).
     */
    public void idle() {
        idleAtMost(Long.MAX_VALUE);
    }

    /**
     * As {@link #idle()}, but a park lasts {@code nanos} at most (at least 1 ns), so that a waiter
     * with a deadline is not parked past it; the next park still doubles from the uncut one.
     */
    public void idleAtMost(long nanos) {
        if (spins < spinLimit) {
            spins++;
            Thread.onSpinWait();
            return;
        }
        LockSupport.parkNanos(Math.min(parkNanos, Math.max(nanos, 1)));
        parkNanos = Math.min(parkNanos * 2, maxParkNanos);
    }
}
