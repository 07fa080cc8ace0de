package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.CxcSettingsException;
import java.time.Duration;

/**
 * What a declared fan-out's worker pool does with an item whose handler threw: holds it for {@code
 * backoff}, doubled for each later attempt (at most {@link #MAX_BACKOFF}), then returns it to its
 * level; on the failure of its {@code maxAttempts}-th attempt, counted in the fan-out's file across
 * every process, it dead-letters it instead. Its constructor is the one place these limits are
 * written.
 *
 * @param maxAttempts attempts of one item in all processes, the last one dead-letters it
 * @param backoff how long the item is held after its first failure before it is returned
 */
public record FanoutRetry(int maxAttempts, Duration backoff) {

    /** Past this, one failing item would hold a worker for too long. */
    public static final int MAX_ATTEMPTS = 1000;

    /** The longest an item is held between two attempts. */
    public static final Duration MAX_BACKOFF = Duration.ofMinutes(10);

    public FanoutRetry {
        CxcSettingsException.requireInRange(
                "maxAttempts", maxAttempts, 1, MAX_ATTEMPTS, " (1 handles an item once)");
        WorkerPoolSettings.requireUpTo("backoff", backoff, MAX_BACKOFF);
    }

    /** How long an item is held after its {@code failures}-th failure (1 for the first). */
    Duration backoffAfter(int failures) {
        int doublings = Math.min(failures - 1, 30);
        Duration held = backoff.multipliedBy(1L << doublings);
        return held.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : held;
    }
}
