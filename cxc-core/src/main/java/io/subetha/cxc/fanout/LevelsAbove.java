package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;

import io.subetha.cxc.mmf.AtomicBuffer;

/**
 * What a taker saw of the levels above the one it takes from: for each level it found with nothing
 * committed, the level's head, tail, head slot word and returned-items hint. A take from a lower
 * level reserves its slot ({@code TAKING}) and then {@linkplain #unchanged re-reads} these words:
 * if none moved, each level held the same words over an interval that contains the reservation's
 * CAS, so at that instant no higher level held a committed item, and that CAS is where the take
 * takes effect. Heads and tails only rise, and a head slot's word cannot leave and come back while
 * the head stays (every state it passes through carries its lap and, after a reservation, a moved
 * tail), so equal words mean the level never changed in between.
 *
 * <p>The hint is compared too, though a claim returned to a higher level and taken again within the
 * interval leaves it as it was: returns follow only a consumer's death or silence, and such an item
 * may be overtaken by one take, as the fan-out's documentation says.
 *
 * <p>A waiting taker uses the same words for every level ({@link #all}): a look that found nothing
 * sleeps until one of them moves.
 *
 * <p>One taker's, one take's: not shared between threads.
 */
final class LevelsAbove {

    private static final int WORDS = 5;

    private final long[] seen = new long[MAX_PRIORITIES * WORDS];
    private int count;

    /** Records a level found with nothing committed, as read. */
    void add(int level, int headSlot, long head, long tail, long headWord, long hint) {
        int i = count++ * WORDS;
        seen[i] = ((long) level << 32) | (headSlot & 0xFFFF_FFFFL);
        seen[i + 1] = head;
        seen[i + 2] = tail;
        seen[i + 3] = headWord;
        seen[i + 4] = hint;
    }

    /** Whether no level was passed: a take from the highest level needs no second look. */
    boolean isEmpty() {
        return count == 0;
    }

    /** Forgets every level, for a take that starts again from the top. */
    void clear() {
        count = 0;
    }

    /**
     * Every level as it is now, for a taker about to look and then wait: any submit that commits an
     * item at a head, any take or return changes one of these words, so the waiter's {@link
     * #unchanged} turns false and it looks again.
     */
    static LevelsAbove all(FanoutLevels levels) {
        LevelsAbove seen = new LevelsAbove();
        for (int priority = 0; priority < MAX_PRIORITIES; priority++) {
            int level = levelOffset(priority);
            long head = levels.position(priority, HEAD_OFFSET, "head");
            int headSlot = levels.slotOffset(priority, head);
            long headWord = levels.body.getLongVolatile(headSlot);
            long tail = levels.body.getLongVolatile(level + TAIL_OFFSET);
            long hint = levels.body.getLongVolatile(level + RETURNED_OFFSET);
            seen.add(level, headSlot, head, tail, headWord, hint);
        }
        return seen;
    }

    /** Whether every recorded level still holds the words it was seen with. */
    boolean unchanged(AtomicBuffer body) {
        for (int k = 0; k < count; k++) {
            int i = k * WORDS;
            int level = (int) (seen[i] >>> 32);
            int headSlot = (int) seen[i];
            if (body.getLongVolatile(level + HEAD_OFFSET) != seen[i + 1]
                    || body.getLongVolatile(level + TAIL_OFFSET) != seen[i + 2]
                    || body.getLongVolatile(headSlot) != seen[i + 3]
                    || body.getLongVolatile(level + RETURNED_OFFSET) != seen[i + 4]) {
                return false;
            }
        }
        return true;
    }
}
