package io.subetha.cxc.versioned;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import io.subetha.cxc.versioned.VersionRead.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chain and the tile across real JVMs on one file: concurrent pushers in two processes, a
 * pusher and a recorder killed holding their slot with half a value written, pushers killed at
 * random points. {@code -Dcxc.versioned.kills=N} sets the random kills (default 4).
 */
class VersionedProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final int KILLS = Integer.getInteger("cxc.versioned.kills", 4);

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    ChildJvm child(String name, String open) {
        ChildJvm child =
                children.add(
                        ChildJvm.start(name, VersionedChild.class)
                                .eventsAre(line -> line.startsWith("pushed ")));
        child.ask(open);
        return child;
    }

    @Test
    void twoProcessesPushingGetDistinctGapFreeVersionsAndEachReadsTheOthersValues() {
        Path path = dir.resolve("chain.cxc");
        int each = 1_000;
        try (var chain =
                SharedVersionedChain.openOrCreate(
                        path, new SharedVersionedChain.Settings<>(4096, Sample.CODEC))) {
            List<ChildJvm> pushers = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                pushers.add(child("pusher-" + p, "chain " + path + " 4096"));
            }
            pushers.forEach(c -> c.send("push-loop " + pushers.indexOf(c) + " " + each));
            for (ChildJvm c : pushers) {
                c.awaitPrefixed("done ", STEP);
            }
            assertThat(chain.currentVersion()).isEqualTo(2 * each);
            Set<Long> seen = new HashSet<>();
            long[] lastN = new long[2];
            for (long v = 1; v <= 2 * each; v++) {
                Sample s = chain.lookup(v).orElseThrow();
                assertThat(s.whole()).isTrue();
                assertThat(seen.add(s.producer() * 1_000_000 + s.n())).isTrue();
                assertThat(s.n())
                        .as("a producer's versions rise")
                        .isGreaterThan(lastN[(int) s.producer()]);
                lastN[(int) s.producer()] = s.n();
            }
            assertThat(lastN).containsExactly(each, each);
        }
    }

    @Test
    void aPusherKilledHoldingItsSlotLeavesNoGarbageAndNeverBlocksLaterPushes() {
        Path path = dir.resolve("chain.cxc");
        try (var chain =
                SharedVersionedChain.openOrCreate(
                        path, new SharedVersionedChain.Settings<>(4, Sample.CODEC))) {
            chain.push(Sample.of(9, 1)); // version 1
            ChildJvm victim = child("victim", "chain " + path + " 4");
            victim.ask("stall");
            victim.send("push 1 1"); // version 2: half written, then parks holding the slot
            victim.awaitLine("stalled"::equals, STEP);
            assertThat(chain.lookup(2).status()).isEqualTo(Status.NOT_WRITTEN);
            assertThat(chain.push(Sample.of(9, 3))).isEqualTo(3); // other slots are free
            victim.kill();
            assertThat(chain.lookup(2).status()).isEqualTo(Status.NOT_WRITTEN);
            assertThat(chain.visibleMask()).isEqualTo(0b101);
            // Version 6 lands in the dead pusher's slot: taken over at once through /proc.
            for (long n = 4; n <= 9; n++) {
                assertThat(chain.push(Sample.of(9, n))).isEqualTo(n);
            }
            for (long v = 6; v <= 9; v++) {
                assertThat(chain.lookup(v).orElseThrow()).isEqualTo(Sample.of(9, v));
            }
            assertThat(chain.lookup(2).status()).isEqualTo(Status.NOT_RETAINED);
        }
    }

    @Test
    void pushersKilledAtRandomPointsNeverLeaveAVersionThatReadsGarbage() {
        Path path = dir.resolve("chain.cxc");
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try (var chain =
                SharedVersionedChain.openOrCreate(
                        path, new SharedVersionedChain.Settings<>(8, Sample.CODEC))) {
            for (int kill = 0; kill < KILLS; kill++) {
                ChildJvm victim = child("victim-" + kill, "chain " + path + " 8");
                victim.ask("push-loop " + kill + " 1000000");
                victim.awaitPrefixed("pushed ", STEP);
                long end = System.nanoTime() + random.nextInt(1, 20) * 1_000_000L;
                while (System.nanoTime() < end) {
                    Thread.onSpinWait(); // let it run a random while
                }
                victim.kill();
                long before = chain.currentVersion();
                for (int n = 1; n <= 16; n++) {
                    chain.push(Sample.of(100 + kill, n)); // never blocked by the dead pusher
                }
                assertThat(chain.currentVersion()).isEqualTo(before + 16);
                for (long v = 1; v <= chain.currentVersion(); v++) {
                    var read = chain.lookup(v);
                    if (read.isReadable()) {
                        assertThat(read.value().whole()).as("version %d", v).isTrue();
                    }
                }
                assertThat(chain.visibleMask() & 0xFF).as("the 8 newest, ours").isEqualTo(0xFF);
            }
        }
    }

    @Test
    void twoProcessesRecordATileAndARecorderKilledMidRecordIsPassedOverThenReplaced() {
        Path path = dir.resolve("tile.cxc");
        try (var tile =
                SharedTimePointTile.openOrCreate(
                        path, new SharedTimePointTile.Settings<>(1000, 100, 4, Sample.CODEC))) {
            ChildJvm other = child("recorder", "tile " + path + " 1000 100 4");
            other.ask("record-loop 7 200");
            for (long n = 1; n <= 200; n++) {
                for (int p = 0; p < 4; p++) {
                    tile.record(tile.pointTime(p), Sample.of(8, n));
                    Sample seen = tile.valueAt(1000 + 100 * p + 50).orElseThrow();
                    assertThat(seen.whole()).isTrue();
                }
            }
            other.awaitPrefixed("done ", STEP);
            for (int p = 0; p < 4; p++) {
                Sample last = tile.recordedAt(tile.pointTime(p)).orElseThrow();
                assertThat(last.n()).isEqualTo(200);
                assertThat(last.producer()).isIn(7L, 8L);
            }

            other.ask("stall");
            other.send("record 1200 7 201"); // half written, then parks holding point 1200
            other.awaitLine("stalled"::equals, STEP);
            other.kill();
            // The value being replaced is gone: the lookup falls back to the point before.
            assertThat(tile.recordedAt(1200)).isEmpty();
            assertThat(tile.valueAt(1250).orElseThrow().n()).isEqualTo(200);
            assertThat(tile.valueAt(1250)).isEqualTo(tile.recordedAt(1100));
            tile.record(1200, Sample.of(8, 300)); // the dead recorder's slot, taken over at once
            assertThat(tile.valueAt(1250)).contains(Sample.of(8, 300));
        }
    }
}
