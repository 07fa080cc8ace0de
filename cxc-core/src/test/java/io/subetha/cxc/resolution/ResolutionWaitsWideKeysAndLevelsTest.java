package io.subetha.cxc.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the survivors of the resolution package's mutation run left unpinned: a waiter with no
 * practical time limit waits for a live fetcher or writer of another process until it is done (and
 * the texts name that process and how long it has been fetching); the shared level's three keys of
 * one 64-bit hash (two of them the hash markers' neighbours, mapped to the same stored hash) kept
 * apart by their bytes; keys and values wider than one word in the shared level and in the set; the
 * set's return values, op counts, bounds on a stored count and representation, and an empty and a
 * full set's consistency; the regions' offsets; the in-process level's bounds and eviction order
 * after an invalidation; the cascade's level limit and its statistics.
 */
class ResolutionWaitsWideKeysAndLevelsTest {

    /** As long as a wait can be: {@code Duration.toNanos} overflows, the wait is unbounded. */
    static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

    @TempDir Path dir;

    /** Two longs in 16 bytes: a key or value wider than one word. */
    record Wide(long a, long b) {}

    static final FixedCodec<Wide> WIDE =
            new FixedCodec<>() {
                @Override
                public int size() {
                    return 16;
                }

                @Override
                public void write(AtomicBuffer buffer, int offset, Wide value) {
                    buffer.setLongPlain(offset, value.a());
                    buffer.setLongPlain(offset + 8, value.b());
                }

                @Override
                public Wide read(AtomicBuffer buffer, int offset) {
                    return new Wide(buffer.getLongPlain(offset), buffer.getLongPlain(offset + 8));
                }

                @Override
                public long fingerprint() {
                    return 0x51DE_16L;
                }

                @Override
                public String describe() {
                    return "wide(16)";
                }
            };

    /** Starts {@code body} on a thread and waits until it is parked or has ended. */
    static Thread parked(Runnable body) {
        Thread t = new Thread(body, "waiter");
        t.setDaemon(true);
        t.start();
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () ->
                                !t.isAlive()
                                        || t.getState() == Thread.State.TIMED_WAITING
                                        || t.getState() == Thread.State.WAITING);
        assertThat(t.isAlive()).as("the waiter is still waiting").isTrue();
        return t;
    }

    @Test
    void aWaiterWithoutATimeLimitWaitsForAnotherProcesssFetchAndTheTextSaysHowLong()
            throws Exception {
        Path path = dir.resolve("p.cxc");
        try (SharedAsyncPointer<Long> pointer =
                SharedAsyncPointer.TYPE.create(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            long init = OwnerRecord.ownerWord(1, 4); // PID 1 never dies
            raw.setLongVolatile(AsyncPointerDescriptor.FETCHER_RECORD_OFFSET, init);
            raw.setLongVolatile(
                    AsyncPointerDescriptor.FETCHER_RECORD_OFFSET + OwnerRecord.HEARTBEAT_OFFSET,
                    System.nanoTime() - Duration.ofHours(1).toNanos());
            Throwable timedOut =
                    org.assertj.core.api.Assertions.catchThrowable(
                            () -> pointer.getOrFetch(() -> 1L, Duration.ofMillis(20)));
            assertThat(timedOut).isInstanceOf(CxcTimeoutException.class);
            Matcher m = Pattern.compile("fetching for (\\d+) ms").matcher(timedOut.getMessage());
            assertThat(m.find()).isTrue();
            assertThat(Long.parseLong(m.group(1)))
                    .isBetween(
                            Duration.ofHours(1).toMillis(),
                            Duration.ofHours(1).plusMinutes(10).toMillis());

            AtomicReference<Object> got = new AtomicReference<>();
            Thread waiter =
                    parked(
                            () -> {
                                try {
                                    got.set(pointer.getOrFetch(() -> 7L, FOREVER));
                                } catch (RuntimeException e) {
                                    got.set(e);
                                }
                            });
            raw.setLongVolatile(
                    AsyncPointerDescriptor.FETCHER_RECORD_OFFSET, OwnerRecord.freed(init));
            waiter.join(Duration.ofSeconds(30).toMillis());
            assertThat(got.get()).isEqualTo(7L);
            assertThat(pointer.takeovers()).isZero();

            // The same with a limit of a minute: waited for, not given up at once.
            pointer.reset();
            long again = OwnerRecord.ownerWord(1, OwnerRecord.nextGeneration(init));
            // As planted first: no identity recorded (the last claim's was this process's).
            raw.setLongVolatile(
                    AsyncPointerDescriptor.FETCHER_RECORD_OFFSET + OwnerRecord.IDENTITY_OFFSET, 0);
            raw.setLongVolatile(AsyncPointerDescriptor.FETCHER_RECORD_OFFSET, again);
            Thread minute =
                    parked(
                            () -> {
                                try {
                                    got.set(pointer.getOrFetch(() -> 8L, Duration.ofMinutes(1)));
                                } catch (RuntimeException e) {
                                    got.set(e);
                                }
                            });
            raw.setLongVolatile(
                    AsyncPointerDescriptor.FETCHER_RECORD_OFFSET, OwnerRecord.freed(again));
            minute.join(Duration.ofSeconds(30).toMillis());
            assertThat(got.get()).isEqualTo(8L);

            for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofNanos(-1)}) {
                assertThatThrownBy(() -> pointer.getOrFetch(() -> 1L, bad))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage(
                                "timeout must be positive, got "
                                        + bad
                                        + "; it bounds the wait for a fetch");
            }
        }
    }

    @Test
    void aLookUpWithoutATimeLimitWaitsForAnotherProcesssWriterAndTheTextNamesIt() throws Exception {
        Path path = dir.resolve("u.cxc");
        try (SharedUniversal<Long> set =
                SharedUniversal.TYPE.create(
                        path, new SharedUniversal.Settings<>(8, FixedCodec.INT64))) {
            set.insert(5L);
            AtomicBuffer raw = RawBody.of(path);
            long word = OwnerRecord.ownerWord(raw, UniversalDescriptor.LOCK_OFFSET);
            long held = OwnerRecord.ownerWord(1, OwnerRecord.nextGeneration(word));
            raw.setLongVolatile(UniversalDescriptor.LOCK_OFFSET, held);
            raw.setLongVolatile(
                    UniversalDescriptor.INTENT_OP_OFFSET, UniversalDescriptor.INTENT_INSERT);
            raw.getAndAddLong(UniversalDescriptor.VERSION_OFFSET, 1);

            set.waitLimit(Duration.ofMillis(20));
            assertThatThrownBy(() -> set.containsKey(5L))
                    .isInstanceOf(CxcTimeoutException.class)
                    .hasMessageContaining(": PID 1 holds the writer lock, inserting, and is alive")
                    .hasMessageNotContaining("this process");

            set.waitLimit(FOREVER);
            AtomicReference<Object> got = new AtomicReference<>();
            Thread waiter =
                    parked(
                            () -> {
                                try {
                                    got.set(set.containsKey(5L));
                                } catch (RuntimeException e) {
                                    got.set(e);
                                }
                            });
            // The writer finishes its step: nothing in flight, the version even, the lock free.
            raw.setLongVolatile(
                    UniversalDescriptor.INTENT_OP_OFFSET, UniversalDescriptor.INTENT_NONE);
            raw.getAndAddLong(UniversalDescriptor.VERSION_OFFSET, 1);
            raw.setLongVolatile(UniversalDescriptor.LOCK_OFFSET, OwnerRecord.freed(held));
            waiter.join(Duration.ofSeconds(30).toMillis());
            assertThat(got.get()).isEqualTo(true);

            // The same with a limit of a minute.
            long word2 = OwnerRecord.ownerWord(raw, UniversalDescriptor.LOCK_OFFSET);
            long held2 = OwnerRecord.ownerWord(1, OwnerRecord.nextGeneration(word2));
            raw.setLongVolatile(UniversalDescriptor.LOCK_OFFSET + OwnerRecord.IDENTITY_OFFSET, 0);
            raw.setLongVolatile(UniversalDescriptor.LOCK_OFFSET, held2);
            raw.setLongVolatile(
                    UniversalDescriptor.INTENT_OP_OFFSET, UniversalDescriptor.INTENT_INSERT);
            raw.getAndAddLong(UniversalDescriptor.VERSION_OFFSET, 1);
            set.waitLimit(Duration.ofMinutes(1));
            got.set(null);
            Thread minute =
                    parked(
                            () -> {
                                try {
                                    got.set(set.containsKey(5L));
                                } catch (RuntimeException e) {
                                    got.set(e);
                                }
                            });
            raw.setLongVolatile(
                    UniversalDescriptor.INTENT_OP_OFFSET, UniversalDescriptor.INTENT_NONE);
            raw.getAndAddLong(UniversalDescriptor.VERSION_OFFSET, 1);
            raw.setLongVolatile(UniversalDescriptor.LOCK_OFFSET, OwnerRecord.freed(held2));
            minute.join(Duration.ofSeconds(30).toMillis());
            assertThat(got.get()).isEqualTo(true);
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
    void keysWiderThanOneWordAreStoredWholeInTheSetAndTheSharedLevel() {
        List<Wide> keys = List.of(new Wide(1, 2), new Wide(1, 3), new Wide(2, 2));
        try (SharedUniversal<Wide> set =
                SharedUniversal.TYPE.create(
                        dir.resolve("w.cxc"), new SharedUniversal.Settings<>(8, WIDE))) {
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
        try (CascadeSharedLevel<Wide, Wide> level =
                CascadeSharedLevel.TYPE.create(
                        dir.resolve("l.cxc"), new CascadeSharedLevel.Settings<>(16, WIDE, WIDE))) {
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
    void theInProcessLevelsBoundsAndItsEvictionOrderAfterAnInvalidation() {
        assertThat(new BoundedLevel<String, String>("one", 1).maxEntries()).isEqualTo(1);
        assertThat(new BoundedLevel<String, String>("max", BoundedLevel.MAX_ENTRIES).maxEntries())
                .isEqualTo(BoundedLevel.MAX_ENTRIES);
        for (int bad : new int[] {0, BoundedLevel.MAX_ENTRIES + 1}) {
            assertThatThrownBy(() -> new BoundedLevel<String, String>("bad", bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "maxEntries must be 1.."
                                    + BoundedLevel.MAX_ENTRIES
                                    + " (MAX_ENTRIES), got "
                                    + bad);
        }
        BoundedLevel<String, String> level = new BoundedLevel<>("two", 2);
        level.put("a", "A1");
        level.put("a", "A2"); // a replacement: not a second place in the order
        level.invalidate("a"); // gone, and out of the order
        level.invalidate("z"); // never there
        level.put("b", "B");
        level.put("c", "C");
        level.put("a", "A3"); // the oldest is now b

        assertThat(level.get("b")).isNull();
        assertThat(level.get("c")).isEqualTo("C");
        assertThat(level.get("a")).isEqualTo("A3");
        assertThat(level.size()).isEqualTo(2);
    }

    @Test
    void aCascadeTakesAtMostMaxLevelsAndItsStatisticsComeFromTheLastLevel() {
        assertThat(new CascadeStats(List.of()).misses()).isZero();
        assertThat(
                        new CascadeStats(
                                        List.of(
                                                new CascadeStats.Level("top", 5, 9),
                                                new CascadeStats.Level("bottom", 3, 4)))
                                .misses())
                .isEqualTo(4);
        KTowerCascade.Builder<String, String> builder = KTowerCascade.builder();
        List<CascadeLevel<String, String>> given = new ArrayList<>();
        for (int i = 0; i < KTowerCascade.MAX_LEVELS; i++) {
            BoundedLevel<String, String> level = new BoundedLevel<>("l" + i, 4);
            given.add(level);
            builder.level(level);
        }
        assertThatThrownBy(() -> builder.level(new BoundedLevel<>("one too many", 4)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a cascade takes at most 16 levels (MAX_LEVELS)");
        assertThat(builder.build().levels()).containsExactlyElementsOf(given);
    }
}
