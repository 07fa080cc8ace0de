package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.participant.LapTags;
import io.subetha.cxc.participant.ParticipantRecord;
import java.util.function.Function;

/**
 * The rings of a {@link PriorityFanout} file as words: where a position's slot is, the heads and
 * tails read with the checks that keep a damaged file from being read forever, and the steps that
 * submits, takes and repair share (returning an item, undoing a reservation). Layout: {@link
 * PriorityFanoutDescriptor}.
 */
final class FanoutLevels {

    // A reservation lasts a few reads of the levels above; this is far more than that.
    private static final int SPINS_ON_TAKING = 2_000;

    final AtomicBuffer body;
    final int capacity;
    private final int stride;
    private final Function<String, CxcFormatException> damaged;

    FanoutLevels(
            AtomicBuffer body,
            int capacity,
            int stride,
            Function<String, CxcFormatException> damaged) {
        this.body = body;
        this.capacity = capacity;
        this.stride = stride;
        this.damaged = damaged;
    }

    /** The slot of {@code position} in level {@code priority}. */
    int slotOffset(int priority, long position) {
        return SLOTS_OFFSET + (priority * capacity + (int) (position % capacity)) * stride;
    }

    /** A level's ring position; positions only grow from 0, so a negative one is damage. */
    long position(int priority, int offset, String name) {
        long position = body.getLongVolatile(levelOffset(priority) + offset);
        if (position < 0) {
            throw damaged(
                    "the "
                            + name
                            + " of priority level "
                            + priority
                            + " is at "
                            + position
                            + ", below 0");
        }
        return position;
    }

    /** A slot whose lap tag is neither its position's lap nor the one before: damage. */
    CxcFormatException lapProblem(int priority, String end, long position, long tag) {
        return damaged(
                "slot "
                        + position % capacity
                        + " of priority level "
                        + priority
                        + " holds lap tag "
                        + tag
                        + " while the "
                        + end
                        + " is at position "
                        + position
                        + " (lap "
                        + position / capacity
                        + "): a slot holds its position's lap or the one before");
    }

    CxcFormatException damaged(String problem) {
        return damaged.apply(problem);
    }

    /** The full lap a slot's 32-bit lap tag stands for, near the level's head. */
    long fullLap(int level, long tag) {
        return LapTags.fullLap(body.getLongVolatile(level + HEAD_OFFSET) / capacity, tag, 32);
    }

    /**
     * The returned items waiting behind {@code head} in level {@code priority}: {@code FULL} slots
     * of their lap.
     */
    long returnedBehind(int priority, long head) {
        long count = 0;
        for (long p = Math.max(0, head - capacity); p < head; p++) {
            long word = body.getLongVolatile(slotOffset(priority, p));
            if (state(word) == FULL && lapTag(word) == ((p / capacity) & 0xFFFF_FFFFL)) {
                count++;
            }
        }
        return count;
    }

    /**
     * Puts a claimed item back in its slot, behind the head: the returned-items hint is raised
     * before the CAS and lowered again if it fails, so a crash can only leave it too high.
     */
    boolean returnToLevel(int level, int slot, long word, long lap) {
        body.getAndAddLong(level + RETURNED_OFFSET, 1);
        if (body.compareAndSetLong(slot, word, pack(lap, FULL, 0, 0))) {
            return true;
        }
        body.getAndAddLong(level + RETURNED_OFFSET, -1);
        return false;
    }

    /**
     * Another taker's reservation ({@code word}): it is deciding whether its take stands, which is
     * a few reads. Wait that long; a taker stopped or dead in between has its reservation undone,
     * which makes its take fail, so nobody waits on a stopped process and no item is passed over
     * while its take might still be undone.
     */
    void awaitOrUndoTake(int slot, long word, long lap, int spins) {
        if (spins < SPINS_ON_TAKING) {
            Thread.onSpinWait();
        } else {
            body.compareAndSetLong(slot, word, pack(lap, FULL, 0, 0));
        }
    }

    /** A slot word in {@code state} for {@code lap}, naming the participant {@code self}. */
    static long as(long lap, int state, long self) {
        return pack(
                lap, state, ParticipantRecord.indexOf(self), ParticipantRecord.generationOf(self));
    }
}
