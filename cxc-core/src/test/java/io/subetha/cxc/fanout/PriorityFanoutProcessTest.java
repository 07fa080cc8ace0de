package io.subetha.cxc.fanout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fan-out across real JVMs on one file: 3 producers and 2 consumers (drain: exactly once; claim
 * with a consumer SIGKILLed mid-run: at least once, nothing lost), a dead consumer's claim returned
 * in order, a silent one's late ack refused, and SIGKILLs at random points of a hot submit/claim
 * loop.
 *
 * <p>{@code -Dcxc.fanout.items=100000} runs 100,000 items (default 6,000); {@code
 * -Dcxc.fanout.kills=N} the number of random kills (default 2).
 */
class PriorityFanoutProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final int ITEMS = Integer.getInteger("cxc.fanout.items", 6_000);
    static final int KILLS = Integer.getInteger("cxc.fanout.kills", 2);
    static final int CAP = 256;

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    ChildJvm child(String name, String... args) {
        return children.add(ChildJvm.start(name, FanoutChild.class, args));
    }

    @Test
    void threeProducerJvmsAndTwoDrainingJvmsDeliverEveryItemExactlyOnce() throws IOException {
        Path path = dir.resolve("fanout.cxc");
        PriorityFanout.TYPE
                .create(path, new PriorityFanout.Settings<>(CAP, FixedCodec.INT64))
                .close();
        List<Long> all = run(path, "drain", false);
        Map<Long, Integer> counts = countsOf(all);
        assertThat(counts).hasSize(perProducer() * 3);
        assertThat(counts.values()).allMatch(n -> n == 1);
    }

    @Test
    void claimingJvmsLoseNothingWhenOneIsSigkilledMidRun() throws IOException {
        Path path = dir.resolve("fanout.cxc");
        PriorityFanout.TYPE
                .create(path, new PriorityFanout.Settings<>(CAP, FixedCodec.INT64))
                .close();
        List<Long> all = run(path, "claim", true);
        Map<Long, Integer> counts = countsOf(all);
        assertThat(counts).hasSize(perProducer() * 3); // every item at least once
        long twice = counts.values().stream().filter(n -> n > 1).count();
        assertThat(twice).as("items delivered again after the kill").isLessThanOrEqualTo(64);
    }

    /** Runs 3 producers and 2 consumers; returns every item the consumers logged. */
    private List<Long> run(Path path, String mode, boolean killOne) throws IOException {
        List<ChildJvm> consumers = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            Path log = dir.resolve("consumer-" + c + ".log");
            logs.add(log);
            consumers.add(
                    child(
                            "consumer-" + c,
                            "consume",
                            path.toString(),
                            "" + CAP,
                            mode,
                            log.toString(),
                            "32"));
        }
        for (ChildJvm c : consumers) {
            c.awaitPrefixed("ready", STEP);
        }
        List<ChildJvm> producers = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            producers.add(
                    child(
                            "producer-" + p,
                            "produce",
                            path.toString(),
                            "" + CAP,
                            "" + p,
                            "" + perProducer()));
        }
        if (killOne) {
            // Mid-run: a claimer spends its time between claim and ack, so the kill lands in a
            // batch more often than not; nothing it held may be lost either way.
            await().atMost(STEP)
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> Files.exists(logs.get(0)) && Files.size(logs.get(0)) > 8 * 500);
            consumers.get(0).kill();
        }
        for (ChildJvm p : producers) {
            p.awaitPrefixed("produced", STEP);
        }
        try (PriorityFanout<Long> observer =
                PriorityFanout.open(path, new PriorityFanout.Settings<>(CAP, FixedCodec.INT64))) {
            await().atMost(STEP)
                    .pollInterval(Duration.ofMillis(20))
                    .until(
                            () -> {
                                observer.scan(); // returns a killed claimer's items
                                for (int p = 0; p < PriorityFanout.MAX_PRIORITIES; p++) {
                                    if (observer.depth(p) != 0) {
                                        return false;
                                    }
                                }
                                return true;
                            });
        }
        for (ChildJvm c : consumers) {
            if (c.isAlive()) {
                c.send("stop");
                c.awaitPrefixed("consumed", STEP);
            }
        }
        List<Long> all = new ArrayList<>();
        for (Path log : logs) {
            all.addAll(readLog(log));
        }
        return all;
    }

    @Test
    void aSigkilledConsumersClaimReturnsToItsLevelInOrder() {
        Path path = dir.resolve("fanout.cxc");
        try (PriorityFanout<Long> f =
                PriorityFanout.TYPE.create(
                        path, new PriorityFanout.Settings<>(16, FixedCodec.INT64))) {
            for (long i = 0; i < 8; i++) {
                f.submit(5, i);
            }
            ChildJvm holder = child("holder", "hold", path.toString(), "16", "5");
            assertThat(holder.awaitPrefixed("claimed ", STEP)).isEqualTo("0,1,2,3,4");
            holder.kill();
            holder.waitForExit(STEP);
            PriorityFanout.ScanReport report = f.scan();
            assertThat(report.returnedClaims()).isEqualTo(5);
            assertThat(report.deadParticipants()).isEqualTo(1);
            FanoutClaim<Long> claim = f.claimHighest(16);
            assertThat(claim.items()).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
            assertThat(claim.ack()).isTrue();
        }
    }

    @Test
    void aStoppedConsumersClaimIsRedeliveredAndItsLateAckRefused() {
        Path path = dir.resolve("fanout.cxc");
        PriorityFanout.Settings<Long> settings =
                new PriorityFanout.Settings<>(16, FixedCodec.INT64, Duration.ofMillis(300));
        try (PriorityFanout<Long> f =
                PriorityFanout.TYPE.create(path, settings, CxcFileOptions.defaults())) {
            for (long i = 0; i < 3; i++) {
                f.submit(2, i);
            }
            ChildJvm holder = child("holder", "hold", path.toString(), "16", "3");
            assertThat(holder.awaitPrefixed("claimed ", STEP)).isEqualTo("0,1,2");
            holder.suspend();
            try {
                await().atMost(STEP).until(() -> f.scan().returnedClaims() == 3);
                FanoutClaim<Long> again = f.claimHighest(16);
                assertThat(again.items()).containsExactly(0L, 1L, 2L);
                assertThat(again.ack()).isTrue();
            } finally {
                holder.resume();
            }
            assertThat(holder.ask("ack")).isEqualTo("ack false");
        }
    }

    @Test
    void sigkillsAtRandomPointsOfASubmitAndClaimLoopLoseNoAcknowledgedItem() throws IOException {
        Path path = dir.resolve("fanout.cxc");
        PriorityFanout.TYPE
                .create(path, new PriorityFanout.Settings<>(64, FixedCodec.INT64))
                .close();
        for (int k = 0; k < KILLS; k++) {
            long producer = 10 + k;
            Path log = dir.resolve("churn-" + k + ".log");
            try (ChildJvm churn =
                    ChildJvm.start(
                            "churn-" + k,
                            FanoutChild.class,
                            "churn",
                            path.toString(),
                            "64",
                            "" + producer,
                            log.toString())) {
                churn.awaitPrefixed("running", STEP);
                LockSupport.parkNanos(
                        Duration.ofMillis(ThreadLocalRandom.current().nextInt(5, 150)).toNanos());
                churn.kill();
                churn.waitForExit(STEP);
            }
            try (PriorityFanout<Long> survivor =
                    PriorityFanout.open(
                            path, new PriorityFanout.Settings<>(64, FixedCodec.INT64))) {
                survivor.scan();
                List<Long> drained = new ArrayList<>();
                List<Long> batch;
                while (!(batch = survivor.drainHighest(64)).isEmpty()) {
                    drained.addAll(batch);
                }
                assertThat(new HashSet<>(drained)).as("drained once each").hasSize(drained.size());
                Set<Long> seen = new TreeSet<>(drained);
                seen.addAll(readLog(log));
                // The one submit in flight at the kill may be lost; it is the last one, so what
                // was acknowledged is the contiguous prefix 0..n-1.
                long n = seen.size();
                assertThat(seen).allMatch(item -> item >> 32 == producer);
                assertThat(seen.stream().mapToLong(i -> i & 0xFFFF_FFFFL).max().orElse(-1))
                        .as("kill %d: no gap in the sequence", k)
                        .isEqualTo(n - 1);
                // No level is stuck: each takes a new item and gives it back.
                for (int p = 0; p < PriorityFanout.MAX_PRIORITIES; p++) {
                    survivor.submit(p, -1L);
                    assertThat(survivor.drainPriority(p, 8)).containsExactly(-1L);
                    assertThat(survivor.depth(p)).isZero();
                }
            }
        }
    }

    private static int perProducer() {
        return ITEMS / 3;
    }

    private static Map<Long, Integer> countsOf(List<Long> items) {
        Map<Long, Integer> counts = new HashMap<>();
        items.forEach(i -> counts.merge(i, 1, Integer::sum));
        return counts;
    }

    private static List<Long> readLog(Path log) throws IOException {
        List<Long> items = new ArrayList<>();
        if (!Files.exists(log)) {
            return items;
        }
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(log)).order(ByteOrder.LITTLE_ENDIAN);
        while (bytes.remaining() >= 8) {
            items.add(bytes.getLong());
        }
        return items;
    }
}
