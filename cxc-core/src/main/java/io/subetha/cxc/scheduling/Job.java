package io.subetha.cxc.scheduling;

/**
 * One dispatch of a job to a worker: the job's id and payload, and the attempt it was dispatched
 * as. {@link BackgroundScheduler#complete} records a result only for the attempt that still holds
 * the job.
 */
public final class Job<J> {

    private final long id;
    private final long attempt;
    private final J payload;
    private final boolean fireAndForget;
    final long word;

    Job(long id, long attempt, J payload, long word, boolean fireAndForget) {
        this.id = id;
        this.attempt = attempt;
        this.payload = payload;
        this.word = word;
        this.fireAndForget = fireAndForget;
    }

    public long id() {
        return id;
    }

    /**
     * 1 for the first dispatch, one more for each re-dispatch after a worker died or went silent.
     */
    public long attempt() {
        return attempt;
    }

    public J payload() {
        return payload;
    }

    /**
     * Whether its result is discarded: {@link BackgroundScheduler#complete} then frees its slot at
     * once and nobody collects the result.
     */
    public boolean fireAndForget() {
        return fireAndForget;
    }

    @Override
    public String toString() {
        return "job " + id + " (attempt " + attempt + "): " + payload;
    }
}
