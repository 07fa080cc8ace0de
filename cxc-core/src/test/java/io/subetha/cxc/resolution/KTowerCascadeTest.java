package io.subetha.cxc.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.codec.FixedCodec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cascade over its shipped levels: short-circuit, fill above, stats, bounds; the in-process
 * level's bounds and eviction order after an invalidation, and the cascade's level limit.
 */
class KTowerCascadeTest {

    @TempDir Path dir;

    @Test
    void theFirstLevelToAnswerShortCircuitsAndFillsTheLevelsAboveIt() {
        AtomicInteger loads = new AtomicInteger();
        BoundedLevel<Long, Long> memory = new BoundedLevel<>("memory", 100);
        try (CascadeSharedLevel<Long, Long> shared =
                CascadeSharedLevel.TYPE.create(
                        dir.resolve("shared.cxc"),
                        new CascadeSharedLevel.Settings<>(
                                256, FixedCodec.INT64, FixedCodec.INT64))) {
            KTowerCascade<Long, Long> cascade =
                    KTowerCascade.<Long, Long>builder()
                            .level(memory)
                            .level(shared)
                            .level(
                                    new LoaderLevel<>(
                                            "source",
                                            k -> {
                                                loads.incrementAndGet();
                                                return k < 0 ? null : k * 2;
                                            }))
                            .build();
            assertThat(cascade.get(21L)).contains(42L);
            assertThat(memory.get(21L)).isEqualTo(42);
            assertThat(shared.get(21L)).isEqualTo(42);
            assertThat(cascade.get(21L)).contains(42L);
            assertThat(loads).hasValue(1);
            assertThat(cascade.get(-1L)).isEmpty();
            assertThat(loads).hasValue(2);

            memory.invalidate(21L);
            assertThat(cascade.get(21L)).contains(42L); // from the shared level
            assertThat(loads).hasValue(2);

            cascade.insert(5L, 500L);
            assertThat(memory.get(5L)).isEqualTo(500);
            assertThat(shared.get(5L)).isEqualTo(500);

            CascadeStats stats = cascade.stats();
            assertThat(stats.levels())
                    .containsExactly(
                            new CascadeStats.Level("memory", 1, 3),
                            new CascadeStats.Level("shared.cxc", 1, 2),
                            new CascadeStats.Level("source", 1, 1));
            assertThat(stats.misses()).isEqualTo(1);
            assertThat(cascade.opCounts()).containsEntry("get", 4L).containsEntry("insert", 1L);
        }
    }

    @Test
    void theBoundedLevelEvictsTheOldestInsertion() {
        BoundedLevel<Integer, Integer> memory = new BoundedLevel<>("memory", 3);
        for (int i = 0; i < 5; i++) {
            memory.put(i, i);
        }
        assertThat(memory.size()).isEqualTo(3);
        assertThat(memory.get(0)).isNull();
        assertThat(memory.get(1)).isNull();
        assertThat(memory.get(4)).isEqualTo(4);
        assertThatThrownBy(() -> new BoundedLevel<>("m", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxEntries must be 1..67108864 (MAX_ENTRIES), got 0");
        assertThatThrownBy(() -> KTowerCascade.builder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one level");
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
