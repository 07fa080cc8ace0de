package io.subetha.cxc.resolution;

import java.util.concurrent.locks.LockSupport;

/**
 * How a cross-process waiter of this family idles: a short spin (a peer finishing a step usually
 * does so within microseconds), then parks doubling from 1 µs up to a cap, which bounds how late a
 * waiter notices the step after a long wait. One instance per wait, used by one thread.
 */
final class Idle {

    private static final int SPINS = 100;
    private static final long MIN_PARK_NANOS = 1_000;

    private final long maxParkNanos;
    private int spins;
    private long parkNanos = MIN_PARK_NANOS;

    Idle(long maxParkNanos) {
        this.maxParkNanos = maxParkNanos;
    }

    void idle() {
        if (spins < SPINS) {
            spins++;
            Thread.onSpinWait();
            return;
        }
        LockSupport.parkNanos(parkNanos);
        parkNanos = Math.min(parkNanos * 2, maxParkNanos);
    }
}
