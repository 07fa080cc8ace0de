package io.subetha.cxc.scheduling;

/**
 * One job of a {@link BackgroundScheduler} as {@link BackgroundScheduler#jobs()} lists it.
 *
 * @param id the job's id, as {@code submit} returned it
 * @param pid the worker's PID while running, 0 otherwise (or if the worker's record moved on)
 * @param attempt 0 until first dispatched, then +1 at each dispatch
 */
public record JobEntry(long id, State state, long pid, long attempt) {

    /** Where a job is in its life, as an operator sees it. */
    public enum State {
        /** Submitted (or re-queued after its worker died), waiting for a worker. */
        QUEUED,
        /** Dispatched to a worker, its result not yet recorded. */
        RUNNING,
        /** Its result recorded, not yet collected. */
        DONE
    }
}
