package io.subetha.cxc.console;

import java.time.Clock;

/**
 * Turns {@link System#nanoTime()} readings (CLOCK_MONOTONIC, shared by every process on the host,
 * as the lease table and the scheduler record them) into wall-clock epoch milliseconds for display.
 */
final class Instants {

    private final Clock clock;

    Instants(Clock clock) {
        this.clock = clock;
    }

    long epochMillis(long monotonicNanos) {
        long agoNanos = System.nanoTime() - monotonicNanos;
        return clock.millis() - Math.floorDiv(agoNanos, 1_000_000L);
    }
}
