package io.subetha.cxc.boot.scheduling;

import java.time.Duration;
import java.time.Instant;

/**
 * One run of a job by this process's worker pool, as the pool tells its {@link JobRunObserver}s
 * once the run's outcome is recorded.
 *
 * @param scheduler the declared scheduler's name
 * @param jobId the job's id
 * @param type the job's type, as its handler names it ({@code JobHandler.type})
 * @param attempt the attempt this run was (1 for the first)
 * @param started when the handler was called, by the wall clock
 * @param took how long the handler ran
 * @param outcome what the scheduler made of it
 */
public record JobRun(
        String scheduler,
        long jobId,
        String type,
        long attempt,
        Instant started,
        Duration took,
        Outcome outcome) {

    /** What a run ended as. */
    public enum Outcome {
        /** Its result recorded (or, fire-and-forget, its slot freed). */
        SUCCEEDED,
        /** Its handler threw; queued again, to run after its backoff. */
        RETRIED,
        /** Its handler threw and its attempts are spent: the job is FAILED. */
        FAILED,
        /**
         * Not run: its type's limit was reached, so it went back to the queue spending no attempt
         * (its took is zero). Counted by the meters; the history leaves it out, as a job waiting
         * for its limit is handed back again and again and would push the runs out.
         */
        HANDED_BACK;

        /**
         * The outcome as meters and the history name it: {@code succeeded}, {@code handed-back}.
         */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }
}
