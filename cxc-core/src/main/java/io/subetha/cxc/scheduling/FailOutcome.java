package io.subetha.cxc.scheduling;

/** What {@link BackgroundScheduler#fail} made of a failed attempt. */
public enum FailOutcome {
    /** Queued again, to be dispatched once its backoff has passed. */
    RETRYING,
    /** Its run's attempts spent: kept as {@code FAILED} until re-run or deleted. */
    FAILED,
    /**
     * This attempt no longer held the job (it was re-queued after its worker was judged dead or
     * silent, or the handle closed): nothing was recorded.
     */
    REFUSED
}
