package io.subetha.cxc.scheduling;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How one job is submitted, beside its scheduler's settings.
 *
 * @param discardResult discard the job's result: its slot is free as soon as a worker completes it,
 *     so no collector is needed (a scheduler whose {@code Settings} discard results discards every
 *     job's)
 * @param retry the job's retry policy, or null for its scheduler's
 * @param due when the job is due: null (or a past instant) for at once; a later one keeps the job
 *     in the scheduler's timetable until then (see {@link BackgroundScheduler#submit(Object,
 *     JobOptions)}); for {@link BackgroundScheduler#schedule}, its first due time
 */
public record JobOptions(
        boolean discardResult, @Nullable RetryPolicy retry, @Nullable Instant due) {

    /** The scheduler's settings as they are. */
    public static final JobOptions DEFAULT = new JobOptions(false, null, null);

    public JobOptions(boolean discardResult, @Nullable RetryPolicy retry) {
        this(discardResult, retry, null);
    }

    /** A job whose result nobody collects: its slot is free once a worker completes it. */
    public static JobOptions fireAndForget() {
        return new JobOptions(true, null, null);
    }

    /** A job due at {@code instant}. */
    public static JobOptions at(Instant instant) {
        return DEFAULT.withDue(instant);
    }

    /** A job due {@code delay} from now. */
    public static JobOptions after(Duration delay) {
        return DEFAULT.withDelay(delay);
    }

    /** These options with {@code policy} for the job's retries. */
    public JobOptions withRetry(RetryPolicy policy) {
        return new JobOptions(discardResult, policy, due);
    }

    /** These options with the job due at {@code instant}. */
    public JobOptions withDue(Instant instant) {
        if (instant == null) {
            throw new IllegalArgumentException("due must not be null: leave it out for at once");
        }
        return new JobOptions(discardResult, retry, instant);
    }

    /** These options with the job due {@code delay} from now. */
    public JobOptions withDelay(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException(
                    "delay must be zero or more, got "
                            + delay
                            + ": a job cannot be due in the past");
        }
        return withDue(Instant.now().plus(delay));
    }
}
