package io.subetha.cxc.scheduling;

import org.jspecify.annotations.Nullable;

/**
 * How one job is submitted, beside its scheduler's settings.
 *
 * @param discardResult discard the job's result: its slot is free as soon as a worker completes it,
 *     so no collector is needed (a scheduler whose {@code Settings} discard results discards every
 *     job's)
 * @param retry the job's retry policy, or null for its scheduler's
 */
public record JobOptions(boolean discardResult, @Nullable RetryPolicy retry) {

    /** The scheduler's settings as they are. */
    public static final JobOptions DEFAULT = new JobOptions(false, null);

    /** A job whose result nobody collects: its slot is free once a worker completes it. */
    public static JobOptions fireAndForget() {
        return new JobOptions(true, null);
    }

    /** These options with {@code policy} for the job's retries. */
    public JobOptions withRetry(RetryPolicy policy) {
        return new JobOptions(discardResult, policy);
    }
}
