package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.FanoutLevels.as;
import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.participant.ParticipantRecord;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jspecify.annotations.Nullable;

/**
 * The take protocol of a {@link PriorityFanout} (its class comment says the steps): from the
 * highest level that holds an item, returned items first, FIFO within a level, each item reserved
 * first when levels above were passed ({@link LevelsAbove}). One per handle; thread-safe as the
 * handle is.
 */
final class LevelTakes<T> {

    private static final long NOT_LOOKED = -1;
    private static final int SPINS_ON_WRITING = 20_000;

    private final FanoutLevels levels;
    private final AtomicBuffer body;
    private final int capacity;
    private final FixedCodec<T> codec;
    private final ParticipantRecord participant;
    // Per level, the returned-items hint this handle read before a look behind the head that found
    // nothing (a hint left high by a crash, or items another taker took first); NOT_LOOKED until
    // then. The handle looks again once the hint differs, so an item another handle returns since
    // is still taken ahead of the level's later items, and a hint a crash left high costs one look.
    private final AtomicLongArray emptyLookAt = new AtomicLongArray(MAX_PRIORITIES);

    LevelTakes(FanoutLevels levels, FixedCodec<T> codec, ParticipantRecord participant) {
        this.levels = levels;
        this.body = levels.body;
        this.capacity = levels.capacity;
        this.codec = codec;
        this.participant = participant;
        forgetLooks();
    }

    /** Makes every level's next take look behind its head again (after a scan returned items). */
    void forgetLooks() {
        for (int p = 0; p < MAX_PRIORITIES; p++) {
            emptyLookAt.set(p, NOT_LOOKED);
        }
    }

    /**
     * Takes up to {@code max} items from the highest level that holds any.
     *
     * @return the level taken from, or -1 if nothing was taken
     */
    int takeHighest(int max, boolean claim, List<T> out, @Nullable List<long[]> held) {
        LevelsAbove above = new LevelsAbove();
        for (int priority = MAX_PRIORITIES - 1; priority >= 0; priority--) {
            int taken = takeFrom(priority, max, claim, out, held, above);
            if (taken == RESTART) {
                above.clear(); // a level above committed an item meanwhile: start from the top
                priority = MAX_PRIORITIES;
            } else if (taken != 0) {
                return taken < 0 ? -1 : priority; // -1: a higher level is being written
            }
        }
        return -1;
    }

    /**
     * Takes up to {@code max} items of one level into {@code out}. Given {@code above} (a take of
     * the highest non-empty level), each item is taken only if the levels passed are still as they
     * were seen ({@link LevelsAbove}); a level with nothing committed is added to it for the levels
     * below.
     *
     * @return how many, -1 if none because the level's head is still being written while later
     *     positions are reserved (the caller must not go to a lower level), or {@link #RESTART} if
     *     none because a level above committed an item meanwhile
     */
    int takeFrom(
            int priority,
            int max,
            boolean claim,
            List<T> out,
            @Nullable List<long[]> held,
            @Nullable LevelsAbove above) {
        FixedCodec<T> c = codec;
        int level = levelOffset(priority);
        int taken = 0;
        long hint = body.getLongVolatile(level + RETURNED_OFFSET);
        if (hint > 0 && hint != emptyLookAt.get(priority)) {
            taken = takeReturned(priority, max, claim, out, held, hint, above);
            if (taken == RESTART) {
                return RESTART;
            }
        }
        long me = -1;
        int spins = 0;
        while (taken < max) {
            long h = levels.position(priority, HEAD_OFFSET, "head");
            long lap = h / capacity;
            int slot = levels.slotOffset(priority, h);
            long word = body.getLongVolatile(slot);
            long tag = lapTag(word);
            if (tag != (lap & 0xFFFF_FFFFL)) {
                if (tag == ((lap - 1) & 0xFFFF_FFFFL)) {
                    // Not yet written: the previous lap's item still holds the slot.
                    return nothingCommitted(above, taken, level, slot, h, word, hint);
                }
                if (tag == ((lap + 1) & 0xFFFF_FFFFL)) {
                    // Taken (and perhaps refilled) by a taker that has not moved the head yet,
                    // or never will (killed after its CAS): help it.
                    body.compareAndSetLong(level + HEAD_OFFSET, h, h + 1);
                } else if (body.getLongVolatile(level + HEAD_OFFSET) == h) {
                    throw levels.lapProblem(priority, "head", h, tag);
                }
                continue; // the head moved on
            }
            int state = state(word);
            if (state == EMPTY) {
                return nothingCommitted(above, taken, level, slot, h, word, hint);
            }
            if (state == WRITING) {
                if (body.getLongVolatile(level + TAIL_OFFSET) <= h + 1) {
                    // Nothing committed behind it: not an inversion to go lower.
                    return nothingCommitted(above, taken, level, slot, h, word, hint);
                }
                if (++spins < SPINS_ON_WRITING) {
                    Thread.onSpinWait();
                    continue;
                }
                return taken == 0 ? -1 : taken;
            }
            if (state == CLAIMED) {
                body.compareAndSetLong(level + HEAD_OFFSET, h, h + 1); // taken: help the head
                continue;
            }
            if (state == TAKING) {
                levels.awaitOrUndoTake(slot, word, lap, ++spins);
                continue;
            }
            if (state == ABANDONED) {
                // Nothing to copy: step over it as a drain takes an item.
                if (body.compareAndSetLong(slot, word, empty(lap + 1))) {
                    body.compareAndSetLong(level + HEAD_OFFSET, h, h + 1);
                }
                continue;
            }
            if (state != FULL) {
                throw levels.damaged(
                        "slot "
                                + h % capacity
                                + " of priority level "
                                + priority
                                + " holds state "
                                + state
                                + ", which no step writes");
            }
            // FULL at the head
            if (me < 0) {
                me = participant.tag();
            }
            int took = takeCopied(c, slot, word, lap, me, claim, out, held, above);
            if (took == RESTART) {
                return taken == 0 ? RESTART : taken;
            }
            if (took == 1) {
                body.compareAndSetLong(level + HEAD_OFFSET, h, h + 1);
                taken++;
            }
        }
        return taken;
    }

    /**
     * A level whose head holds nothing committed: what was taken of it, and, if nothing, the level
     * recorded (with its tail, read now) for the takes below it.
     */
    private int nothingCommitted(
            @Nullable LevelsAbove above,
            int taken,
            int level,
            int headSlot,
            long head,
            long headWord,
            long hint) {
        if (taken == 0 && above != null) {
            long tail = body.getLongVolatile(level + TAIL_OFFSET);
            above.add(level, headSlot, head, tail, headWord, hint);
        }
        return taken;
    }

    /** {@link #takeFrom}'s answer when a level above committed an item before it took any. */
    static final int RESTART = Integer.MIN_VALUE;

    /** Takes returned items behind the head, lowest position first; {@link #takeFrom}'s answers. */
    private int takeReturned(
            int priority,
            int max,
            boolean claim,
            List<T> out,
            @Nullable List<long[]> held,
            long hint,
            @Nullable LevelsAbove above) {
        FixedCodec<T> c = codec;
        int level = levelOffset(priority);
        long h = body.getLongVolatile(level + HEAD_OFFSET);
        int taken = 0;
        long me = participant.tag();
        for (long p = Math.max(0, h - capacity); p < h && taken < max; p++) {
            long lap = p / capacity;
            int slot = levels.slotOffset(priority, p);
            long word = body.getLongVolatile(slot);
            if (state(word) != FULL || lapTag(word) != (lap & 0xFFFF_FFFFL)) {
                continue;
            }
            int took = takeCopied(c, slot, word, lap, me, claim, out, held, above);
            if (took == RESTART) {
                return taken == 0 ? RESTART : taken;
            }
            if (took == 1) {
                body.getAndAddLong(level + RETURNED_OFFSET, -1);
                taken++;
            }
        }
        if (taken == 0) {
            emptyLookAt.set(priority, hint);
        }
        return taken;
    }

    /**
     * Copies the item a {@code FULL} slot holds under {@code word}, then takes it with one CAS from
     * that word: a drain straight to {@code EMPTY} of the next lap, a claim to {@code CLAIMED(me)}.
     * The CAS is the take's step, so a drain that returned its item has already given back its
     * slot's room. A copy made while another taker won the slot (and a producer refilled it) is
     * dropped with the failed CAS; a returned item taken again under the same word still holds the
     * same bytes.
     *
     * <p>A take below levels it passed ({@code above} not empty) first reserves the slot ({@code
     * TAKING(me)}), then checks that those levels are as they were seen: if so the reservation's
     * CAS is where the take took effect (no higher item existed then), and a second CAS completes
     * it; if not, it gives the slot back as it was and the take starts again from the top. Anyone
     * who meets the reservation waits for it, briefly, or undoes it, so the second CAS fails only
     * for a take that others already treated as never having happened.
     *
     * @return 1 if this call took the item, 0 if another did, {@link #RESTART} if a level above
     *     committed an item
     */
    private int takeCopied(
            FixedCodec<T> c,
            int slot,
            long word,
            long lap,
            long me,
            boolean claim,
            List<T> out,
            @Nullable List<long[]> held,
            @Nullable LevelsAbove above) {
        T item;
        try {
            item = c.read(body, slot + PAYLOAD_OFFSET);
        } catch (RuntimeException e) {
            if (body.getLongVolatile(slot) == word) {
                throw e;
            }
            return 0; // a torn copy of a slot rewritten under us
        }
        long next = claim ? as(lap, CLAIMED, me) : empty(lap + 1);
        if (above == null || above.isEmpty()) {
            if (!body.compareAndSetLong(slot, word, next)) {
                return 0;
            }
        } else {
            long taking = as(lap, TAKING, me);
            if (!body.compareAndSetLong(slot, word, taking)) {
                return 0;
            }
            Interleaving.at(Point.FANOUT_TAKE_RESERVED);
            if (!above.unchanged(body)) {
                body.compareAndSetLong(slot, taking, word);
                return RESTART;
            }
            if (!body.compareAndSetLong(slot, taking, next)) {
                return 0; // undone by a taker or producer that would not wait for us
            }
        }
        out.add(item);
        if (claim) {
            // Ours by the CAS above: counted now, before any handler runs it (FanoutAttempts).
            held.add(new long[] {slot, next, lap, FanoutAttempts.raise(body, slot, lap)});
        }
        return 1;
    }
}
