package io.subetha.cxc.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.resolution.AsyncPointerChild.Pair;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cascade's shared level across real JVMs on one file. */
class KTowerCascadeProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);

    /** SIGKILLs of a churning writer; {@code -Dcxc.resolution.cascadeKills=200} for a long run. */
    static final int KILLS = Integer.getInteger("cxc.resolution.cascadeKills", 3);

    /** Keys both racers put at once in each round. */
    static final int RACE_KEYS = 2000;

    /** Rounds of the race; {@code -Dcxc.resolution.cascadeRaceRounds=50} for a long run. */
    static final int RACE_ROUNDS = Integer.getInteger("cxc.resolution.cascadeRaceRounds", 1);

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void whatOneProcessLoadsTheOtherFindsInTheSharedLevelWithoutCallingItsLoader() {
        Path path = dir.resolve("shared.cxc");
        ChildJvm child = children.add(ChildJvm.start("cascade", CascadeChild.class));
        child.ask("open " + path + " 4096");
        assertThat(child.ask("get 0 200")).isEqualTo("loads 200");

        AtomicLong loads = new AtomicLong();
        KTowerCascade<Long, Long> mine = CascadeChild.cascade(path, 4096, loads);
        for (long k = 0; k < 200; k++) {
            assertThat(mine.get(k)).contains(k * 31 + 7);
        }
        assertThat(loads).hasValue(0);
        assertThat(mine.stats().levels().get(1).hits()).isEqualTo(200);

        // And back: what this process loads, the child finds.
        for (long k = 1000; k < 1100; k++) {
            assertThat(mine.get(k)).contains(k * 31 + 7);
        }
        assertThat(loads).hasValue(100);
        assertThat(child.ask("get 1000 1100")).isEqualTo("loads 200");
        ((CascadeSharedLevel<?, ?>) mine.levels().get(1)).close();
    }

    /**
     * A child puts and removes in a hot loop and is SIGKILLed at random points, mid-write among
     * them; after each kill every get here answers a miss or a whole value of its own key, and a
     * put of every key succeeds and is found: a dead writer's slot blocks nothing.
     */
    @Test
    void aWriterKilledAtRandomPointsLeavesNoTornReadAndBlocksNoPut() {
        Path path = dir.resolve("pairs.cxc");
        int keys = 64;
        try (CascadeSharedLevel<Long, Pair> level =
                CascadeSharedLevel.openOrCreate(
                        path,
                        new CascadeSharedLevel.Settings<>(
                                1024, FixedCodec.INT64, AsyncPointerChild.PAIR))) {
            for (int round = 0; round < KILLS; round++) {
                try (ChildJvm child = ChildJvm.start("churn-" + round, CascadeChild.class)) {
                    child.ask("open-pairs " + path + " 1024");
                    child.ask("churn " + keys);
                    long before = puts(level);
                    await().atMost(STEP).until(() -> puts(level) > before + 10_000);
                    LockSupport.parkNanos(
                            ThreadLocalRandom.current().nextLong(1_000_000, 20_000_000));
                    child.kill();
                }
                for (long k = 0; k < keys; k++) {
                    Pair p = level.get(k);
                    if (p != null) {
                        assertThat(p.whole()).as("%s", p).isTrue();
                        assertThat(p.value() / 1000).isEqualTo(k);
                    }
                }
                for (long k = 0; k < keys; k++) {
                    assertThat(level.insert(k, Pair.of(k * 1000))).isTrue();
                }
                for (long k = 0; k < keys; k++) {
                    assertThat(level.get(k)).isEqualTo(Pair.of(k * 1000));
                }
            }
        }
    }

    /**
     * Two JVMs put, then remove, the same keys in lock-step (each key by both at once), round after
     * round: against the model, every key is stored exactly once after the puts, with one racer's
     * value, and none is left after the removes. {@code -Dcxc.resolution.cascadeRaceRounds=50} for
     * a long run.
     */
    @Test
    void twoProcessesRacingOnEveryNewKeyLeaveItStoredExactlyOnce() throws Exception {
        Path path = dir.resolve("race.cxc");
        Path turns = dir.resolve("turns");
        Files.write(turns, new byte[16]);
        int capacity = 16_384;
        ChildJvm a = children.add(ChildJvm.start("racer-0", CascadeChild.class));
        ChildJvm b = children.add(ChildJvm.start("racer-1", CascadeChild.class));
        a.ask("open-race " + path + " " + capacity + " " + turns);
        b.ask("open-race " + path + " " + capacity + " " + turns);
        try (CascadeSharedLevel<Long, String> level =
                CascadeSharedLevel.open(
                        path,
                        new CascadeSharedLevel.Settings<>(
                                capacity, FixedCodec.INT64, CascadeChild.RACE_VALUE))) {
            int[] won = new int[2];
            for (int round = 0; round < RACE_ROUNDS; round++) {
                race(a, b, "put");
                for (long k = 0; k < RACE_KEYS; k++) {
                    assertThat(level.copies(k)).as("copies of key %d", k).isEqualTo(1);
                    String value = level.get(k);
                    assertThat(value)
                            .as("key %d", k)
                            .isIn(Long.toString(k * 10), Long.toString(k * 10 + 1));
                    won[(int) (Long.parseLong(value) - k * 10)]++;
                }
                assertThat(level.size()).isEqualTo(RACE_KEYS);
                race(a, b, "remove");
                assertThat(level.size()).as("after the removes").isZero();
            }
            assertThat(level.describe())
                    .as("no eviction or dropped put: the model has every key")
                    .containsEntry("evictions", 0L)
                    .containsEntry("droppedPuts", 0L);
            System.out.println(
                    "cascade race: "
                            + RACE_ROUNDS
                            + " rounds of "
                            + RACE_KEYS
                            + " keys, values kept "
                            + won[0]
                            + "/"
                            + won[1]
                            + ", "
                            + level.describe());
        }
    }

    static void race(ChildJvm a, ChildJvm b, String verb) {
        a.send("race 0 " + RACE_KEYS + " " + verb);
        b.send("race 1 " + RACE_KEYS + " " + verb);
        assertThat(a.readLine(STEP)).as("racer 0").isEqualTo("raced " + RACE_KEYS);
        assertThat(b.readLine(STEP)).as("racer 1").isEqualTo("raced " + RACE_KEYS);
    }

    static long puts(CascadeSharedLevel<?, ?> level) {
        return (Long) level.describe().get("puts");
    }
}
