package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.participant.LapTags;
import io.subetha.cxc.participant.ParticipantRecord;
import java.util.function.Function;

/**
 * A {@link BackgroundScheduler}'s ring of job slots as its submit and dispatch steps read it: where
 * job {@code id} lives, the head and tail checked against damage, and the message of a slot whose
 * lap tag no step writes.
 */
final class JobRing {

    final AtomicBuffer body;
    final int capacity;
    final int stride;
    private final Function<String, RuntimeException> damaged;

    JobRing(
            AtomicBuffer body,
            int capacity,
            int stride,
            Function<String, RuntimeException> damaged) {
        this.body = body;
        this.capacity = capacity;
        this.stride = stride;
        this.damaged = damaged;
    }

    /** The full lap a 24-bit lap tag stands for, near {@code head}'s lap. */
    static long fullLap(long head, long tag, int capacity) {
        return LapTags.fullLap(head / capacity, tag, 24);
    }

    /** A slot word held by participant tag {@code self}. */
    static long as(long lap, int state, long self, long attempt) {
        return pack(
                lap,
                state,
                ParticipantRecord.indexOf(self),
                ParticipantRecord.generationOf(self),
                attempt);
    }

    int slotOffset(long id) {
        return SLOTS_OFFSET + (int) (id % capacity) * stride;
    }

    /** A ring position the file holds; positions only grow from 0, so a negative one is damage. */
    long position(int offset, String name) {
        long position = body.getLongVolatile(offset);
        if (position < 0) {
            throw damaged("its " + name + " is at job " + position + ", below 0");
        }
        return position;
    }

    RuntimeException damaged(String problem) {
        return damaged.apply(problem);
    }

    RuntimeException lapProblem(String end, long position, long tag) {
        return damaged(
                "job slot "
                        + position % capacity
                        + " holds lap tag "
                        + tag
                        + " while the "
                        + end
                        + " is at job "
                        + position
                        + " (lap "
                        + position / capacity
                        + "): a slot holds its position's lap, the one before or, at the head, the"
                        + " one after");
    }
}
