package io.subetha.cxc.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared level in one process: puts, gets, eviction, a dead writer's slot, bad input, and keys
 * and values wider than one word.
 */
class CascadeSharedLevelTest {

    @TempDir Path dir;

    CascadeSharedLevel<Long, Long> level(int capacity) {
        return CascadeSharedLevel.openOrCreate(
                dir.resolve("level.cxc"),
                new CascadeSharedLevel.Settings<>(capacity, FixedCodec.INT64, FixedCodec.INT64));
    }

    @Test
    void whatIsPutIsFoundOverwrittenAndRemoved() {
        try (CascadeSharedLevel<Long, Long> level = level(4096)) {
            assertThat(level.get(1L)).isNull();
            for (long k = 0; k < 500; k++) {
                assertThat(level.insert(k, k * 31)).isTrue();
            }
            for (long k = 0; k < 500; k++) {
                assertThat(level.get(k)).as("key %d", k).isEqualTo(k * 31);
            }
            level.put(7L, -7L);
            assertThat(level.get(7L)).isEqualTo(-7);
            assertThat(level.remove(7L)).isTrue();
            assertThat(level.remove(7L)).isFalse();
            assertThat(level.get(7L)).isNull();
            assertThat(level.get(500L)).isNull();
            assertThat(level.size()).isEqualTo(499);
            assertThat(level.opCounts()).containsEntry("remove", 2L);
        }
        try (CascadeSharedLevel<Long, Long> again = level(4096)) {
            assertThat(again.get(8L)).isEqualTo(8 * 31);
        }
    }

    @Test
    void aFullWindowEvictsTheEntryWrittenLongestAgo() {
        try (CascadeSharedLevel<Long, Long> level = level(16)) {
            for (long k = 0; k < 20; k++) {
                assertThat(level.insert(k, k)).isTrue();
                assertThat(level.get(k)).isEqualTo(k);
            }
            assertThat(level.size()).isEqualTo(16);
            assertThat(level.describe()).containsEntry("evictions", 4L).containsEntry("puts", 20L);
            assertThat(IntStream.range(0, 20).filter(k -> level.get((long) k) != null).count())
                    .isEqualTo(16);
        }
    }

    /**
     * One writer, a table no larger than the window: the victim follows from the puts' order alone
     * (FIFO by write time; an update in place is a write, a get is not).
     */
    @Test
    void evictionIsFirstInFirstOutByWriteTimeAndAGetDoesNotRefresh() {
        try (CascadeSharedLevel<Long, Long> level = level(16)) {
            for (long k = 0; k < 16; k++) {
                assertThat(level.insert(k, k)).isTrue();
            }
            assertThat(level.get(0L)).isEqualTo(0L); // a get: 0 stays the oldest
            assertThat(level.insert(1L, 100L)).isTrue(); // an update: 1 becomes the newest
            for (long k = 16; k < 20; k++) {
                assertThat(level.insert(k, k)).isTrue();
            }
            // Evicted, oldest write first: 0, 2, 3, 4.
            assertThat(LongStream.range(0, 20).filter(k -> level.get(k) == null).boxed().toList())
                    .containsExactly(0L, 2L, 3L, 4L);
            assertThat(level.get(1L)).isEqualTo(100L);
            assertThat(level.describe()).containsEntry("evictions", 4L);
        }
    }

    @Test
    void aValueItsCodecRefusesChangesNothingInTheFile() {
        try (CascadeSharedLevel<Long, String> level =
                CascadeSharedLevel.TYPE.create(
                        dir.resolve("v.cxc"),
                        new CascadeSharedLevel.Settings<>(
                                64, FixedCodec.INT64, FixedCodec.string(4)))) {
            assertThat(level.insert(1L, "ok")).isTrue();
            assertThatThrownBy(() -> level.insert(1L, "too long"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("string(4)");
            assertThat(level.get(1L)).isEqualTo("ok");
            assertThat(level.describe()).containsEntry("puts", 1L);
        }
    }

    @Test
    void aSlotLeftMidWriteByADeadProcessIsSkippedByReadsAndTakenOverByTheNextPut()
            throws Exception {
        Path path = dir.resolve("level.cxc");
        try (CascadeSharedLevel<Long, Long> level = level(64)) {
            level.insert(5L, 50L);
            long deadPid = deadPid();
            AtomicBuffer raw = RawBody.of(path);
            int slot = -1;
            for (int i = 0; i < 64; i++) {
                int offset = CascadeSharedLevelDescriptor.SLOTS_OFFSET + i * stride(level);
                long hash = raw.getLongVolatile(offset + CascadeSharedLevelDescriptor.HASH_OFFSET);
                if (hash != 0 && hash != 1) {
                    slot = offset;
                }
            }
            long word = raw.getLongVolatile(slot);
            // As a writer SIGKILLed right after its claim CAS and a first store leaves it.
            raw.setLongVolatile(
                    slot, OwnerRecord.ownerWord(deadPid, OwnerRecord.nextGeneration(word)));
            raw.setLongVolatile(slot + CascadeSharedLevelDescriptor.KEY_OFFSET + 8, 999);
            assertThat(level.get(5L)).isNull();
            assertThat(level.abandonedSlots()).isEqualTo(1);
            assertThat(level.insert(5L, 51L)).isTrue();
            assertThat(level.get(5L)).isEqualTo(51);
            assertThat(level.abandonedSlots()).isZero();
            assertThat(level.describe()).containsEntry("takeovers", 1L);
        }
    }

    @Test
    void badInputIsRefusedWithTheLimit() {
        assertThatThrownBy(() -> level(4))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity must be 8..16777216 slots, got 4");
        assertThatThrownBy(
                        () ->
                                CascadeSharedLevel.TYPE.create(
                                        dir.resolve("x.cxc"),
                                        new CascadeSharedLevel.Settings<>(
                                                64, FixedCodec.bytes(5000), FixedCodec.INT64)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("keyCodec must be 1..4096");
        level(64).close();
        assertThatThrownBy(
                        () ->
                                CascadeSharedLevel.open(
                                        dir.resolve("level.cxc"),
                                        new CascadeSharedLevel.Settings<>(
                                                64, FixedCodec.INT64, FixedCodec.FLOAT64)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("layout fingerprint");
        try (CascadeSharedLevel<String, Long> strings =
                CascadeSharedLevel.TYPE.create(
                        dir.resolve("s.cxc"),
                        new CascadeSharedLevel.Settings<>(
                                64, FixedCodec.string(4), FixedCodec.INT64))) {
            assertThatThrownBy(() -> strings.insert("too long", 1L))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> strings.insert(null, 1L))
                    .isInstanceOf(NullPointerException.class);
            assertThat(strings.insert("abc", 1L)).isTrue();
            assertThat(strings.get("abc")).isEqualTo(1L);
            assertThat(strings.get("abcd")).isNull();
        }
    }

    static int stride(CascadeSharedLevel<?, ?> level) {
        return CascadeSharedLevelDescriptor.stride(8, 8);
    }

    static long deadPid() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        return gone.pid();
    }

    @Test
    void keysAndValuesWiderThanOneWordAreStoredWhole() {
        List<Wide> keys = List.of(new Wide(1, 2), new Wide(1, 3), new Wide(2, 2));
        try (CascadeSharedLevel<Wide, Wide> level =
                CascadeSharedLevel.TYPE.create(
                        dir.resolve("l.cxc"),
                        new CascadeSharedLevel.Settings<>(16, Wide.CODEC, Wide.CODEC))) {
            for (Wide k : keys) {
                assertThat(level.insert(k, new Wide(k.b(), k.a() + 100))).isTrue();
            }
            for (Wide k : keys) {
                assertThat(level.get(k)).isEqualTo(new Wide(k.b(), k.a() + 100));
                assertThat(level.copies(k)).isEqualTo(1);
            }
            assertThat(level.get(new Wide(1, 4))).isNull();
        }
    }
}
