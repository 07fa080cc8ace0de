package io.subetha.cxc.resolution;

import static io.subetha.cxc.resolution.UniversalDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.primitive.PrimitiveView;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.resolution.SharedUniversal.Representation;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The universal set's redo intent as a writer SIGKILLed at each step leaves it (planted in the
 * file, the lock's owner given a PID above every kernel's pid_max), rolled forward exactly once by
 * the next lock holder in both representations; an odd version with nothing in flight evened; a
 * corrupt intent refused; {@code inconsistency()} on each kind of damage; the tombstone bound that
 * triggers a rebuild; what {@code describe()} and a look-up's timeout say.
 */
class UniversalIntentRepairTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long PID = ProcessHandle.current().pid();
    static final int STRIDE = stride(8);

    @TempDir Path dir;

    SharedUniversal<Long> set(int capacity) {
        return SharedUniversal.TYPE.create(
                dir.resolve("u.cxc"), new SharedUniversal.Settings<>(capacity, FixedCodec.INT64));
    }

    AtomicBuffer raw() {
        return RawBody.of(dir.resolve("u.cxc"));
    }

    static void plantDeadHolder(AtomicBuffer raw) {
        long word = OwnerRecord.ownerWord(raw, LOCK_OFFSET);
        raw.setLongVolatile(
                LOCK_OFFSET, OwnerRecord.ownerWord(DEAD_PID, OwnerRecord.nextGeneration(word)));
    }

    static void intent(AtomicBuffer raw, long op, long key, long a, long b, long progress) {
        raw.setLongPlain(INTENT_KEY_OFFSET, key);
        raw.setLongPlain(INTENT_A_OFFSET, a);
        raw.setLongPlain(INTENT_B_OFFSET, b);
        raw.setLongPlain(INTENT_PROGRESS_OFFSET, progress);
        raw.setLongVolatile(INTENT_OP_OFFSET, op);
    }

    static void copy(AtomicBuffer raw, int from, int to) {
        for (int i = 0; i < STRIDE; i += 8) {
            raw.setLongPlain(to + i, raw.getLongPlain(from + i));
        }
    }

    /** Slot {@code i} of the active region. */
    static int slot(AtomicBuffer raw, int capacity, int i) {
        int region = region(raw.getLongVolatile(LAYOUT_OFFSET));
        return regionOffset(STRIDE, region, tableSize(capacity)) + i * STRIDE;
    }

    @Test
    void aSortedRemoveKilledMidShiftIsFinishedFromItsProgress() {
        try (SharedUniversal<Long> set = set(16)) {
            for (long k : new long[] {10, 20, 30, 40}) {
                set.insert(k);
            }
            AtomicBuffer raw = raw();
            // Removing 20 (at 1 of 4): slot 2 already shifted down to 1, progress 2.
            copy(raw, slot(raw, 16, 2), slot(raw, 16, 1));
            intent(raw, INTENT_REMOVE, 20, 4, 1, 2);
            raw.getAndAddLong(VERSION_OFFSET, 1);
            plantDeadHolder(raw);
            assertThat(set.describe())
                    .containsEntry("inFlight", "removing")
                    .containsEntry("writerPid", DEAD_PID);
            assertThat(set.containsKey(20L)).isFalse();
            assertThat(set.keys()).containsExactly(10L, 30L, 40L);
            assertThat(set.size()).isEqualTo(3);
            assertThat(set.inconsistency()).isNull();
            assertThat(raw.getLongVolatile(VERSION_OFFSET) & 1).isZero();
            assertThat(raw.getLongVolatile(INTENT_OP_OFFSET)).isEqualTo(INTENT_NONE);
            assertThat(set.describe())
                    .containsEntry("takeovers", 1L)
                    .containsEntry("repairs", 1L)
                    .containsEntry("removes", 0L)
                    .containsEntry("inFlight", "between ops");
        }
    }

    @Test
    void aSortedInsertKilledBeforeItsFirstShiftIsFinished() {
        try (SharedUniversal<Long> set = set(16)) {
            for (long k : new long[] {10, 20, 30}) {
                set.insert(k);
            }
            AtomicBuffer raw = raw();
            intent(raw, INTENT_INSERT, 15, 3, 1, 3);
            plantDeadHolder(raw); // killed before the version went odd: the repair makes it so
            assertThat(set.insert(35L)).isTrue();
            assertThat(set.keys()).containsExactly(10L, 15L, 20L, 30L, 35L);
            assertThat(set.inconsistency()).isNull();
            assertThat(raw.getLongVolatile(VERSION_OFFSET) & 1).isZero();
            assertThat(set.describe()).containsEntry("repairs", 1L).containsEntry("inserts", 4L);
        }
    }

    @Test
    void aHashInsertKilledBeforeOrAfterItsSlotIsStoredOnceAndCountedOnce() {
        try (SharedUniversal<Long> set = set(8)) {
            set.migrate(Representation.HASH);
            set.insert(1L);
            set.insert(2L);
            AtomicBuffer raw = raw();
            // Before the slot: the repair stores the key.
            intent(raw, INTENT_INSERT, 3, 2, 0, 2);
            raw.getAndAddLong(VERSION_OFFSET, 1);
            plantDeadHolder(raw);
            assertThat(set.containsKey(3L)).isTrue();
            assertThat(set.size()).isEqualTo(3);
            assertThat(set.inconsistency()).isNull();
            // After the slot, before the count: stored already, so only counted.
            set.insert(4L);
            raw.setLongPlain(COUNT_OFFSET, 3);
            intent(raw, INTENT_INSERT, 4, 3, 0, 3);
            raw.getAndAddLong(VERSION_OFFSET, 1);
            plantDeadHolder(raw);
            assertThat(set.containsKey(4L)).isTrue();
            assertThat(set.size()).isEqualTo(4);
            assertThat(set.keys()).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
            assertThat(set.inconsistency()).isNull();
            assertThat(set.describe()).containsEntry("repairs", 2L).containsEntry("takeovers", 2L);
        }
    }

    @Test
    void aHashRemoveKilledAfterMarkingItsSlotIsCountedOnceAndItsTombstoneOnce() {
        try (SharedUniversal<Long> set = set(8)) {
            set.migrate(Representation.HASH);
            for (long k = 1; k <= 3; k++) {
                set.insert(k);
            }
            set.remove(2L);
            assertThat(raw().getLongVolatile(TOMBSTONES_OFFSET)).isEqualTo(1);
            AtomicBuffer raw = raw();
            raw.setLongPlain(COUNT_OFFSET, 3); // killed before the count
            intent(raw, INTENT_REMOVE, 2, 3, 0, 0);
            raw.getAndAddLong(VERSION_OFFSET, 1);
            plantDeadHolder(raw);
            assertThat(set.containsKey(2L)).isFalse();
            assertThat(set.size()).isEqualTo(2);
            assertThat(raw.getLongVolatile(TOMBSTONES_OFFSET)).isEqualTo(1);
            assertThat(set.inconsistency()).isNull();
            // A new key reuses the tombstone and lowers the count of them.
            long before = raw.getLongVolatile(TOMBSTONES_OFFSET);
            for (long k = 10; k < 14; k++) {
                set.insert(k);
            }
            assertThat(raw.getLongVolatile(TOMBSTONES_OFFSET)).isBetween(0L, before);
            assertThat(set.inconsistency()).isNull();
        }
    }

    @Test
    void removedSlotsBeyondAQuarterOfTheTableTriggerARebuild() {
        try (SharedUniversal<Long> set = set(8)) {
            set.migrate(Representation.HASH);
            for (long k = 1; k <= 8; k++) {
                set.insert(k);
            }
            AtomicBuffer raw = raw();
            for (long k = 1; k <= 4; k++) {
                set.remove(k); // 4 tombstones: a quarter of the 16 slots, not more
            }
            assertThat(raw.getLongVolatile(TOMBSTONES_OFFSET)).isEqualTo(4);
            assertThat(set.describe()).containsEntry("migrations", 1L);
            set.remove(5L);
            assertThat(raw.getLongVolatile(TOMBSTONES_OFFSET)).isZero();
            assertThat(set.describe()).containsEntry("migrations", 2L).containsEntry("removes", 5L);
            assertThat(set.representation()).isEqualTo(Representation.HASH);
            assertThat(set.keys()).containsExactlyInAnyOrder(6L, 7L, 8L);
            assertThat(set.inconsistency()).isNull();
        }
    }

    @Test
    void anOddVersionWithNothingInFlightIsEvenedByTheNextLookUp() {
        try (SharedUniversal<Long> set = set(8)) {
            set.insert(5L);
            AtomicBuffer raw = raw();
            long version = raw.getLongVolatile(VERSION_OFFSET);
            raw.setLongVolatile(VERSION_OFFSET, version + 1);
            assertThat(set.containsKey(5L)).isTrue(); // the lock is free: taken, evened, released
            assertThat(raw.getLongVolatile(VERSION_OFFSET)).isEqualTo(version + 2);
            raw.setLongVolatile(VERSION_OFFSET, version + 3);
            plantDeadHolder(raw);
            assertThat(set.containsKey(6L)).isFalse();
            assertThat(raw.getLongVolatile(VERSION_OFFSET)).isEqualTo(version + 4);
            assertThat(set.describe()).containsEntry("takeovers", 1L).containsEntry("repairs", 0L);
        }
    }

    @Test
    void aLookUpWaitsForALiveWritersStepAndItsTimeoutSaysWhatItWaitedFor() {
        try (SharedUniversal<Long> set = set(8)) {
            set.insert(5L);
            AtomicBuffer raw = raw();
            long word = OwnerRecord.ownerWord(raw, LOCK_OFFSET);
            long held = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(word));
            raw.setLongVolatile(LOCK_OFFSET, held);
            raw.setLongVolatile(INTENT_OP_OFFSET, INTENT_INSERT);
            raw.getAndAddLong(VERSION_OFFSET, 1);
            set.waitLimit(Duration.ofMillis(30));
            assertThatThrownBy(() -> set.containsKey(5L))
                    .isInstanceOf(CxcTimeoutException.class)
                    .hasMessageContaining("timed out after PT0.03S waiting for a look-up of ")
                    .hasMessageContaining(
                            ": PID "
                                    + PID
                                    + " (this process) holds the writer lock, inserting,"
                                    + " and is alive");
            assertThat(set.describe())
                    .containsEntry("writerPid", PID)
                    .containsEntry("inFlight", "inserting");
            raw.setLongVolatile(INTENT_OP_OFFSET, INTENT_MIGRATE);
            assertThat(set.describe()).containsEntry("inFlight", "migrating");
            raw.setLongVolatile(INTENT_OP_OFFSET, INTENT_NONE);
            raw.getAndAddLong(VERSION_OFFSET, 1);
            raw.setLongVolatile(LOCK_OFFSET, OwnerRecord.freed(held));
            assertThat(set.containsKey(5L)).isTrue();
            set.waitLimit(
                    Duration.ofSeconds(Long.MAX_VALUE)); // too long for nanoseconds: the longest
            assertThat(set.insert(6L)).isTrue();
            assertThatThrownBy(() -> set.waitLimit(Duration.ofMillis(-1)))
                    .hasMessageContaining("wait limit must be positive, got PT-0.001S");
        }
    }

    @Test
    void aCorruptIntentIsRefusedNotFollowed() {
        Object[][] cases = {
            {INTENT_MIGRATE + 4, 0L, 0L, 0L, "intent op 7 at body offset 160"},
            {INTENT_REMOVE, 0L, 0L, 0L, "a remove recorded with count 0"},
            {INTENT_INSERT, 99L, 0L, 99L, "intent count 99 outside 0..7"},
            {INTENT_REMOVE, 9L, 0L, 0L, "intent count 9 outside 0..8"},
            {INTENT_INSERT, 1L, 5L, 1L, "position 5 outside 0..1"},
            {INTENT_INSERT, 1L, 0L, 4L, "progress 4 outside 0..1"},
            {INTENT_MIGRATE, -1L, 7L, 0L, "migration target 7"},
        };
        for (int i = 0; i < cases.length; i++) {
            Object[] c = cases[i];
            Path path = dir.resolve(i + ".cxc");
            try (SharedUniversal<Long> set =
                    SharedUniversal.TYPE.create(
                            path, new SharedUniversal.Settings<>(8, FixedCodec.INT64))) {
                set.insert(1L);
                AtomicBuffer raw = RawBody.of(path);
                intent(raw, (long) c[0], 2, (long) c[1], (long) c[2], (long) c[3]);
                assertThatThrownBy(() -> set.insert(3L))
                        .as("case %d", i)
                        .isInstanceOf(CxcFormatException.class)
                        .hasMessageContaining("the universal set " + path + " is corrupt: " + c[4])
                        .hasMessageContaining("Nothing was changed; recreate the file.");
            }
        }
    }

    @Test
    void inconsistencyNamesEachKindOfDamage() {
        try (SharedUniversal<Long> set = set(8)) {
            for (long k : new long[] {1, 2, 3}) {
                set.insert(k);
            }
            AtomicBuffer raw = raw();
            assertThat(set.inconsistency()).isNull();
            raw.setLongPlain(COUNT_OFFSET, 9);
            assertThat(set.inconsistency()).isEqualTo("count 9 outside 0..8");
            assertThat(set.size()).isEqualTo(8);
            raw.setLongPlain(COUNT_OFFSET, -1);
            assertThat(set.inconsistency()).isEqualTo("count -1 outside 0..8");
            raw.setLongPlain(COUNT_OFFSET, 3);
            raw.setLongPlain(slot(raw, 8, 1) + 8, 1); // equal neighbours
            assertThat(set.inconsistency()).isEqualTo("sorted array out of order at 1");
            raw.setLongPlain(slot(raw, 8, 1) + 8, 2);
            raw.setLongPlain(slot(raw, 8, 2) + 8, 0); // descending at the end
            assertThat(set.inconsistency()).isEqualTo("sorted array out of order at 2");
            raw.setLongPlain(slot(raw, 8, 2) + 8, 3);
            set.migrate(Representation.HASH);
            assertThat(set.inconsistency()).isNull();
            raw.setLongPlain(COUNT_OFFSET, 2);
            assertThat(set.inconsistency()).isEqualTo("full slots 3 but count 2");
            raw.setLongPlain(COUNT_OFFSET, 3);
            // Move one key's slot behind an empty one: unreachable from its home.
            int moved = -1;
            for (int i = 0; i < tableSize(8) && moved < 0; i++) {
                int s = slot(raw, 8, i);
                int n = slot(raw, 8, (i + 2) % tableSize(8));
                int between = slot(raw, 8, (i + 1) % tableSize(8));
                if (raw.getLongPlain(s) == FULL
                        && raw.getLongPlain(between) == EMPTY
                        && raw.getLongPlain(n) == EMPTY) {
                    copy(raw, s, n);
                    raw.setLongPlain(s, EMPTY);
                    moved = (i + 2) % tableSize(8);
                }
            }
            assertThat(moved).isNotNegative();
            assertThat(set.inconsistency())
                    .isEqualTo("slot " + moved + " unreachable from its home, or its key twice");
        }
    }

    @Test
    void keysComeInUnsignedOrderWhenSortedAndEveryOneWhenHashed() {
        try (SharedUniversal<Long> set = set(8)) {
            set.migrate(Representation.HASH);
            for (long k : new long[] {-1, 5, 1, Long.MIN_VALUE}) {
                set.insert(k);
            }
            assertThat(set.keys()).containsExactlyInAnyOrder(-1L, 5L, 1L, Long.MIN_VALUE);
            set.migrate(Representation.SORTED_ARRAY);
            assertThat(set.keys()).containsExactly(1L, 5L, Long.MIN_VALUE, -1L);
            for (long k : new long[] {-1, 5, 1, Long.MIN_VALUE}) {
                assertThat(set.containsKey(k)).as("key %d", k).isTrue();
            }
            assertThat(set.containsKey(0L)).isFalse();
            assertThat(set.containsKey(2L)).isFalse();
            assertThat(set.containsKey(-2L)).isFalse();
            assertThat(set.insert(3L)).isTrue();
            assertThat(set.keys()).containsExactly(1L, 3L, 5L, Long.MIN_VALUE, -1L);
            assertThat(set.remove(Long.MIN_VALUE)).isTrue();
            assertThat(set.remove(Long.MIN_VALUE)).isFalse();
            assertThat(set.keys()).containsExactly(1L, 3L, 5L, -1L);
            assertThat(set.inconsistency()).isNull();
            assertThat(set.describe())
                    .containsEntry("representation", "SORTED_ARRAY")
                    .containsEntry("size", 4)
                    .containsEntry("capacity", 8)
                    .containsEntry("migrations", 2L);
        }
    }

    @Test
    void anObserversViewChecksTheStoredKeySize() {
        Path path = dir.resolve("u.cxc");
        set(8).close();
        AtomicBuffer raw = raw();
        for (int bad : new int[] {0, MAX_KEY_BYTES + 1, 9}) {
            raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET, bad);
            assertThatThrownBy(() -> SharedUniversal.TYPE.observe(path, CxcFileOptions.defaults()))
                    .as("key size %d", bad)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("key size " + bad + " bytes (1.." + MAX_KEY_BYTES + ")");
        }
        raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET, 1);
        try (PrimitiveView view = SharedUniversal.TYPE.observe(path, CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("size", 0);
        }
        assertThat(stride(1)).isEqualTo(16);
        assertThat(stride(9)).isEqualTo(24);
        assertThat(layoutWord(1, 1)).isEqualTo((1L << 32) | 1);
        assertThat(region(layoutWord(1, 0))).isEqualTo(1);
        assertThat(UniversalDescriptor.representation(layoutWord(1, 1))).isEqualTo(1);
    }
}
