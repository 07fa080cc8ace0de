package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.participant.ParticipantRecord;

/**
 * The submit step of a {@link BackgroundScheduler}: CAS the tail's slot {@code FREE → WRITING(me)},
 * move the tail, write the job, CAS {@code → QUEUED}. Shared by a caller's submit and a timetable
 * entry's fire, which also records the id it reserved (see {@link Reservation}).
 */
final class RingSubmitter {

    /**
     * Writes a job into the slot at the given offset, which the caller holds in {@code WRITING}.
     */
    @FunctionalInterface
    interface SlotWriter {
        void write(int slot);
    }

    /** Told which slot a submit holds, so a repair can tell whether the job was queued. */
    interface Reservation {
        /** The submit won slot {@code id}'s {@code WRITING} CAS: before it writes the job. */
        void reserved(long id);

        /** The submit lost slot {@code id} to a scan while silent: before it lets the slot go. */
        void lettingGo(long id);
    }

    static final Reservation UNRECORDED =
            new Reservation() {
                @Override
                public void reserved(long id) {}

                @Override
                public void lettingGo(long id) {}
            };

    private final JobRing ring;
    private final AtomicBuffer body;
    private final ParticipantRecord participant;

    private final Runnable queued;

    /**
     * @param queued rings the doorbell: after each job queued
     */
    RingSubmitter(JobRing ring, ParticipantRecord participant, Runnable queued) {
        this.ring = ring;
        this.body = ring.body;
        this.participant = participant;
        this.queued = queued;
    }

    /** Queues the job {@code writer} writes; its id, or -1 if the ring is full. */
    long submit(SlotWriter writer, Reservation reservation) {
        int capacity = ring.capacity;
        long me = participant.tag();
        while (true) {
            long t = ring.position(TAIL_OFFSET, "tail");
            long lap = t / capacity;
            int slot = ring.slotOffset(t);
            long word = body.getLongVolatile(slot);
            long tag = lapOf(word);
            int state = state(word);
            if (tag == lapTag(lap) && state == FREE) {
                long writing = JobRing.as(lap, WRITING, me, 0);
                if (!body.compareAndSetLong(slot, word, writing)) {
                    continue;
                }
                body.compareAndSetLong(TAIL_OFFSET, t, t + 1);
                reservation.reserved(t);
                try {
                    writer.write(slot);
                } catch (RuntimeException e) {
                    if (!body.compareAndSetLong(slot, writing, pack(lap, ABANDONED, 0, 0, 0))) {
                        reservation.lettingGo(t);
                        letGo(slot, writing, lap);
                    }
                    throw e;
                }
                if (body.compareAndSetLong(slot, writing, pack(lap, QUEUED, 0, 0, 0))) {
                    queued.run();
                    return t;
                }
                // Judged silent between the two CASes (a GC, SIGSTOP), the slot was stepped over:
                // it was never queued, so it is neither run nor lost. Let it go, submit again.
                reservation.lettingGo(t);
                letGo(slot, writing, lap);
                me = participant.tag();
                continue;
            }
            if (tag == lapTag(lap)) {
                body.compareAndSetLong(TAIL_OFFSET, t, t + 1); // reserved by another
            } else if (tag == lapTag(lap - 1)) {
                if (state == ABANDONED && !writerHolds(word)) {
                    // A dead submitter's slot of the last lap: step the head over it, free it.
                    long previous = t - capacity;
                    body.compareAndSetLong(HEAD_OFFSET, previous, previous + 1);
                    body.compareAndSetLong(slot, word, pack(lap, FREE, 0, 0, 0));
                } else if (body.getLongVolatile(TAIL_OFFSET) == t) {
                    return -1;
                }
            } else if (body.getLongVolatile(TAIL_OFFSET) == t) {
                // A slot holds its position's lap or the one before while the tail names it;
                // anything else would be read again and again, forever.
                throw ring.lapProblem("tail", t, tag);
            }
        }
    }

    /** Hands back a slot stepped over while this writer was silent: nobody's, free next lap. */
    private void letGo(int slot, long writing, long lap) {
        body.compareAndSetLong(slot, steppedOver(writing), pack(lap, ABANDONED, 0, 0, 0));
    }
}
