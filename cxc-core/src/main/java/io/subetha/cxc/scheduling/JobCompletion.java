package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.participant.ParticipantRecord;

/**
 * The complete step of a {@link BackgroundScheduler}: one CAS from exactly the dispatched word
 * fences it, {@code RUNNING(me, a) → COMPLETING(me, a)}, the result and its completion number
 * written, then {@code DONE(a)}; a fire-and-forget job's is the one CAS {@code RUNNING(me, a) →
 * FREE} of the next lap.
 */
final class JobCompletion<R> {

    private final JobRing ring;
    private final AtomicBuffer body;
    private final int resultOffset;
    private final FixedCodec<R> codec;
    private final ParticipantRecord participant;

    JobCompletion(
            JobRing ring, int resultOffset, FixedCodec<R> codec, ParticipantRecord participant) {
        this.ring = ring;
        this.body = ring.body;
        this.resultOffset = resultOffset;
        this.codec = codec;
        this.participant = participant;
    }

    /** Records {@code result}; false if this attempt no longer holds {@code job}. */
    boolean complete(Job<?> job, R result) {
        int slot = ring.slotOffset(job.id());
        if (job.fireAndForget()) {
            // Nothing to record: one CAS from the dispatched word ends the job and frees the slot.
            long free = pack(job.id() / ring.capacity + 1, FREE, 0, 0, 0);
            boolean freed = body.compareAndSetLong(slot, job.word, free);
            participant.beatIfDue();
            return freed;
        }
        long completing = withState(job.word, COMPLETING);
        if (!body.compareAndSetLong(slot, job.word, completing)) {
            return false;
        }
        try {
            codec.write(body, slot + resultOffset, result);
        } catch (RuntimeException e) {
            // Back to running: the worker may retry with a result that encodes.
            body.compareAndSetLong(slot, completing, job.word);
            throw e;
        }
        body.setLongRelease(slot + SEQUENCE_OFFSET, body.getAndAddLong(COMPLETIONS_OFFSET, 1));
        long done = withState(job.word, DONE);
        body.compareAndSetLong(slot, completing, done);
        participant.beatIfDue();
        return true;
    }
}
