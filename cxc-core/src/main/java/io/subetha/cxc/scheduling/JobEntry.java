package io.subetha.cxc.scheduling;

import org.jspecify.annotations.Nullable;

/**
 * One job of a {@link BackgroundScheduler} as {@link BackgroundScheduler#jobs()} lists it.
 *
 * @param id the job's id, as {@code submit} returned it
 * @param pid the worker's PID while running, 0 otherwise (or if the worker's record moved on)
 * @param attempt 0 until first dispatched, then +1 at each dispatch
 * @param failure a {@code FAILED} job's last failure, null in every other state
 */
public record JobEntry(long id, State state, long pid, long attempt, @Nullable JobFailure failure) {

    public JobEntry(long id, State state, long pid, long attempt) {
        this(id, state, pid, attempt, null);
    }

    /** Where a job is in its life, as an operator sees it. */
    public enum State {
        /** Submitted (or re-queued after its worker died), waiting for a worker. */
        QUEUED,
        /** Dispatched to a worker, its result not yet recorded. */
        RUNNING,
        /** Its result recorded, not yet collected. */
        DONE,
        /** Its run's attempts spent: kept until re-run or deleted. */
        FAILED
    }
}
