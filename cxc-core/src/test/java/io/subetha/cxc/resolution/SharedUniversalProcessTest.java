package io.subetha.cxc.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.resolution.UniversalChild.Ops;
import io.subetha.cxc.resolution.UniversalChild.Step;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The universal set across real JVMs on one file: migrations against a model, and kills. */
class SharedUniversalProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);

    /** Ops this process runs against the migrating child; {@code -Dcxc.resolution.universalOps}. */
    static final int OPS = Integer.getInteger("cxc.resolution.universalOps", 3000);

    /** SIGKILLs of a churning child; {@code -Dcxc.resolution.universalKills=200} for a long run. */
    static final int KILLS = Integer.getInteger("cxc.resolution.universalKills", 3);

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void oneProcessMigratesBackAndForthWhileAnotherInsertsAndRemovesAndTheSetEqualsTheModel() {
        Path path = dir.resolve("set.cxc");
        try (SharedUniversal<Long> set =
                SharedUniversal.TYPE.create(
                        path, new SharedUniversal.Settings<>(512, FixedCodec.INT64))) {
            ChildJvm child = children.add(ChildJvm.start("migrator", UniversalChild.class));
            child.ask("open " + path + " 512");
            child.ask("migrate-loop");
            await().atMost(STEP).until(() -> migrations(set) >= 2);
            long before = migrations(set);
            Set<Long> model = new HashSet<>();
            Random random = new Random(42);
            for (int i = 0; i < OPS; i++) {
                long key = random.nextInt(400);
                if (random.nextInt(3) == 0) {
                    assertThat(set.remove(key)).as("remove %d", key).isEqualTo(model.remove(key));
                } else {
                    assertThat(set.insert(key)).as("insert %d", key).isEqualTo(model.add(key));
                }
                long probe = random.nextInt(400);
                assertThat(set.containsKey(probe))
                        .as("contains %d", probe)
                        .isEqualTo(model.contains(probe));
            }
            long during = migrations(set) - before;
            String stopped = child.ask("stop");
            assertThat(during).as("migrations during the ops (%s)", stopped).isGreaterThan(0);
            assertThat(new TreeSet<>(set.keys())).isEqualTo(new TreeSet<>(model));
            assertThat(set.size()).isEqualTo(model.size());
            assertThat(set.inconsistency()).isNull();
        }
    }

    /**
     * A child runs a seeded sequence of inserts, removes and migrations and is SIGKILLed at random
     * points; the set then equals the model of every acknowledged op (plus, possibly, the one in
     * flight), is consistent, and takes new ops.
     */
    @Test
    void aWriterKilledMidOpOrMidMigrationIsRolledForwardByTheNextAndLosesNothingAcknowledged()
            throws IOException {
        Path path = dir.resolve("churn.cxc");
        int keys = 200;
        long seed = 7;
        try (SharedUniversal<Long> set =
                SharedUniversal.TYPE.create(
                        path, new SharedUniversal.Settings<>(256, FixedCodec.INT64))) {
            for (int round = 0; round < KILLS; round++) {
                // Each round starts from an empty set, so the model is the sequence alone.
                for (long k : set.keys()) {
                    set.remove(k);
                }
                Path ack = dir.resolve("ack-" + round);
                long roundSeed = seed + round;
                try (ChildJvm child = ChildJvm.start("churn-" + round, UniversalChild.class)) {
                    child.ask("open " + path + " 256");
                    child.ask("churn " + roundSeed + " " + ack + " " + keys);
                    await().atMost(STEP).until(() -> acknowledged(ack) > 500);
                    LockSupport.parkNanos(
                            ThreadLocalRandom.current().nextLong(1_000_000, 30_000_000));
                    child.kill();
                }
                long done = acknowledged(ack);
                Set<Long> model = new HashSet<>();
                Ops ops = new Ops(roundSeed, keys);
                for (long i = 0; i < done; i++) {
                    applyToModel(model, ops.next());
                }
                Set<Long> withInFlight = new HashSet<>(model);
                applyToModel(withInFlight, ops.next());
                Set<Long> actual = new HashSet<>(set.keys()); // takes the lock: repairs first
                assertThat(actual).as("after %d acknowledged ops", done).isIn(model, withInFlight);
                assertThat(set.inconsistency()).isNull();
                assertThat(set.insert(10_000L)).isTrue();
                assertThat(set.containsKey(10_000L)).isTrue();
                assertThat(set.remove(10_000L)).isTrue();
            }
            assertThat(set.describe().get("takeovers")).isNotNull();
        }
    }

    static void applyToModel(Set<Long> model, Step step) {
        if (step.kind() == Step.INSERT) {
            model.add(step.key());
        } else if (step.kind() == Step.REMOVE) {
            model.remove(step.key());
        }
    }

    static long acknowledged(Path ack) throws IOException {
        if (!Files.exists(ack) || Files.size(ack) < 8) {
            return 0;
        }
        return ByteBuffer.wrap(Files.readAllBytes(ack)).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    }

    static long migrations(SharedUniversal<?> set) {
        return (Long) set.describe().get("migrations");
    }
}
