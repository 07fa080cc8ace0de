package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.participant.ParticipantRecord;
import io.subetha.cxc.process.Pids;
import org.jspecify.annotations.Nullable;

/**
 * The receive step of a {@link BackgroundScheduler}: claims the next queued job for a worker,
 * re-queued jobs (behind the head, each not before its retry's wait) first, then at the head in
 * submission order; each by one CAS {@code QUEUED(a) → RUNNING(me, a + 1)}, and kept only if the
 * slot still holds that word once the job is copied.
 */
final class JobDispatcher<J> {

    private static final int SPINS_ON_WRITING = 2_000;

    private final JobRing ring;
    private final AtomicBuffer body;
    private final int capacity;
    private final FixedCodec<J> codec;
    private final ParticipantRecord participant;
    // The re-queued-jobs hint this handle read before a look behind the head that found nothing (a
    // hint left high by a crash, or jobs another worker took first); -1 until then. The handle
    // looks again once the hint differs, so a job re-queued since is still received ahead of later
    // jobs, and a hint a crash left high costs one look.
    private volatile long emptyLookAt = -1;
    // The earliest CLOCK_MONOTONIC time a re-queued job that look skipped for its backoff is due:
    // the handle looks again then, though no re-queue has moved the hint since.
    private volatile long nextDueAt = Long.MAX_VALUE;
    // The limits-released word that look read: once it moves, jobs handed back at a limit are due.
    private volatile int releasedAtLook;

    JobDispatcher(JobRing ring, FixedCodec<J> codec, ParticipantRecord participant) {
        this.ring = ring;
        this.body = ring.body;
        this.capacity = ring.capacity;
        this.codec = codec;
        this.participant = participant;
    }

    /** Refuses a receive for another process: a worker receives only for itself. */
    static void requireOwn(long workerPid, long ownPid) {
        if (workerPid != ownPid) {
            Pids.requireValid(workerPid);
            throw new IllegalArgumentException(
                    "workerPid must be this process's PID "
                            + ownPid
                            + ", got "
                            + workerPid
                            + ": a worker receives jobs only for itself");
        }
    }

    /** Looks behind the head at the next receive: a re-queue may have raced the last look. */
    void lookAgain() {
        emptyLookAt = -1;
    }

    private int slotOffset(long id) {
        return ring.slotOffset(id);
    }

    private long position(int offset, String name) {
        return ring.position(offset, name);
    }

    /** The job claimed for this handle's worker, or null if none is queued (at {@code now} ns). */
    @Nullable Job<J> receive(long now) {
        if (SchedulerDispatch.isPaused(body)) {
            return null; // an operator paused dispatch: the queue waits for a resume
        }
        long me = participant.tag();
        long hint = body.getLongVolatile(REQUEUED_HINT_OFFSET);
        if (requeuedToLookAt(hint, now)) {
            Job<J> requeued = receiveRequeued(codec, me, hint, now);
            if (requeued != null) {
                return requeued;
            }
        }
        int spins = 0;
        while (true) {
            long h = position(HEAD_OFFSET, "head");
            long lap = h / capacity;
            int slot = slotOffset(h);
            long word = body.getLongVolatile(slot);
            if (lapOf(word) != lapTag(lap)) {
                if (lapOf(word) == lapTag(lap - 1)) {
                    return null; // not yet submitted
                }
                if (lapOf(word) == lapTag(lap + 1)) {
                    // Job h was collected and its slot reused while the worker that took it is
                    // yet to move the head: step the head over it for that worker.
                    body.compareAndSetLong(HEAD_OFFSET, h, h + 1);
                } else if (body.getLongVolatile(HEAD_OFFSET) == h) {
                    throw ring.lapProblem("head", h, lapOf(word));
                }
                continue;
            }
            switch (state(word)) {
                case FREE:
                    return null;
                case WRITING:
                    if (++spins < SPINS_ON_WRITING) {
                        Thread.onSpinWait();
                        continue;
                    }
                    return null;
                case QUEUED:
                    long attempt = attempt(word) + 1;
                    long running = JobRing.as(lap, RUNNING, me, attempt);
                    if (body.compareAndSetLong(slot, word, running)) {
                        body.compareAndSetLong(HEAD_OFFSET, h, h + 1);
                        Job<J> job = copyIfStillHeld(codec, h, attempt, slot, running);
                        if (job != null) {
                            return job;
                        }
                        me = participant.tag(); // judged dead meanwhile: its record may be gone
                    }
                    continue;
                default: // dispatched, done or abandoned: step the head over it
                    body.compareAndSetLong(HEAD_OFFSET, h, h + 1);
            }
        }
    }

    /** Whether a look behind the head is due: a re-queue since the last, or a retry now due. */
    private boolean requeuedToLookAt(long hint, long now) {
        long dueAt = nextDueAt;
        return hint > 0
                && (hint != emptyLookAt
                        || (dueAt != Long.MAX_VALUE && now - dueAt >= 0)
                        || body.getIntVolatile(LIMITS_RELEASED_OFFSET) != releasedAtLook);
    }

    /**
     * Whether a receive at {@code now} may find a job: a re-queued one to look at, or one queued at
     * the head (or a slot there to step over), unless paused. Reads only: what a sleeping worker
     * looks at.
     */
    boolean mayFind(long now) {
        if (SchedulerDispatch.isPaused(body)) {
            return false; // a resume rings
        }
        if (requeuedToLookAt(body.getLongVolatile(REQUEUED_HINT_OFFSET), now)) {
            return true;
        }
        long h = body.getLongVolatile(HEAD_OFFSET);
        if (h < 0) {
            return true; // damage: the receive says so
        }
        long lap = h / capacity;
        long word = body.getLongVolatile(slotOffset(h));
        if (lapOf(word) == lapTag(lap - 1)) {
            return false; // not yet submitted
        }
        int state = state(word);
        // A job being written rings once queued.
        return lapOf(word) != lapTag(lap) || (state != FREE && state != WRITING);
    }

    /**
     * When the earliest re-queued job the last look skipped for its backoff is due ({@code
     * System.nanoTime()}), or {@link Long#MAX_VALUE}.
     */
    long retryDueAt() {
        return nextDueAt;
    }

    private @Nullable Job<J> receiveRequeued(FixedCodec<J> codec, long me, long hint, long now) {
        long h = position(HEAD_OFFSET, "head");
        long dueAt = Long.MAX_VALUE;
        int released = body.getIntVolatile(LIMITS_RELEASED_OFFSET);
        int releasedMark = JobFailures.handedBackMark(released);
        for (long id = Math.max(0, h - capacity); id < h; id++) {
            long lap = id / capacity;
            int slot = slotOffset(id);
            long word = body.getLongVolatile(slot);
            if (state(word) != QUEUED || lapOf(word) != lapTag(lap)) {
                continue;
            }
            // Read after the word: a retry's wait is written before the CAS that queued it, and
            // the claim below fails if the slot moved on since.
            long notBefore = body.getLongAcquire(slot + NOT_BEFORE_OFFSET);
            int handedBackAt = body.getIntAcquire(slot + HANDED_BACK_AT_OFFSET);
            if (notBefore != 0
                    && now - notBefore < 0
                    && (handedBackAt == 0 || handedBackAt == releasedMark)) {
                if (dueAt == Long.MAX_VALUE || notBefore - dueAt < 0) {
                    dueAt = notBefore;
                }
                continue;
            }
            long attempt = attempt(word) + 1;
            long running = JobRing.as(lap, RUNNING, me, attempt);
            if (body.compareAndSetLong(slot, word, running)) {
                body.getAndAddLong(REQUEUED_HINT_OFFSET, -1);
                Job<J> job = copyIfStillHeld(codec, id, attempt, slot, running);
                if (job != null) {
                    return job;
                }
                me = participant.tag();
            }
        }
        nextDueAt = dueAt;
        releasedAtLook = released;
        emptyLookAt = hint;
        return null;
    }

    /**
     * Copies the job this worker just claimed with {@code running}; null if the slot no longer
     * holds that dispatch once copied. A worker paused after its claim (a GC, {@code SIGSTOP})
     * beyond the grace may find its job re-queued, run elsewhere, collected and the slot refilled
     * by a later submit: what it copied is then another job's payload, which it must not run under
     * this id.
     */
    private @Nullable Job<J> copyIfStillHeld(
            FixedCodec<J> codec, long id, long attempt, int slot, long running) {
        J payload;
        try {
            payload = codec.read(body, slot + JOB_OFFSET);
        } catch (RuntimeException e) {
            if (body.getLongVolatile(slot) == running) {
                throw e;
            }
            return null; // a torn copy of a payload rewritten under us
        }
        boolean discarded = (body.getIntAcquire(slot + FLAGS_OFFSET) & RESULT_DISCARDED) != 0;
        return body.getLongVolatile(slot) == running
                ? new Job<>(id, attempt, payload, running, discarded)
                : null;
    }
}
