package io.subetha.cxc.resolution;

import static io.subetha.cxc.resolution.UniversalDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.resolution.SharedUniversal.Representation;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The universal set in one process: both representations, migrations, repairs, bad input; its
 * answers and op counts, the bounds on a stored count and representation, keys wider than one word,
 * and where its regions start.
 */
class SharedUniversalTest {

    static final long PID = ProcessHandle.current().pid();

    @TempDir Path dir;

    SharedUniversal<Long> set(int capacity) {
        return SharedUniversal.openOrCreate(
                dir.resolve("set.cxc"), new SharedUniversal.Settings<>(capacity, FixedCodec.INT64));
    }

    @Test
    void bothRepresentationsAndEveryMigrationAgreeWithAModel() {
        try (SharedUniversal<Long> set = set(300)) {
            assertThat(set.representation()).isEqualTo(Representation.SORTED_ARRAY);
            Set<Long> model = new TreeSet<>();
            Random random = new Random(1);
            for (int i = 0; i < 4000; i++) {
                long key = random.nextInt(350) - 20;
                switch (random.nextInt(7)) {
                    case 0, 1 -> assertThat(set.remove(key)).isEqualTo(model.remove(key));
                    case 2 -> {
                        if (i % 50 == 2) {
                            set.migrate(
                                    set.representation() == Representation.HASH
                                            ? Representation.SORTED_ARRAY
                                            : Representation.HASH);
                            assertThat(set.inconsistency()).isNull();
                        }
                    }
                    default -> {
                        if (model.size() < 300 || model.contains(key)) {
                            assertThat(set.insert(key)).isEqualTo(model.add(key));
                        }
                    }
                }
                assertThat(set.containsKey(key))
                        .as("op %d key %d", i, key)
                        .isEqualTo(model.contains(key));
            }
            assertThat(new TreeSet<>(set.keys())).isEqualTo(model);
            assertThat(set.size()).isEqualTo(model.size());
            assertThat(set.inconsistency()).isNull();
            assertThat(set.opCounts()).containsKeys("insert", "contains", "remove", "migrate");
            assertThat((Long) set.describe().get("migrations")).isGreaterThan(3);
        }
    }

    @Test
    void theRecommendationFollowsTheSizeAndAFullSetSaysItsCapacity() {
        try (SharedUniversal<Long> set = set(100)) {
            for (long k = 0; k < SharedUniversal.SMALL_SET; k++) {
                set.insert(k);
            }
            assertThat(set.recommended()).isEqualTo(Representation.SORTED_ARRAY);
            set.insert(1000L);
            assertThat(set.recommended()).isEqualTo(Representation.HASH);
            set.migrate(set.recommended());
            assertThat(set.representation()).isEqualTo(Representation.HASH);
            for (long k = 2000; set.size() < 100; k++) {
                set.insert(k);
            }
            assertThatThrownBy(() -> set.insert(-1L))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("capacity of 100 keys");
            assertThat(set.insert(0L)).isFalse(); // present: no capacity needed
        }
        assertThatThrownBy(
                        () ->
                                SharedUniversal.TYPE.create(
                                        dir.resolve("x.cxc"),
                                        new SharedUniversal.Settings<>(0, FixedCodec.INT64)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity must be 1..1048576 keys, got 0");
    }

    @Test
    void aDeadWriterHalfwayThroughASortedInsertIsRolledForwardByTheNextReader() throws Exception {
        Path path = dir.resolve("set.cxc");
        try (SharedUniversal<Long> set = set(16)) {
            for (long k : List.of(10L, 20L, 30L, 40L)) {
                set.insert(k);
            }
            // As a writer inserting 25 leaves it when SIGKILLed after shifting 40 up one slot.
            AtomicBuffer raw = RawBody.of(path);
            int stride = stride(8);
            int region = regionOffset(stride, 0, tableSize(16));
            copy(raw, region + 3 * stride, region + 4 * stride, stride);
            raw.setLongPlain(INTENT_KEY_OFFSET, 25);
            raw.setLongPlain(INTENT_A_OFFSET, 4);
            raw.setLongPlain(INTENT_B_OFFSET, 2);
            raw.setLongPlain(INTENT_PROGRESS_OFFSET, 3);
            raw.setLongVolatile(INTENT_OP_OFFSET, INTENT_INSERT);
            raw.getAndAddLong(VERSION_OFFSET, 1);
            plantDeadOwner(raw);

            assertThat(set.containsKey(25L)).isTrue();
            assertThat(set.keys()).containsExactly(10L, 20L, 25L, 30L, 40L);
            assertThat(set.inconsistency()).isNull();
            assertThat(set.describe()).containsEntry("takeovers", 1L).containsEntry("repairs", 1L);
        }
    }

    @Test
    void aDeadMigratorIsTakenOverAndItsMigrationCompleted() throws Exception {
        Path path = dir.resolve("set.cxc");
        try (SharedUniversal<Long> set = set(64)) {
            for (long k = 0; k < 40; k++) {
                set.insert(k * 3);
            }
            // As a migrator to HASH leaves it when SIGKILLed halfway through building the spare.
            AtomicBuffer raw = RawBody.of(path);
            long layout = raw.getLongVolatile(LAYOUT_OFFSET);
            int stride = stride(8);
            int spare = regionOffset(stride, 1, tableSize(64));
            for (int i = 0; i < 10; i++) {
                raw.setLongPlain(spare + i * stride, FULL);
                raw.setLongPlain(spare + i * stride + 8, 999);
            }
            raw.setLongPlain(INTENT_A_OFFSET, layout);
            raw.setLongPlain(INTENT_B_OFFSET, Representation.HASH.ordinal());
            raw.setLongVolatile(INTENT_OP_OFFSET, INTENT_MIGRATE);
            plantDeadOwner(raw);

            assertThat(set.containsKey(3L)).isTrue(); // readers go on: the active region is whole
            assertThat(set.insert(1L)).isTrue(); // the writer takes over, completes the migration
            assertThat(set.representation()).isEqualTo(Representation.HASH);
            assertThat(set.containsKey(999L)).isFalse();
            assertThat(set.size()).isEqualTo(41);
            assertThat(set.inconsistency()).isNull();
            assertThat(set.describe()).containsEntry("repairs", 1L);
        }
    }

    @Test
    void aLiveWritersLockIsWaitedForAndTheTimeoutNamesIt() {
        Path path = dir.resolve("set.cxc");
        try (SharedUniversal<Long> set = set(16)) {
            set.insert(1L);
            AtomicBuffer raw = RawBody.of(path);
            long word = OwnerRecord.ownerWord(raw, LOCK_OFFSET);
            long held = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(word));
            raw.setLongVolatile(LOCK_OFFSET, held); // as another thread of this process holds it
            set.waitLimit(Duration.ofMillis(50));
            assertThatThrownBy(() -> set.insert(2L))
                    .isInstanceOf(CxcTimeoutException.class)
                    .hasMessageContaining("PID " + PID + " (this process)")
                    .hasMessageContaining("set.cxc");
            assertThat(set.containsKey(1L)).isTrue(); // readers need no lock
            raw.setLongVolatile(LOCK_OFFSET, OwnerRecord.freed(held));
            assertThat(set.insert(2L)).isTrue();
            assertThatThrownBy(() -> set.waitLimit(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("wait limit must be positive, got PT0S");
        }
    }

    static void plantDeadOwner(AtomicBuffer raw) throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        long word = OwnerRecord.ownerWord(raw, LOCK_OFFSET);
        raw.setLongVolatile(
                LOCK_OFFSET, OwnerRecord.ownerWord(gone.pid(), OwnerRecord.nextGeneration(word)));
    }

    static void copy(AtomicBuffer raw, int from, int to, int length) {
        for (int i = 0; i < length; i += 8) {
            raw.setLongPlain(to + i, raw.getLongPlain(from + i));
        }
    }

    @Test
    void theSetsAnswersAndOpCountsAndItsStoredCountAndRepresentationChecked() {
        Path path = dir.resolve("s.cxc");
        try (SharedUniversal<Long> set =
                SharedUniversal.TYPE.create(
                        path, new SharedUniversal.Settings<>(8, FixedCodec.INT64))) {
            set.migrate(SharedUniversal.Representation.SORTED_ARRAY);
            assertThat(set.inconsistency()).isNull();
            assertThat(set.insert(3L)).isTrue();
            assertThat(set.insert(3L)).isFalse();
            assertThat(set.remove(3L)).isTrue();
            assertThat(set.remove(3L)).isFalse();
            assertThat(set.containsKey(3L)).isFalse();
            assertThat(set.opCounts())
                    .containsEntry("insert", 2L)
                    .containsEntry("remove", 2L)
                    .containsEntry("contains", 1L)
                    .containsEntry("migrate", 1L);
            for (long k = 1; k <= 8; k++) {
                assertThat(set.insert(k)).isTrue();
            }
            for (long k = 1; k <= 8; k++) {
                assertThat(set.containsKey(k)).isTrue();
            }
            assertThat(set.inconsistency()).isNull();

            AtomicBuffer raw = RawBody.of(path);
            for (long count : new long[] {9, -1}) {
                raw.setLongPlain(UniversalDescriptor.COUNT_OFFSET, count);
                assertThatThrownBy(() -> set.containsKey(1L))
                        .isInstanceOf(CxcFormatException.class)
                        .hasMessageContaining("count " + count + " outside 0..8");
            }
            raw.setLongPlain(UniversalDescriptor.COUNT_OFFSET, 8);
            long layout = raw.getLongVolatile(UniversalDescriptor.LAYOUT_OFFSET);
            raw.setLongVolatile(
                    UniversalDescriptor.LAYOUT_OFFSET,
                    UniversalDescriptor.layoutWord(UniversalDescriptor.region(layout), 2));
            assertThatThrownBy(() -> set.containsKey(1L))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("representation 2");
            raw.setLongVolatile(UniversalDescriptor.LAYOUT_OFFSET, layout);
            assertThat(set.containsKey(8L)).isTrue();
        }
    }

    @Test
    void theSetsRegionsStartAtTheFirstCacheLineAfterTheIntentKey() {
        // The intent key is stride - 8 bytes at INTENT_KEY_OFFSET (256).
        assertThat(UniversalDescriptor.regionOffset(16, 0, 8)).isEqualTo(320);
        assertThat(UniversalDescriptor.regionOffset(72, 0, 8)).isEqualTo(320);
        assertThat(UniversalDescriptor.regionOffset(80, 0, 8)).isEqualTo(384);
        assertThat(UniversalDescriptor.regionOffset(16, 1, 8)).isEqualTo(320 + 8 * 16);
        try (SharedUniversal<Long> set =
                SharedUniversal.TYPE.create(
                        dir.resolve("c.cxc"),
                        new SharedUniversal.Settings<>(8, FixedCodec.INT64))) {
            assertThat(set.capacity()).isEqualTo(8);
        }
    }

    @Test
    void keysWiderThanOneWordAreStoredWhole() {
        List<Wide> keys = List.of(new Wide(1, 2), new Wide(1, 3), new Wide(2, 2));
        try (SharedUniversal<Wide> set =
                SharedUniversal.TYPE.create(
                        dir.resolve("w.cxc"), new SharedUniversal.Settings<>(8, Wide.CODEC))) {
            for (SharedUniversal.Representation r : SharedUniversal.Representation.values()) {
                set.migrate(r);
                for (Wide k : keys) {
                    assertThat(set.insert(k)).isTrue();
                }
                for (Wide k : keys) {
                    assertThat(set.containsKey(k)).as("%s in %s", k, r).isTrue();
                }
                assertThat(set.containsKey(new Wide(1, 4))).isFalse();
                assertThat(set.inconsistency()).isNull();
                for (Wide k : keys) {
                    assertThat(set.remove(k)).isTrue();
                }
            }
        }
    }
}
