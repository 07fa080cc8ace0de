package io.subetha.cxc.scheduling;

import io.subetha.cxc.CxcSettingsException;
import java.time.Duration;

/**
 * How often a failing job is tried and how long it waits between tries: the wait after the {@code
 * n}th failed attempt of a run is {@code initialBackoff × multiplier^(n-1)}, at most {@code
 * maxBackoff}. A job whose run has spent {@code maxAttempts} attempts and fails again is {@code
 * FAILED} (see {@link BackgroundScheduler#fail}). Every dispatch is an attempt, a dispatch whose
 * worker died included.
 *
 * @param maxAttempts attempts of one run, the first included: 1 (never retried) ..{@value
 *     BackgroundSchedulerDescriptor#MAX_ATTEMPT}
 * @param initialBackoff the wait after the first failure, 0 .. 1 day
 * @param multiplier the growth of the wait at each further failure, 1.0 .. 1000
 * @param maxBackoff the longest wait, {@code initialBackoff} .. 1 day
 */
public record RetryPolicy(
        int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff) {

    // Before the policies below: their constructors read it.
    private static final Duration LONGEST = Duration.ofDays(1);

    /**
     * Three attempts, waiting 1 s then 2 s: a job's default unless its scheduler says otherwise.
     */
    public static final RetryPolicy DEFAULT =
            new RetryPolicy(3, Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5));

    /** One attempt: a failure is final. */
    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, 1.0, Duration.ZERO);

    public RetryPolicy {
        CxcSettingsException.requireInRange(
                "retry.maxAttempts",
                maxAttempts,
                1,
                (int) BackgroundSchedulerDescriptor.MAX_ATTEMPT,
                " attempts");
        requireWait("retry.initialBackoff", initialBackoff, Duration.ZERO);
        requireWait("retry.maxBackoff", maxBackoff, initialBackoff);
        if (!(multiplier >= 1.0 && multiplier <= 1000.0)) {
            throw new CxcSettingsException(
                    "retry.multiplier", "retry.multiplier must be in 1.0..1000, got " + multiplier);
        }
    }

    /** Up to {@code maxAttempts} attempts, waiting {@code backoff} after each failure. */
    public static RetryPolicy fixed(int maxAttempts, Duration backoff) {
        return new RetryPolicy(maxAttempts, backoff, 1.0, backoff);
    }

    /**
     * The wait after the {@code failures}th failed attempt of a run (1 for the first), in
     * nanoseconds.
     */
    public long backoffNanos(long failures) {
        return backoffNanos(failures, initialBackoff.toNanos(), multiplier, maxBackoff.toNanos());
    }

    static long backoffNanos(long failures, long initial, double multiplier, long max) {
        double wait = initial * Math.pow(multiplier, Math.max(0, failures - 1));
        return wait >= max ? max : (long) wait;
    }

    private static void requireWait(String setting, Duration wait, Duration least) {
        if (wait.compareTo(least) < 0 || wait.compareTo(LONGEST) > 0) {
            throw new CxcSettingsException(
                    setting, setting + " must be in " + least + ".." + LONGEST + ", got " + wait);
        }
    }
}
