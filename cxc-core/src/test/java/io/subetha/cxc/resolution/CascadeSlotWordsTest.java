package io.subetha.cxc.resolution;

import static io.subetha.cxc.resolution.CascadeSharedLevelDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.primitive.PrimitiveView;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared level's slots as another process reads them: the hash and home slot every process must
 * agree on, the window wrapping at the table's end, a get stopping at a never-used slot and passing
 * removed and held ones, a put finding its key past a removed slot, a dead writer's slot taken as
 * free, a duplicate copy removed by the next put's cleanup, a window held by live writers dropping
 * the put, and the counters each step adds to; three keys of one stored hash (two of them the hash
 * markers' neighbours) told apart by their bytes, and a full window evicting its oldest entry or
 * storing in a removed slot.
 */
class CascadeSlotWordsTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long PID = ProcessHandle.current().pid();
    static final int STRIDE = stride(8, 8);

    @TempDir Path dir;

    /** The level's hash of an INT64 key, written out: part of the file's format. */
    static long hashOf(long key) {
        long h = 0x9E3779B97F4A7C15L ^ 8;
        h = (h ^ key) * 0xBF58476D1CE4E5B9L;
        h ^= h >>> 31;
        h = (h ^ (h >>> 30)) * 0x94D049BB133111EBL;
        h ^= h >>> 29;
        return (h & ~1L) == 0 ? 2 : h;
    }

    static int homeOf(long key, int capacity) {
        return (int) (((hashOf(key) >>> 32) * capacity) >>> 32);
    }

    static int slot(int index) {
        return SLOTS_OFFSET + index * STRIDE;
    }

    /** Keys whose home is {@code index}, lowest first. */
    static List<Long> keysHomedAt(int index, int capacity, int count) {
        List<Long> keys = new ArrayList<>();
        for (long k = 1; keys.size() < count; k++) {
            if (homeOf(k, capacity) == index) {
                keys.add(k);
            }
        }
        return keys;
    }

    CascadeSharedLevel<Long, Long> level(int capacity) {
        return CascadeSharedLevel.TYPE.create(
                dir.resolve("l.cxc"),
                new CascadeSharedLevel.Settings<>(capacity, FixedCodec.INT64, FixedCodec.INT64));
    }

    AtomicBuffer raw() {
        return RawBody.of(dir.resolve("l.cxc"));
    }

    @Test
    void aKeyIsStoredAtItsHomeAndItsWindowWrapsAtTheEnd() {
        try (CascadeSharedLevel<Long, Long> level = level(32)) {
            AtomicBuffer raw = raw();
            List<Long> last = keysHomedAt(31, 32, 2);
            level.insert(last.get(0), 10L);
            level.insert(last.get(1), 11L);
            assertThat(raw.getLongVolatile(slot(31) + HASH_OFFSET)).isEqualTo(hashOf(last.get(0)));
            assertThat(raw.getLongVolatile(slot(31) + KEY_OFFSET)).isEqualTo(last.get(0));
            assertThat(raw.getLongVolatile(slot(31) + KEY_OFFSET + 8)).isEqualTo(10L);
            assertThat(raw.getLongVolatile(slot(0) + HASH_OFFSET)).isEqualTo(hashOf(last.get(1)));
            assertThat(raw.getLongVolatile(slot(0) + KEY_OFFSET)).isEqualTo(last.get(1));
            assertThat(level.get(last.get(1))).isEqualTo(11L);
            assertThat(level.containsKey(last.get(1))).isTrue();
            long first = keysHomedAt(0, 32, 1).get(0);
            level.insert(first, 12L);
            assertThat(raw.getLongVolatile(slot(1) + KEY_OFFSET)).isEqualTo(first);
            assertThat(level.get(first)).isEqualTo(12L);
            // The owner word after a put: free, version 1; written-at stamped by the claim.
            assertThat(raw.getLongVolatile(slot(1))).isEqualTo(OwnerRecord.ownerWord(0, 1));
            assertThat(raw.getLongVolatile(slot(1) + OwnerRecord.HEARTBEAT_OFFSET)).isPositive();
            assertThat(level.size()).isEqualTo(3);
        }
    }

    @Test
    void aGetStopsAtANeverUsedSlotAndPassesRemovedAndHeldOnes() {
        try (CascadeSharedLevel<Long, Long> level = level(32)) {
            AtomicBuffer raw = raw();
            List<Long> keys = keysHomedAt(4, 32, 3);
            level.insert(keys.get(0), 1L);
            level.insert(keys.get(1), 2L);
            level.insert(keys.get(2), 3L);
            // Removed at home: the keys after it are still found.
            assertThat(level.remove(keys.get(0))).isTrue();
            assertThat(raw.getLongVolatile(slot(4) + HASH_OFFSET)).isEqualTo(REMOVED);
            assertThat(level.remove(keys.get(0))).isFalse();
            assertThat(level.get(keys.get(0))).isNull();
            assertThat(level.get(keys.get(2))).isEqualTo(3L);
            // Held by a writer: skipped, the search goes on.
            long stable = raw.getLongVolatile(slot(5));
            raw.setLongVolatile(slot(5), OwnerRecord.ownerWord(PID, 9));
            assertThat(level.get(keys.get(1))).isNull();
            assertThat(level.get(keys.get(2))).isEqualTo(3L);
            raw.setLongVolatile(slot(5), stable);
            // An entry planted beyond a never-used slot is never reached.
            for (int i = 0; i < 3; i++) {
                raw.setLongVolatile(
                        slot(8) + i * 8 + HASH_OFFSET,
                        raw.getLongVolatile(slot(6) + i * 8 + HASH_OFFSET));
            }
            raw.setLongVolatile(slot(6) + HASH_OFFSET, NEVER_USED);
            assertThat(level.get(keys.get(2))).isNull();
            assertThat(level.get(keys.get(1))).isEqualTo(2L);
            assertThat(level.size()).isEqualTo(2);
        }
    }

    @Test
    void aPutFindsItsKeyPastARemovedSlotInsteadOfStoringItTwice() {
        try (CascadeSharedLevel<Long, Long> level = level(32)) {
            AtomicBuffer raw = raw();
            List<Long> keys = keysHomedAt(9, 32, 2);
            level.insert(keys.get(0), 1L);
            level.insert(keys.get(1), 2L);
            level.remove(keys.get(0));
            assertThat(level.insert(keys.get(1), 20L)).isTrue();
            assertThat(raw.getLongVolatile(slot(9) + HASH_OFFSET)).isEqualTo(REMOVED);
            assertThat(level.copies(keys.get(1))).isEqualTo(1);
            assertThat(level.get(keys.get(1))).isEqualTo(20L);
            // A new key takes the removed slot: not an eviction.
            level.insert(keys.get(0), 3L);
            assertThat(raw.getLongVolatile(slot(9) + KEY_OFFSET)).isEqualTo(keys.get(0));
            assertThat(level.describe())
                    .containsEntry("puts", 4L)
                    .containsEntry("evictions", 0L)
                    .containsEntry("takeovers", 0L)
                    .containsEntry("duplicatesRemoved", 0L)
                    .containsEntry("entries", 2);
        }
    }

    @Test
    void aDeadWritersSlotIsTakenAsFreeButAStoredCopyOfTheKeyComesFirst() {
        try (CascadeSharedLevel<Long, Long> level = level(32)) {
            AtomicBuffer raw = raw();
            List<Long> keys = keysHomedAt(12, 32, 3);
            level.insert(keys.get(0), 1L);
            level.insert(keys.get(1), 2L);
            // The home slot left mid-write by a dead writer: the key stored after it is updated
            // in place, the dead slot is left.
            long dead = OwnerRecord.ownerWord(DEAD_PID, 7);
            raw.setLongVolatile(slot(12), dead);
            assertThat(level.abandonedSlots()).isEqualTo(1);
            level.insert(keys.get(1), 22L);
            assertThat(raw.getLongVolatile(slot(12))).isEqualTo(dead);
            assertThat(level.get(keys.get(1))).isEqualTo(22L);
            assertThat(level.copies(keys.get(1))).isEqualTo(1);
            // A new key takes the dead slot over (the first free-as-good slot of its window).
            level.insert(keys.get(2), 3L);
            assertThat(raw.getLongVolatile(slot(12) + KEY_OFFSET)).isEqualTo(keys.get(2));
            assertThat(raw.getLongVolatile(slot(12)))
                    .isEqualTo(OwnerRecord.freed(OwnerRecord.ownerWord(PID, 8)));
            assertThat(level.abandonedSlots()).isZero();
            assertThat(level.describe())
                    .containsEntry("takeovers", 1L)
                    .containsEntry("evictions", 1L); // the dead writer's half-written entry
            assertThat(level.get(keys.get(0))).isNull();
        }
    }

    @Test
    void aDuplicateCopyFartherFromHomeIsRemovedByTheNextPutAndBothByARemove() {
        try (CascadeSharedLevel<Long, Long> level = level(32)) {
            AtomicBuffer raw = raw();
            List<Long> keys = keysHomedAt(20, 32, 2);
            level.insert(keys.get(0), 1L);
            level.insert(keys.get(1), 2L);
            // Plant a second stable copy of key 0 two slots on, as a put racing another left it.
            for (int i = 0; i < 3; i++) {
                raw.setLongVolatile(
                        slot(22) + HASH_OFFSET + i * 8,
                        raw.getLongVolatile(slot(20) + HASH_OFFSET + i * 8));
            }
            raw.setLongVolatile(slot(22) + KEY_OFFSET + 8, 99L);
            assertThat(level.copies(keys.get(0))).isEqualTo(2);
            assertThat(level.get(keys.get(0))).isEqualTo(1L); // the nearer copy answers
            level.insert(keys.get(0), 5L);
            assertThat(level.copies(keys.get(0))).isEqualTo(1);
            assertThat(raw.getLongVolatile(slot(22) + HASH_OFFSET)).isEqualTo(REMOVED);
            assertThat(level.get(keys.get(0))).isEqualTo(5L);
            assertThat(level.describe()).containsEntry("duplicatesRemoved", 1L);
            for (int i = 0; i < 3; i++) {
                raw.setLongVolatile(
                        slot(22) + HASH_OFFSET + i * 8,
                        raw.getLongVolatile(slot(20) + HASH_OFFSET + i * 8));
            }
            assertThat(level.remove(keys.get(0))).isTrue();
            assertThat(level.copies(keys.get(0))).isZero();
            assertThat(raw.getLongVolatile(slot(20) + HASH_OFFSET)).isEqualTo(REMOVED);
            assertThat(raw.getLongVolatile(slot(22) + HASH_OFFSET)).isEqualTo(REMOVED);
            assertThat(level.describe()).containsEntry("duplicatesRemoved", 1L);
            assertThat(level.get(keys.get(1))).isEqualTo(2L);
            // A remove leaves a copy held by a writer to that writer.
            level.insert(keys.get(0), 6L);
            long word = raw.getLongVolatile(slot(20));
            raw.setLongVolatile(slot(20), OwnerRecord.ownerWord(PID, 50));
            assertThat(level.remove(keys.get(0))).isFalse();
            raw.setLongVolatile(slot(20), word);
            assertThat(level.get(keys.get(0))).isEqualTo(6L);
        }
    }

    @Test
    void aWindowHeldByLiveWritersDropsThePutAndCountsIt() {
        try (CascadeSharedLevel<Long, Long> level = level(8)) {
            AtomicBuffer raw = raw();
            for (int i = 0; i < 8; i++) {
                raw.setLongVolatile(slot(i), OwnerRecord.ownerWord(PID, 1));
            }
            assertThat(level.insert(1L, 1L)).isFalse();
            assertThat(level.describe()).containsEntry("droppedPuts", 1L).containsEntry("puts", 0L);
            assertThat(level.abandonedSlots()).isZero();
            // One slot a dead writer left: taken over.
            raw.setLongVolatile(slot(3), OwnerRecord.ownerWord(DEAD_PID, 1));
            assertThat(level.insert(1L, 1L)).isTrue();
            assertThat(raw.getLongVolatile(slot(3) + KEY_OFFSET)).isEqualTo(1L);
            assertThat(level.describe())
                    .containsEntry("takeovers", 1L)
                    .containsEntry("evictions", 0L)
                    .containsEntry("capacity", 8)
                    .containsEntry("keyBytes", 8)
                    .containsEntry("valueBytes", 8);
        }
    }

    @Test
    void aFullWindowEvictsTheEntryWrittenLongestAgoByItsStamp() {
        try (CascadeSharedLevel<Long, Long> level = level(8)) {
            AtomicBuffer raw = raw();
            for (long k = 1; k <= 8; k++) {
                level.insert(k, k);
            }
            // Re-stamp: the entry in slot 5 is now the oldest, slot 2 the newest.
            for (int i = 0; i < 8; i++) {
                raw.setLongVolatile(slot(i) + OwnerRecord.HEARTBEAT_OFFSET, 1_000 + i);
            }
            raw.setLongVolatile(slot(5) + OwnerRecord.HEARTBEAT_OFFSET, 10);
            raw.setLongVolatile(slot(2) + OwnerRecord.HEARTBEAT_OFFSET, Long.MAX_VALUE);
            long victim = raw.getLongVolatile(slot(5) + KEY_OFFSET);
            level.insert(100L, 100L);
            assertThat(raw.getLongVolatile(slot(5) + KEY_OFFSET)).isEqualTo(100L);
            assertThat(level.get(victim)).isNull();
            assertThat(level.describe()).containsEntry("evictions", 1L).containsEntry("entries", 8);
        }
    }

    @Test
    void aValueThatCannotBeReadIsAMissNotAnError() {
        Path path = dir.resolve("s.cxc");
        try (CascadeSharedLevel<Long, String> level =
                CascadeSharedLevel.TYPE.create(
                        path,
                        new CascadeSharedLevel.Settings<>(
                                8, FixedCodec.INT64, FixedCodec.string(4)))) {
            level.insert(1L, "ab");
            AtomicBuffer raw = RawBody.of(path);
            int at = -1;
            for (int i = 0; i < 8; i++) {
                if (raw.getLongVolatile(SLOTS_OFFSET + i * stride(8, 8) + HASH_OFFSET) > REMOVED) {
                    at = SLOTS_OFFSET + i * stride(8, 8);
                }
            }
            raw.setIntVolatile(at + KEY_OFFSET + 8, 77); // the string's length, past its 4 bytes
            assertThat(level.get(1L)).isNull();
            level.insert(1L, "cd");
            assertThat(level.get(1L)).isEqualTo("cd");
        }
    }

    @Test
    void anObserversViewChecksTheStoredSizesAgainstTheSlotSize() {
        Path path = dir.resolve("l.cxc");
        level(8).close();
        try (PrimitiveView view =
                CascadeSharedLevel.TYPE.observe(path, CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("entries", 0);
        }
        AtomicBuffer raw = raw();
        int[][] bad = {{0, 8}, {4097, 8}, {8, 0}, {8, 4097}, {9, 8}};
        for (int[] sizes : bad) {
            raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET, sizes[0]);
            raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET + 4, sizes[1]);
            assertThatThrownBy(
                            () -> CascadeSharedLevel.TYPE.observe(path, CxcFileOptions.defaults()))
                    .as("sizes %d and %d", sizes[0], sizes[1])
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining(
                            "key and value sizes " + sizes[0] + " and " + sizes[1] + " bytes");
        }
        raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET, 1);
        raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET + 4, 3);
        try (PrimitiveView view =
                CascadeSharedLevel.TYPE.observe(path, CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("keyBytes", 1).containsEntry("valueBytes", 3);
        }
        assertThat(stride(1, 1)).isEqualTo(48);
        assertThat(stride(9, 17)).isEqualTo(32 + 16 + 24);
        assertThat(bodyLength(8, 48)).isEqualTo(448);
        assertThat(bodyLength(9, 48)).isEqualTo(512);
    }

    static long inverse(long odd) {
        long inv = odd;
        for (int i = 0; i < 5; i++) {
            inv *= 2 - odd * inv;
        }
        return inv;
    }

    /** The INT64 key whose mix (the level's hash before the marker rule) is {@code target}. */
    static long keyMixingTo(long target) {
        long x = target;
        x ^= x >>> 29 ^ x >>> 58;
        x *= inverse(0x94D049BB133111EBL);
        x ^= x >>> 30 ^ x >>> 60;
        x ^= x >>> 31 ^ x >>> 62;
        x *= inverse(0xBF58476D1CE4E5B9L);
        return x ^ (0x9E3779B97F4A7C15L ^ 8);
    }

    @Test
    void threeKeysOfOneStoredHashAreToldApartByTheirBytes() {
        long[] keys = {keyMixingTo(0), keyMixingTo(1), keyMixingTo(2)};
        for (long k : keys) {
            assertThat(CascadeSlotWordsTest.hashOf(k)).isEqualTo(2);
        }
        assertThat(keys).doesNotHaveDuplicates();
        Path path = dir.resolve("h.cxc");
        try (CascadeSharedLevel<Long, Long> level =
                CascadeSharedLevel.TYPE.create(
                        path,
                        new CascadeSharedLevel.Settings<>(
                                64, FixedCodec.INT64, FixedCodec.INT64))) {
            for (int i = 0; i < keys.length; i++) {
                assertThat(level.insert(keys[i], 100L + i)).isTrue();
            }
            AtomicBuffer raw = RawBody.of(path);
            int stride = CascadeSharedLevelDescriptor.stride(8, 8);
            for (int i = 0; i < keys.length; i++) {
                assertThat(level.get(keys[i])).isEqualTo(100L + i);
                assertThat(level.containsKey(keys[i])).isTrue();
                assertThat(level.copies(keys[i])).isEqualTo(1);
                assertThat(
                                raw.getLongPlain(
                                        CascadeSharedLevelDescriptor.SLOTS_OFFSET
                                                + i * stride
                                                + CascadeSharedLevelDescriptor.HASH_OFFSET))
                        .isEqualTo(2);
            }
            assertThat(level.remove(keys[1])).isTrue();
            assertThat(level.get(keys[0])).isEqualTo(100L);
            assertThat(level.get(keys[1])).isNull();
            assertThat(level.get(keys[2])).isEqualTo(102L);
            assertThat(level.capacity()).isEqualTo(64);
        }
    }

    @Test
    void aFullWindowEvictsItsOldestEntryInsideTheWindowAndCountsOnlyThat() {
        List<Long> keys = CascadeSlotWordsTest.keysHomedAt(5, 64, 17);
        try (CascadeSharedLevel<Long, Long> level =
                CascadeSharedLevel.TYPE.create(
                        dir.resolve("e.cxc"),
                        new CascadeSharedLevel.Settings<>(
                                64, FixedCodec.INT64, FixedCodec.INT64))) {
            for (int i = 0; i < 16; i++) {
                assertThat(level.insert(keys.get(i), (long) i)).isTrue();
            }
            assertThat(level.describe()).containsEntry("evictions", 0L).containsEntry("puts", 16L);
            assertThat(level.insert(keys.get(0), 100L)).isTrue(); // a replacement, now the newest
            assertThat(level.describe()).containsEntry("evictions", 0L);
            for (int i = 0; i < 16; i++) {
                assertThat(level.get(keys.get(i))).isEqualTo(i == 0 ? 100L : i);
            }

            assertThat(level.insert(keys.get(16), 16L)).isTrue();

            assertThat(level.describe()).containsEntry("evictions", 1L);
            assertThat(level.get(keys.get(16))).isEqualTo(16L);
            assertThat(level.get(keys.get(1))).isNull();
            assertThat(level.containsKey(keys.get(1))).isFalse();
            for (int i = 2; i < 16; i++) {
                assertThat(level.get(keys.get(i))).isEqualTo((long) i);
            }
            assertThat(level.get(keys.get(0))).isEqualTo(100L);
            assertThat(level.opCounts())
                    .containsEntry("insert", 18L)
                    .containsEntry("get", 16L + 1 + 1 + 14 + 1 + 1);
        }
    }

    @Test
    void aFullWindowWithARemovedSlotStoresThereWithoutEvicting() {
        List<Long> keys = CascadeSlotWordsTest.keysHomedAt(5, 64, 17);
        try (CascadeSharedLevel<Long, Long> level =
                CascadeSharedLevel.TYPE.create(
                        dir.resolve("r.cxc"),
                        new CascadeSharedLevel.Settings<>(
                                64, FixedCodec.INT64, FixedCodec.INT64))) {
            for (int i = 0; i < 16; i++) {
                assertThat(level.insert(keys.get(i), (long) i)).isTrue();
            }
            assertThat(level.remove(keys.get(3))).isTrue(); // slot 8 marked removed, stamped now

            assertThat(level.insert(keys.get(16), 16L)).isTrue();

            assertThat(level.describe()).containsEntry("evictions", 0L);
            assertThat(level.get(keys.get(16))).isEqualTo(16L);
            for (int i = 0; i < 16; i++) {
                assertThat(level.get(keys.get(i))).isEqualTo(i == 3 ? null : (Long) (long) i);
            }
        }
    }
}
