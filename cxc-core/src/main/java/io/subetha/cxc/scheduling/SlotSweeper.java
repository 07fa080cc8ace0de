package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;

import io.subetha.cxc.mmf.AtomicBuffer;
import java.util.List;

/**
 * The repairs of a {@link BackgroundScheduler}'s scan (and of a handle's close) for one judged
 * participant: its timetable fires in flight, if it is dead, then its ring slots (see the
 * scheduler's class comment for what each state becomes).
 */
final class SlotSweeper {

    private final JobRing ring;
    private final AtomicBuffer body;
    private final int capacity;
    private final Timetable timetable;

    private final Runnable requeued;

    /**
     * @param requeued rings the doorbell: after a job is put back in the queue
     */
    SlotSweeper(JobRing ring, Timetable timetable, Runnable requeued) {
        this.ring = ring;
        this.body = ring.body;
        this.capacity = ring.capacity;
        this.timetable = timetable;
        this.requeued = requeued;
    }

    /**
     * Repairs participant {@code r}'s slots.
     *
     * @param key the participant's generation, of which slot words keep the low bits
     * @param dead whether its process is gone, else it is only silent beyond the grace
     * @param requeued gets the ids of the jobs put back in the queue
     * @param abandoned its first element counts the slots stepped over
     */
    void sweep(int r, long key, boolean dead, List<Long> requeued, int[] abandoned) {
        long gen = generationTag(key);
        if (dead) {
            // First: its judgement of a fire reads the slot this sweep may abandon below.
            timetable.repair(r, gen);
        }
        long head = body.getLongVolatile(HEAD_OFFSET);
        for (int i = 0; i < capacity; i++) {
            int slot = ring.slotOffset(i);
            long word = body.getLongVolatile(slot);
            int state = state(word);
            if (participant(word) != r || generation(word) != gen) {
                continue;
            }
            long lap = JobRing.fullLap(head, lapOf(word), capacity);
            if (state == COLLECTING) {
                // Polled and not acknowledged by a collector dead, silent or closed: deliver again.
                body.compareAndSetLong(slot, word, pack(lap, DONE, 0, 0, attempt(word)));
            } else if (state == RUNNING || (dead && state == COMPLETING)) {
                // Raise the hint first: a crash can leave it high, never low.
                body.getAndAddLong(REQUEUED_HINT_OFFSET, 1);
                if (body.compareAndSetLong(slot, word, pack(lap, QUEUED, 0, 0, attempt(word)))) {
                    requeued.add(lap * capacity + i);
                    body.getAndAddLong(RECLAIMED_OFFSET, 1);
                    this.requeued.run();
                } else {
                    body.getAndAddLong(REQUEUED_HINT_OFFSET, -1);
                }
            } else if (state == WRITING) {
                // A dead submitter never finishes. A silent one may still be copying its job: its
                // slot is stepped over, so it holds up no dispatch, but kept from the next lap
                // until the writer lets it go (see WRITER_HOLDS).
                long over = dead ? pack(lap, ABANDONED, 0, 0, 0) : steppedOver(word);
                if (body.compareAndSetLong(slot, word, over)) {
                    abandoned[0]++;
                }
            } else if (dead && writerHolds(word)) {
                body.compareAndSetLong(slot, word, pack(lap, ABANDONED, 0, 0, 0));
            }
        }
    }
}
