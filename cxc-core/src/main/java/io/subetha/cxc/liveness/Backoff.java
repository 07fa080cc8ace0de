package io.subetha.cxc.liveness;

import java.util.concurrent.locks.LockSupport;

/**
 * How a cross-process waiter idles without a futex: spin briefly, then park with exponential
 * backoff, capped low. One instance per wait, used by one thread.
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
 */
final class Backoff {

    static final int SPINS = 100;
    static final long MIN_PARK_NANOS = 1_000;
    static final long MAX_PARK_NANOS = 200_000;

    private int spins;
    private long parkNanos = MIN_PARK_NANOS;

    void idle() {
        if (spins < SPINS) {
            spins++;
            Thread.onSpinWait();
            return;
        }
        LockSupport.parkNanos(parkNanos);
        parkNanos = Math.min(parkNanos * 2, MAX_PARK_NANOS);
    }
}
