package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.testing.StepGate;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The slot-ownership block on its own: its words, its steps, and claimants interleaved. */
class OwnerRecordTest {

    static final int RECORD = 8; // any 8-aligned offset
    static final long ME = Pids.current();

    @TempDir Path dir;
    AtomicBuffer body;

    @BeforeEach
    void map() throws IOException {
        try (FileChannel channel =
                FileChannel.open(
                        dir.resolve("record"),
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE)) {
            body = new AtomicBuffer(channel.map(FileChannel.MapMode.READ_WRITE, 0, 64));
        }
    }

    @Test
    void aClaimInstallsTheOwnerThenItsHeartbeatThenItsIdentity() {
        long word = OwnerRecord.ownerWord(42, 1);

        assertThat(OwnerRecord.claim(body, RECORD, 0, word, 777, () -> 5)).isTrue();

        assertThat(OwnerRecord.ownerWord(body, RECORD)).isEqualTo(word);
        assertThat(OwnerRecord.pid(word)).isEqualTo(42);
        assertThat(OwnerRecord.key(word)).isEqualTo(1);
        assertThat(OwnerRecord.heartbeat(body, RECORD)).isEqualTo(5);
        assertThat(OwnerRecord.startTime(body, RECORD, word)).isEqualTo(777);
        assertThat(OwnerRecord.isOwnedBy(body, RECORD, word, 42, 777)).isTrue();
        assertThat(OwnerRecord.isOwnedBy(body, RECORD, word, 42, 778)).isFalse();
        assertThat(OwnerRecord.isOwnedBy(body, RECORD, word, 43, 777)).isFalse();
    }

    @Test
    void aLostClaimWritesNothing() {
        OwnerRecord.claim(body, RECORD, 0, OwnerRecord.ownerWord(42, 1), 777, () -> 5);
        byte[] before = bytes();

        boolean won =
                OwnerRecord.claim(
                        body, RECORD, 0, OwnerRecord.ownerWord(43, 1), 888, () -> 1_000_000);

        assertThat(won).isFalse();
        assertThat(bytes()).isEqualTo(before);
    }

    @Test
    void releaseIsACasFromExactlyTheJudgedWordAndKeepsTheKey() {
        long word = OwnerRecord.ownerWord(42, 9);
        OwnerRecord.claim(body, RECORD, 0, word, 777, () -> 5);

        assertThat(OwnerRecord.release(body, RECORD, OwnerRecord.ownerWord(42, 8))).isFalse();
        assertThat(OwnerRecord.release(body, RECORD, word)).isTrue();

        long freed = OwnerRecord.ownerWord(body, RECORD);
        assertThat(OwnerRecord.pid(freed)).isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(OwnerRecord.nextGeneration(freed)).isEqualTo(10);
        assertThat(OwnerRecord.startTime(body, RECORD, OwnerRecord.ownerWord(7, 10)))
                .as("the old identity never pairs with the next owner's key")
                .isEqualTo(ProcessProbe.UNKNOWN_START_TIME);
    }

    @Test
    void generationsSkipZeroWhenTheyWrap() {
        assertThat(OwnerRecord.nextGeneration(OwnerRecord.ownerWord(1, 0xFFFF_FFFFL))).isEqualTo(1);
    }

    @Test
    void theHeartbeatOnlyRises() {
        OwnerRecord.raiseHeartbeat(body, RECORD, 10);
        OwnerRecord.raiseHeartbeat(body, RECORD, 4);
        assertThat(OwnerRecord.heartbeat(body, RECORD)).isEqualTo(10);
        OwnerRecord.raiseHeartbeat(body, RECORD, 11);
        assertThat(OwnerRecord.heartbeat(body, RECORD)).isEqualTo(11);
    }

    @Test
    void anIdentityIsPublishedOnlyWhileTheOwnerWordIsThePublishers() {
        long mine = OwnerRecord.ownerWord(42, 1);
        long next = OwnerRecord.ownerWord(43, 2);
        OwnerRecord.claim(body, RECORD, 0, mine, 777, () -> 5);
        OwnerRecord.claim(body, RECORD, mine, next, 888, () -> 6);

        OwnerRecord.publishIdentity(body, RECORD, mine, 777); // late

        assertThat(OwnerRecord.startTime(body, RECORD, next)).isEqualTo(888);
    }

    @Test
    void judgesFreeLiveStaleAndDead() {
        assertThat(OwnerRecord.judge(body, RECORD, 0, 0, 3)).isEqualTo(OwnerStatus.FREE);
        long me = OwnerRecord.ownerWord(ME, 1);
        OwnerRecord.claim(body, RECORD, 0, me, OwnerRecord.startTimeOf(ME), () -> 10);

        assertThat(OwnerRecord.judge(body, RECORD, me, 13, 3)).isEqualTo(OwnerStatus.LIVE);
        assertThat(OwnerRecord.judge(body, RECORD, me, 14, 3)).isEqualTo(OwnerStatus.STALE);

        long reused = OwnerRecord.ownerWord(ME, 2);
        OwnerRecord.claim(body, RECORD, me, reused, OwnerRecord.startTimeOf(ME) + 1, () -> 10);
        assertThat(OwnerRecord.judge(body, RECORD, reused, 10, 3))
                .as("our PID, another start time: a reused PID")
                .isEqualTo(OwnerStatus.DEAD);

        long gone = OwnerRecord.ownerWord(4_000_000_000L, 3);
        OwnerRecord.claim(body, RECORD, reused, gone, 1, () -> 10);
        assertThat(OwnerRecord.judge(body, RECORD, gone, 10, 3)).isEqualTo(OwnerStatus.DEAD);
    }

    /**
     * A deterministic schedule for every step: claimant A is held at each point of its claim while
     * claimant B judges what it sees and takes the record over; then A goes on. Whatever the step,
     * B ends as the owner, with its own identity and a heartbeat no older than its own.
     */
    @ParameterizedTest
    @EnumSource(
            value = Point.class,
            names = {"JUDGED", "WON", "HEARTBEAT_PUBLISHED"})
    void aClaimantHeldAtAnyStepNeverCorruptsTheOwnerThatOvertookIt(Point step) {
        long a = OwnerRecord.ownerWord(100, 1);
        StepGate<Boolean> held =
                StepGate.holdAt(step, () -> OwnerRecord.claim(body, RECORD, 0, a, 1111, () -> 7));

        long seen = OwnerRecord.ownerWord(body, RECORD);
        long b = OwnerRecord.ownerWord(200, OwnerRecord.nextGeneration(seen));
        assertThat(OwnerRecord.claim(body, RECORD, seen, b, 2222, () -> 50)).isTrue();

        boolean aWon = held.release();

        assertThat(aWon).isEqualTo(step != Point.JUDGED);
        assertThat(OwnerRecord.ownerWord(body, RECORD)).isEqualTo(b);
        assertThat(OwnerRecord.startTime(body, RECORD, b)).isEqualTo(2222);
        assertThat(OwnerRecord.heartbeat(body, RECORD)).isEqualTo(50);
    }

    /**
     * jcstress-style: four threads claim, beat, judge and release one record in random order,
     * pausing at random protocol steps. Checked throughout: a start time read for an owner word is
     * always that owner's own, no key is ever installed twice, and the heartbeat never falls.
     */
    @Test
    void claimantsInterleavedAtRandomStepsKeepEveryInvariant() throws InterruptedException {
        int threads = 4;
        int rounds = 20_000;
        Set<Long> installed = ConcurrentHashMap.newKeySet();
        AtomicReference<String> violation = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        try (Interleaving.Installed pauses =
                Interleaving.install(
                        p -> {
                            int r = ThreadLocalRandom.current().nextInt(16);
                            if (r == 0) {
                                Thread.yield();
                            } else if (r == 1) {
                                LockSupport.parkNanos(1_000);
                            }
                        })) {
            for (int t = 0; t < threads; t++) {
                long pid = t + 1;
                long startTime = 1000 + pid;
                SplittableRandom random = new SplittableRandom(pid);
                Thread worker =
                        new Thread(
                                () -> {
                                    await(start);
                                    long lastHeartbeat = 0;
                                    for (int i = 0; i < rounds && violation.get() == null; i++) {
                                        long seen = OwnerRecord.ownerWord(body, RECORD);
                                        long observedStart =
                                                OwnerRecord.startTime(body, RECORD, seen);
                                        if (OwnerRecord.pid(seen) != OwnerRecord.NO_OWNER
                                                && observedStart != ProcessProbe.UNKNOWN_START_TIME
                                                && observedStart != 1000 + OwnerRecord.pid(seen)) {
                                            violation.set(
                                                    "owner "
                                                            + OwnerRecord.pid(seen)
                                                            + " paired with start time "
                                                            + observedStart);
                                        }
                                        long heartbeat = OwnerRecord.heartbeat(body, RECORD);
                                        if (heartbeat < lastHeartbeat) {
                                            violation.set("heartbeat fell to " + heartbeat);
                                        }
                                        lastHeartbeat = heartbeat;
                                        int action = random.nextInt(4);
                                        if (action == 0 || OwnerRecord.pid(seen) == 0) {
                                            long mine =
                                                    OwnerRecord.ownerWord(
                                                            pid, OwnerRecord.nextGeneration(seen));
                                            long beat = i + 1L;
                                            if (OwnerRecord.claim(
                                                            body,
                                                            RECORD,
                                                            seen,
                                                            mine,
                                                            startTime,
                                                            () -> beat)
                                                    && !installed.add(OwnerRecord.key(mine))) {
                                                violation.set(
                                                        "key " + OwnerRecord.key(mine) + " twice");
                                            }
                                        } else if (action == 1 && OwnerRecord.pid(seen) == pid) {
                                            OwnerRecord.release(body, RECORD, seen);
                                        } else if (action == 2 && OwnerRecord.pid(seen) == pid) {
                                            OwnerRecord.raiseHeartbeat(body, RECORD, i + 1L);
                                        }
                                    }
                                },
                                "claimant-" + pid);
                worker.start();
                workers.add(worker);
            }
            start.countDown();
            for (Thread worker : workers) {
                worker.join();
            }
        }
        assertThat(violation.get()).isNull();
        assertThat(installed).hasSizeGreaterThan(rounds / 4);
    }

    private byte[] bytes() {
        byte[] copy = new byte[64];
        body.getBytes(0, copy);
        return copy;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
