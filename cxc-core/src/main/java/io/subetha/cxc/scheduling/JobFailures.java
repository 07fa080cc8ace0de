package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;

import io.subetha.cxc.mmf.AtomicBuffer;

/**
 * The failure side of a {@link BackgroundScheduler}'s slot protocol, over its body: the run header
 * a submit writes with its job (retry policy, flags), a worker's failed attempt recorded (queued
 * again behind the head not before its backoff, or {@code FAILED}), and a failed job re-run or
 * deleted. Each step is one CAS on the slot word; the header and the failure text are written only
 * by whoever holds the slot ({@code WRITING} or {@code COMPLETING}), before the CAS that publishes.
 */
final class JobFailures {

    private final AtomicBuffer body;
    private final int capacity;
    private final int stride;

    private final Runnable requeued;

    /**
     * @param requeued rings the doorbell: after a retry or a rerun is queued
     */
    JobFailures(AtomicBuffer body, int capacity, int stride, Runnable requeued) {
        this.body = body;
        this.capacity = capacity;
        this.stride = stride;
        this.requeued = requeued;
    }

    /** A job's retry policy and flags, and a fresh run; written only while holding it WRITING. */
    void writeRun(int slot, RetryPolicy policy, int flags) {
        body.setLongPlain(slot + NOT_BEFORE_OFFSET, 0);
        body.setLongPlain(slot + RUN_BASE_OFFSET, 0);
        body.setIntPlain(slot + MAX_ATTEMPTS_OFFSET, policy.maxAttempts());
        body.setIntPlain(slot + FLAGS_OFFSET, flags);
        body.setLongPlain(slot + INITIAL_BACKOFF_OFFSET, policy.initialBackoff().toNanos());
        body.setLongPlain(slot + MAX_BACKOFF_OFFSET, policy.maxBackoff().toNanos());
        body.setLongPlain(
                slot + MULTIPLIER_OFFSET, Double.doubleToRawLongBits(policy.multiplier()));
        body.setLongPlain(slot + FAILURE_LENGTH_OFFSET, 0); // and no hand-back's mark
    }

    /**
     * Records {@code job}'s failed attempt, if that attempt still holds the job: {@code RUNNING →
     * COMPLETING}, the failure (and the retry's wait, or the run's end) written, then {@code →
     * QUEUED} or {@code → FAILED}. Killed in between, the job is re-queued by a scan as a dead
     * worker's; what was written is a past wait and a failure text nobody reads until a later
     * failure writes it whole.
     */
    FailOutcome record(Job<?> job, Throwable failure) {
        int slot = slotOffset(job.id());
        long completing = withState(job.word, COMPLETING);
        if (!body.compareAndSetLong(slot, job.word, completing)) {
            return FailOutcome.REFUSED;
        }
        // Held COMPLETING, the slot is this worker's alone until its next CAS: a scan re-queues it
        // only once this process is dead, and leaves it to a silent one.
        byte[] text;
        try {
            text = FailureText.of(failure);
        } catch (RuntimeException | Error e) {
            body.compareAndSetLong(slot, completing, job.word); // back to running, as complete does
            throw e;
        }
        FailureText.write(body, slot, text);
        long lap = job.id() / capacity;
        long attempt = job.attempt();
        long failures = attempt - body.getLongPlain(slot + RUN_BASE_OFFSET);
        FailOutcome outcome;
        long next;
        if (failures < body.getIntPlain(slot + MAX_ATTEMPTS_OFFSET) && attempt < MAX_ATTEMPT) {
            long wait =
                    RetryPolicy.backoffNanos(
                            failures,
                            body.getLongPlain(slot + INITIAL_BACKOFF_OFFSET),
                            Double.longBitsToDouble(body.getLongPlain(slot + MULTIPLIER_OFFSET)),
                            body.getLongPlain(slot + MAX_BACKOFF_OFFSET));
            body.setIntRelease(slot + HANDED_BACK_AT_OFFSET, 0); // a backoff no release cuts
            queueBehindHead(slot, wait);
            outcome = FailOutcome.RETRYING;
            next = pack(lap, QUEUED, 0, 0, attempt);
        } else {
            // A rerun counts its attempts from here, with the whole policy again.
            body.setLongRelease(slot + RUN_BASE_OFFSET, attempt);
            outcome = FailOutcome.FAILED;
            next = pack(lap, FAILED, 0, 0, attempt);
        }
        if (!body.compareAndSetLong(slot, completing, next)) {
            // Not reached while this process lives (only a dead holder's COMPLETING is taken).
            if (outcome == FailOutcome.RETRYING) {
                body.getAndAddLong(REQUEUED_HINT_OFFSET, -1);
            }
            return FailOutcome.REFUSED;
        }
        if (outcome == FailOutcome.RETRYING) {
            requeued.run(); // a sleeper bounds its sleep by the backoff once it has looked
        }
        return outcome;
    }

    /**
     * Hands {@code job} back to the queue, not before {@code waitNanos} or the next {@link
     * #limitReleased} (whichever is first), without counting the dispatch as an attempt of its
     * retry policy: {@code RUNNING → COMPLETING}, the run's base raised by one, then {@code →
     * QUEUED} with the attempt kept (the fence). Killed in between, a scan re-queues it as a dead
     * worker's, the run then one attempt more lenient. A job whose attempts reached {@link
     * BackgroundSchedulerDescriptor#MAX_ATTEMPT} fails instead, as {@link #record} would: a fence
     * must never wrap.
     */
    FailOutcome handBack(Job<?> job, long waitNanos) {
        if (job.attempt() >= MAX_ATTEMPT) {
            return record(job, new IllegalStateException("handed back " + MAX_ATTEMPT + " times"));
        }
        int slot = slotOffset(job.id());
        long completing = withState(job.word, COMPLETING);
        if (!body.compareAndSetLong(slot, job.word, completing)) {
            return FailOutcome.REFUSED;
        }
        body.setLongRelease(slot + RUN_BASE_OFFSET, body.getLongPlain(slot + RUN_BASE_OFFSET) + 1);
        // Read before the job is queued: a release after this read moves the word, so the job is
        // due at once; none is missed.
        body.setIntRelease(
                slot + HANDED_BACK_AT_OFFSET,
                handedBackMark(body.getIntVolatile(LIMITS_RELEASED_OFFSET)));
        queueBehindHead(slot, waitNanos);
        long queued = pack(job.id() / capacity, QUEUED, 0, 0, job.attempt());
        if (!body.compareAndSetLong(slot, completing, queued)) {
            // As in record: not reached while this process lives.
            body.getAndAddLong(REQUEUED_HINT_OFFSET, -1);
            return FailOutcome.REFUSED;
        }
        requeued.run();
        return FailOutcome.RETRYING;
    }

    /** What a job handed back while the limits-released word reads {@code released} records. */
    static int handedBackMark(int released) {
        return 2 * released + 1;
    }

    /** A job-type limit's place was freed: jobs handed back at a limit are due at once. */
    void limitReleased() {
        body.getAndAddInt(LIMITS_RELEASED_OFFSET, 1);
        requeued.run();
    }

    /** Not before {@code waitNanos} from now, and the re-queued hint raised; held COMPLETING. */
    private void queueBehindHead(int slot, long waitNanos) {
        long notBefore = System.nanoTime() + Math.max(0, waitNanos);
        body.setLongRelease(slot + NOT_BEFORE_OFFSET, notBefore == 0 ? 1 : notBefore);
        // Behind the head, like a job a scan re-queues: raise the hint first, a crash leaves it
        // high, never low.
        body.getAndAddLong(REQUEUED_HINT_OFFSET, 1);
    }

    /** {@code FAILED → QUEUED}, the attempt kept (the fence), the hint raised first. */
    boolean rerun(long jobId) {
        long word = failedWord(jobId);
        if (word < 0) {
            return false;
        }
        body.getAndAddLong(REQUEUED_HINT_OFFSET, 1); // first: a crash leaves it high, never low
        long queued = pack(jobId / capacity, QUEUED, 0, 0, attempt(word));
        if (body.compareAndSetLong(slotOffset(jobId), word, queued)) {
            requeued.run();
            return true;
        }
        body.getAndAddLong(REQUEUED_HINT_OFFSET, -1);
        return false;
    }

    /** {@code FAILED → FREE} of the next lap. */
    boolean delete(long jobId) {
        long word = failedWord(jobId);
        return word >= 0
                && body.compareAndSetLong(
                        slotOffset(jobId), word, pack(jobId / capacity + 1, FREE, 0, 0, 0));
    }

    /** The slot word of {@code jobId} if that job is {@code FAILED}, else -1. */
    private long failedWord(long jobId) {
        if (jobId < 0) {
            throw new IllegalArgumentException("jobId must be 0 or more, got " + jobId);
        }
        if (jobId >= body.getLongVolatile(TAIL_OFFSET)) {
            return -1;
        }
        long word = body.getLongVolatile(slotOffset(jobId));
        return state(word) == FAILED && lapOf(word) == lapTag(jobId / capacity) ? word : -1;
    }

    private int slotOffset(long id) {
        return SLOTS_OFFSET + (int) (id % capacity) * stride;
    }
}
