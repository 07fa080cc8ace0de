package io.subetha.cxc.liveness;

import java.util.concurrent.locks.LockSupport;

/**
 * How a cross-process waiter idles without a futex: spin briefly, then park with exponential
 * backoff, capped low. One instance per wait, used by one thread.
 *
 * <p>Why these numbers (2-vCPU host, three JVMs, see {@link EpochBarrier}): a peer that is about to
 * arrive usually does so within microseconds, so a short spin catches it without a syscall; beyond
 * that, spinning steals the very core the laggard needs. Parking starts at {@link #MIN_PARK_NANOS}
 * (Linux rounds any park up to its timer slack, ~50–60 µs) and doubles up to {@link
 * #MAX_PARK_NANOS}, which bounds how late a waiter notices a release after a long wait.
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
