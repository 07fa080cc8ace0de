package io.subetha.cxc.resolution;

import static io.subetha.cxc.resolution.UniversalDescriptor.*;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.resolution.SharedUniversal.Representation;
import java.util.Arrays;

/**
 * A {@link SharedUniversal}'s redo record and the ops it describes: a writer holding the lock
 * records its intent (op, key, the count before, the sorted position, its progress) before it
 * changes the active region, and {@link #rollForward} completes the op from the recorded progress,
 * whether the writer is the one that began it or the next holder after a dead one. Each step stores
 * absolute values (a slot's copy, the count before plus or minus one), so redoing a step is
 * harmless. Every method here is called holding the writer lock. Layout: {@link
 * UniversalDescriptor}.
 */
final class UniversalIntent {

    private final AtomicBuffer body;
    private final UniversalRegions regions;
    private final int capacity;
    private final int stride;
    private final int keyPadded;
    private final int tableSize;

    UniversalIntent(AtomicBuffer body, UniversalRegions regions, int capacity) {
        this.body = body;
        this.regions = regions;
        this.capacity = capacity;
        this.stride = regions.stride();
        this.keyPadded = regions.keyPadded();
        this.tableSize = regions.tableSize();
    }

    /** What an intent op is doing, as errors and {@code describe()} say it. */
    static String name(long intent) {
        if (intent == INTENT_INSERT) {
            return "inserting";
        }
        if (intent == INTENT_REMOVE) {
            return "removing";
        }
        if (intent == INTENT_MIGRATE) {
            return "migrating";
        }
        return "between ops";
    }

    /** Whether an op is in flight: one its writer is doing, or a dead writer left. */
    boolean inFlight() {
        return body.getLongVolatile(INTENT_OP_OFFSET) != INTENT_NONE;
    }

    void write(long op, AtomicBuffer k, long a, long b, long progress) {
        for (int i = 0; i < keyPadded; i += 8) {
            body.setLongPlain(INTENT_KEY_OFFSET + i, k.getLongPlain(i));
        }
        body.setLongPlain(INTENT_A_OFFSET, a);
        body.setLongPlain(INTENT_B_OFFSET, b);
        body.setLongPlain(INTENT_PROGRESS_OFFSET, progress);
        body.setLongVolatile(INTENT_OP_OFFSET, op); // last: a repairer never sees half an intent
    }

    /**
     * Completes the op the intent describes, from its recorded progress (the writer's own, or a
     * dead writer's), then clears the intent and leaves the version even.
     */
    void rollForward() {
        long op = body.getLongVolatile(INTENT_OP_OFFSET);
        if ((body.getLongVolatile(VERSION_OFFSET) & 1) == 0 && op != INTENT_MIGRATE) {
            body.getAndAddLong(VERSION_OFFSET, 1);
        }
        if (op == INTENT_INSERT) {
            finishInsert();
        } else if (op == INTENT_REMOVE) {
            finishRemove();
        } else if (op == INTENT_MIGRATE) {
            finishMigration();
        } else if (op != INTENT_NONE) {
            throw regions.corrupt("intent op " + op + " at body offset " + INTENT_OP_OFFSET);
        }
        if ((body.getLongVolatile(VERSION_OFFSET) & 1) != 0) {
            body.getAndAddLong(VERSION_OFFSET, 1); // even: the step is done
        }
        body.setLongVolatile(INTENT_OP_OFFSET, INTENT_NONE);
    }

    /** Records a migration to {@code to} and carries it out. */
    void migrate(Representation to) {
        long layout = body.getLongPlain(LAYOUT_OFFSET);
        body.setLongPlain(INTENT_A_OFFSET, layout);
        body.setLongPlain(INTENT_B_OFFSET, to.ordinal());
        body.setLongPlain(INTENT_PROGRESS_OFFSET, 0);
        body.setLongVolatile(INTENT_OP_OFFSET, INTENT_MIGRATE);
        rollForward();
        body.getAndAddLong(MIGRATIONS_OFFSET, 1);
    }

    private void finishInsert() {
        long layout = body.getLongPlain(LAYOUT_OFFSET);
        int region = regions.active(layout);
        long before =
                regions.bounded(body.getLongPlain(INTENT_A_OFFSET), capacity - 1, "intent count");
        if (UniversalRegions.isSorted(layout)) {
            int position =
                    (int) regions.bounded(body.getLongPlain(INTENT_B_OFFSET), before, "position");
            long j = regions.bounded(body.getLongPlain(INTENT_PROGRESS_OFFSET), before, "progress");
            for (; j > position; j--) {
                regions.copySlot(region + (int) (j - 1) * stride, region + (int) j * stride);
                body.setLongPlain(INTENT_PROGRESS_OFFSET, j - 1);
            }
            int slot = region + position * stride;
            regions.copyKey(INTENT_KEY_OFFSET, slot + 8);
            body.setLongPlain(slot, FULL);
        } else {
            long hash = regions.hashAt(INTENT_KEY_OFFSET);
            if (regions.findHash(region, body, INTENT_KEY_OFFSET, hash) < 0) {
                int index = regions.home(hash);
                for (int probe = 0; probe < tableSize; probe++) {
                    int slot = region + index * stride;
                    long state = body.getLongPlain(slot);
                    if (state != FULL) {
                        if (state == REMOVED) {
                            body.setLongPlain(
                                    TOMBSTONES_OFFSET,
                                    Math.max(0, body.getLongPlain(TOMBSTONES_OFFSET) - 1));
                        }
                        regions.copyKey(INTENT_KEY_OFFSET, slot + 8);
                        body.setLongRelease(slot, FULL);
                        break;
                    }
                    index = regions.next(index);
                }
            }
        }
        body.setLongPlain(COUNT_OFFSET, before + 1);
    }

    private void finishRemove() {
        long layout = body.getLongPlain(LAYOUT_OFFSET);
        int region = regions.active(layout);
        long before = regions.bounded(body.getLongPlain(INTENT_A_OFFSET), capacity, "intent count");
        if (before < 1) {
            throw regions.corrupt("a remove recorded with count 0");
        }
        if (UniversalRegions.isSorted(layout)) {
            long j =
                    regions.bounded(
                            body.getLongPlain(INTENT_PROGRESS_OFFSET), before - 1, "progress");
            for (; j < before - 1; j++) {
                regions.copySlot(region + (int) (j + 1) * stride, region + (int) j * stride);
                body.setLongPlain(INTENT_PROGRESS_OFFSET, j + 1);
            }
        } else {
            int at =
                    regions.findHash(
                            region, body, INTENT_KEY_OFFSET, regions.hashAt(INTENT_KEY_OFFSET));
            if (at >= 0) {
                body.setLongRelease(region + at * stride, REMOVED);
                body.setLongPlain(TOMBSTONES_OFFSET, body.getLongPlain(TOMBSTONES_OFFSET) + 1);
            }
        }
        body.setLongPlain(COUNT_OFFSET, before - 1);
    }

    /**
     * Builds the spare region from the active one, then switches: idempotent, since the active
     * region is only read, and a switch already made is recognised by the layout word.
     */
    private void finishMigration() {
        long source = body.getLongPlain(INTENT_A_OFFSET);
        long target = body.getLongPlain(INTENT_B_OFFSET);
        if (target != Representation.SORTED_ARRAY.ordinal()
                && target != Representation.HASH.ordinal()) {
            throw regions.corrupt("migration target " + target);
        }
        if (body.getLongPlain(LAYOUT_OFFSET) != source) {
            return; // switched before the migrator died: done
        }
        int count = regions.boundedCount();
        int from = regions.active(source);
        int spare = 1 - region(source);
        int to = regions.offset(spare);
        boolean sorted = UniversalRegions.isSorted(source);
        // Collect the keys (sorted, for a sorted array) on the heap, then lay them out.
        long[] words = new long[count * (keyPadded / 8)];
        int n = 0;
        if (sorted) {
            for (int i = 0; i < count; i++) {
                regions.readKey(from + i * stride + 8, words, n++);
            }
        } else {
            for (int i = 0; i < tableSize && n < count; i++) {
                if (body.getLongPlain(from + i * stride) == FULL) {
                    regions.readKey(from + i * stride + 8, words, n++);
                }
            }
        }
        for (int i = 0; i < tableSize; i++) {
            body.setLongPlain(to + i * stride, EMPTY);
        }
        if (target == Representation.SORTED_ARRAY.ordinal()) {
            Integer[] order = new Integer[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            if (!sorted) {
                Arrays.sort(order, (a, b) -> regions.compareWords(words, a, b));
            }
            for (int i = 0; i < n; i++) {
                regions.writeKey(words, order[i], to + i * stride + 8);
                body.setLongPlain(to + i * stride, FULL);
            }
        } else {
            for (int i = 0; i < n; i++) {
                int index = regions.home(regions.hashWords(words, i));
                while (body.getLongPlain(to + index * stride) == FULL) {
                    index = regions.next(index);
                }
                regions.writeKey(words, i, to + index * stride + 8);
                body.setLongPlain(to + index * stride, FULL);
            }
        }
        // The switch: one store between two version increments.
        body.getAndAddLong(VERSION_OFFSET, 1);
        body.setLongPlain(COUNT_OFFSET, n);
        body.setLongPlain(TOMBSTONES_OFFSET, 0);
        body.setLongVolatile(LAYOUT_OFFSET, layoutWord(spare, target));
        body.getAndAddLong(VERSION_OFFSET, 1);
    }
}
