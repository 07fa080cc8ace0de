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
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The slot-ownership block on its own: its words and their steps (a claim installs the owner, then
 * its heartbeat, then its identity; a release is one CAS from exactly the judged word), the
 * identity word valid only for the key it names, the two claims of a free record ({@link
 * OwnerRecord#claimFirstFree} over a table, {@link OwnerRecord#claimFree}'s one-CAS re-claim by the
 * process whose identity is still published), and claimants interleaved: held with a {@link
 * StepGate} between a read and its CAS, an owner retries its identity and heartbeat from the value
 * now there (never given up on, never lowered), and a table claim that lost a record goes on to the
 * next free one.
 */
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
            body =
                    new AtomicBuffer(
                            channel.map(FileChannel.MapMode.READ_WRITE, 0, 4 * OwnerRecord.LENGTH));
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

    // ------------------------------------------------------------- the identity word

    @Test
    void anIdentityPublishedUnderAnEarlierKeyDoesNotVouchForTheNextOwner() {
        long first = OwnerRecord.ownerWord(42, 1);
        assertThat(OwnerRecord.claim(body, RECORD, 0, first, 777, () -> 1)).isTrue();
        // The same PID again under the next key, its identity not yet published (a claim in
        // flight, or a crash between the CAS and the publication).
        long second = OwnerRecord.ownerWord(42, 2);
        assertThat(body.compareAndSetLong(RECORD, first, second)).isTrue();

        assertThat(OwnerRecord.isOwnedBy(body, RECORD, second, 42, 777)).isFalse();
        assertThat(OwnerRecord.startTime(body, RECORD, second))
                .isEqualTo(ProcessProbe.UNKNOWN_START_TIME);

        OwnerRecord.publishIdentity(body, RECORD, second, 777);
        assertThat(OwnerRecord.isOwnedBy(body, RECORD, second, 42, 777)).isTrue();
    }

    @Test
    void aPublisherWhoseRecordMovedOnWritesNothing() {
        long first = OwnerRecord.ownerWord(42, 1);
        OwnerRecord.claim(body, RECORD, 0, first, 777, () -> 1);
        assertThat(OwnerRecord.release(body, RECORD, first)).isTrue();
        long second = OwnerRecord.ownerWord(43, 2);
        assertThat(OwnerRecord.claim(body, RECORD, OwnerRecord.freed(first), second, 888, () -> 1))
                .isTrue();
        long identity = body.getLongVolatile(RECORD + OwnerRecord.IDENTITY_OFFSET);

        // The first owner, paused past its ownership, publishes late.
        OwnerRecord.publishIdentity(body, RECORD, first, 777);

        assertThat(body.getLongVolatile(RECORD + OwnerRecord.IDENTITY_OFFSET)).isEqualTo(identity);
        assertThat(OwnerRecord.startTime(body, RECORD, second)).isEqualTo(888);
    }

    @Test
    void publishingTheSameIdentityAgainIsANoOp() {
        long word = OwnerRecord.ownerWord(42, 1);
        OwnerRecord.claim(body, RECORD, 0, word, 777, () -> 1);
        long identity = body.getLongVolatile(RECORD + OwnerRecord.IDENTITY_OFFSET);

        OwnerRecord.publishIdentity(body, RECORD, word, 777);

        assertThat(body.getLongVolatile(RECORD + OwnerRecord.IDENTITY_OFFSET)).isEqualTo(identity);
        assertThat(identity).isEqualTo((1L << 32) | 777);
    }

    // ----------------------------------------------------------- claims of a free record

    /** Four records laid out in the buffer; the tables below use the first three. */
    static final IntUnaryOperator OFFSET = i -> i * OwnerRecord.LENGTH;

    private long word(int index) {
        return OwnerRecord.ownerWord(body, OFFSET.applyAsInt(index));
    }

    @Test
    void theFirstFreeRecordIsClaimedUnderItsNextGeneration() {
        OwnerRecord.claim(body, 0, 0, OwnerRecord.ownerWord(7, 1), 70, () -> 1);
        // record 1: released before, so its key is kept and the next claim raises it
        long held = OwnerRecord.ownerWord(8, 5);
        OwnerRecord.claim(body, OFFSET.applyAsInt(1), 0, held, 80, () -> 1);
        OwnerRecord.release(body, OFFSET.applyAsInt(1), held);

        OwnerRecord.Claimed claimed = OwnerRecord.claimFirstFree(body, 3, OFFSET, 9, 90, () -> 4);

        assertThat(claimed).isNotNull();
        assertThat(claimed.index()).isEqualTo(1);
        assertThat(claimed.ownerWord()).isEqualTo(OwnerRecord.ownerWord(9, 6));
        assertThat(word(1)).isEqualTo(claimed.ownerWord());
        assertThat(OwnerRecord.heartbeat(body, OFFSET.applyAsInt(1))).isEqualTo(4);
        assertThat(OwnerRecord.isOwnedBy(body, OFFSET.applyAsInt(1), claimed.ownerWord(), 9, 90))
                .isTrue();
        assertThat(word(0)).isEqualTo(OwnerRecord.ownerWord(7, 1));
    }

    @Test
    void aFullTableYieldsNullAndNothingPastItsCountIsTouched() {
        for (int i = 0; i < 3; i++) {
            OwnerRecord.claim(
                    body, OFFSET.applyAsInt(i), 0, OwnerRecord.ownerWord(7 + i, 1), 1, () -> 1);
        }
        // the fourth record is free, but outside the table of three

        assertThat(OwnerRecord.claimFirstFree(body, 3, OFFSET, 9, 90, () -> 1)).isNull();
        assertThat(word(3)).isZero();
        assertThat(OwnerRecord.claimFirstFree(body, 0, OFFSET, 9, 90, () -> 1)).isNull();
    }

    @Test
    void theSameProcessReclaimsAFreedRecordInOneCasUnderTheSameKey() {
        long mine = OwnerRecord.ownerWord(9, 3);
        OwnerRecord.claim(body, 0, 0, mine, 90, () -> 5);
        OwnerRecord.release(body, 0, mine);
        OwnerRecord.beat(body, 0, 2); // the shortcut publishes no heartbeat: this stays

        long again = OwnerRecord.claimFree(body, 0, OwnerRecord.freed(mine), 9, 90, () -> 100);

        assertThat(again).isEqualTo(mine);
        assertThat(word(0)).isEqualTo(mine);
        assertThat(OwnerRecord.heartbeat(body, 0)).isEqualTo(2);
        assertThat(OwnerRecord.isOwnedBy(body, 0, mine, 9, 90)).isTrue();
    }

    @Test
    void anotherProcessClaimsAFreedRecordUnderTheNextKeyWithItsOwnIdentity() {
        long theirs = OwnerRecord.ownerWord(9, 3);
        OwnerRecord.claim(body, 0, 0, theirs, 90, () -> 5);
        OwnerRecord.release(body, 0, theirs);

        // Same PID, another start time: a new process that reused the PID.
        long mine = OwnerRecord.claimFree(body, 0, OwnerRecord.freed(theirs), 9, 91, () -> 100);

        assertThat(mine).isEqualTo(OwnerRecord.ownerWord(9, 4));
        assertThat(word(0)).isEqualTo(mine);
        assertThat(OwnerRecord.heartbeat(body, 0)).isEqualTo(100);
        assertThat(OwnerRecord.isOwnedBy(body, 0, mine, 9, 91)).isTrue();
    }

    @Test
    void onlyAStaleOrADeadOwnerIsReclaimable() {
        assertThat(OwnerStatus.STALE.isReclaimable()).isTrue();
        assertThat(OwnerStatus.DEAD.isReclaimable()).isTrue();
        assertThat(OwnerStatus.LIVE.isReclaimable()).isFalse();
        assertThat(OwnerStatus.FREE.isReclaimable()).isFalse();
    }

    @Test
    void aFreedRecordPastTheFirstIsReclaimedInOneCasFromItsOwnIdentityWord() {
        // Record 0's words end right before record 1's: reading anything but record 1's own
        // identity word would miss the shortcut and raise the key.
        int second = OFFSET.applyAsInt(1);
        OwnerRecord.claim(body, 0, 0, OwnerRecord.ownerWord(7, 1), 70, () -> 1);
        long mine = OwnerRecord.ownerWord(9, 3);
        OwnerRecord.claim(body, second, 0, mine, 90, () -> 5);
        OwnerRecord.release(body, second, mine);

        long again = OwnerRecord.claimFree(body, second, OwnerRecord.freed(mine), 9, 90, () -> 100);

        assertThat(again).isEqualTo(mine);
        assertThat(word(1)).isEqualTo(mine);
        assertThat(OwnerRecord.heartbeat(body, second)).isEqualTo(5);
        assertThat(word(0)).isEqualTo(OwnerRecord.ownerWord(7, 1));
    }

    @Test
    void aNeverClaimedRecordIsNeverReclaimedUnderKeyZero() {
        // Key 0 with start time 0 would match the zeroed identity word of a new record.
        long mine = OwnerRecord.claimFree(body, 0, 0, 9, 0, () -> 1);

        assertThat(mine).isEqualTo(OwnerRecord.ownerWord(9, 1));
        assertThat(OwnerRecord.heartbeat(body, 0)).isEqualTo(1);
    }

    @Test
    void aClaimFreeFromAWordThatMovedOnLosesOnBothPaths() {
        long mine = OwnerRecord.ownerWord(9, 3);
        OwnerRecord.claim(body, 0, 0, mine, 90, () -> 5);
        OwnerRecord.release(body, 0, mine);
        long freed = OwnerRecord.freed(mine);
        long rival = OwnerRecord.ownerWord(10, 3);
        assertThat(body.compareAndSetLong(0, freed, rival)).isTrue();

        assertThat(OwnerRecord.claimFree(body, 0, freed, 9, 90, () -> 1))
                .isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(OwnerRecord.claimFree(body, 0, freed, 9, 91, () -> 1))
                .isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(word(0)).isEqualTo(rival);
    }

    // --------------------------------------------------- CASes lost between the read and the CAS

    long identity() {
        return body.getLongVolatile(RECORD + OwnerRecord.IDENTITY_OFFSET);
    }

    @Test
    void anIdentityCasLostToALatePublisherIsRetriedWhileTheRecordIsStillOurs() {
        long mine = OwnerRecord.ownerWord(42, 2);
        // The new owner has read the identity word (nothing yet) and is about to CAS it.
        StepGate<Boolean> owner =
                StepGate.holdAt(
                        Point.IDENTITY_READ,
                        () -> OwnerRecord.claim(body, RECORD, 0, mine, 777, () -> 5));
        // A paused ex-owner's publication of key 1 lands in between.
        body.setLongVolatile(RECORD + OwnerRecord.IDENTITY_OFFSET, (1L << 32) | 555);

        assertThat(owner.release()).isTrue();

        assertThat(identity()).isEqualTo((2L << 32) | 777);
        assertThat(OwnerRecord.startTime(body, RECORD, mine)).isEqualTo(777);
        assertThat(OwnerRecord.isOwnedBy(body, RECORD, mine, 42, 777)).isTrue();
    }

    @Test
    void anIdentityCasLostWhileTheRecordMovedOnIsNotRetried() {
        long mine = OwnerRecord.ownerWord(42, 2);
        StepGate<Boolean> owner =
                StepGate.holdAt(
                        Point.IDENTITY_READ,
                        () -> OwnerRecord.claim(body, RECORD, 0, mine, 777, () -> 5));
        // Judged dead meanwhile and taken over; the successor published its own identity.
        long next = OwnerRecord.ownerWord(43, 3);
        assertThat(body.compareAndSetLong(RECORD, mine, next)).isTrue();
        body.setLongVolatile(RECORD + OwnerRecord.IDENTITY_OFFSET, (3L << 32) | 888);

        assertThat(owner.release()).isTrue(); // it did win, one key ago

        assertThat(identity()).isEqualTo((3L << 32) | 888);
        assertThat(OwnerRecord.startTime(body, RECORD, next)).isEqualTo(888);
    }

    @Test
    void aHeartbeatCasLostToALowerRaiseIsRetriedUpToTheOwnersValue() {
        body.setLongVolatile(RECORD + OwnerRecord.HEARTBEAT_OFFSET, 10);
        // The claimant read 10 and is about to raise it to 50.
        StepGate<Boolean> owner =
                StepGate.holdAt(
                        Point.HEARTBEAT_READ,
                        () ->
                                OwnerRecord.claim(
                                        body,
                                        RECORD,
                                        0,
                                        OwnerRecord.ownerWord(42, 1),
                                        1,
                                        () -> 50));
        body.setLongVolatile(RECORD + OwnerRecord.HEARTBEAT_OFFSET, 20); // a late, lower raise

        assertThat(owner.release()).isTrue();

        assertThat(OwnerRecord.heartbeat(body, RECORD)).isEqualTo(50);
    }

    @Test
    void aHeartbeatCasLostToAHigherRaiseLeavesTheHigherOne() {
        body.setLongVolatile(RECORD + OwnerRecord.HEARTBEAT_OFFSET, 10);
        StepGate<Void> raiser =
                StepGate.holdAt(
                        Point.HEARTBEAT_READ,
                        () -> {
                            OwnerRecord.raiseHeartbeat(body, RECORD, 50);
                            return null;
                        });
        body.setLongVolatile(RECORD + OwnerRecord.HEARTBEAT_OFFSET, 70);

        raiser.release();

        assertThat(OwnerRecord.heartbeat(body, RECORD)).isEqualTo(70);
    }

    @Test
    void aTableClaimThatLosesItsCasGoesOnToTheNextFreeRecord() {
        IntUnaryOperator offset = i -> i * OwnerRecord.LENGTH;
        // Held after judging record 0 free, before its CAS.
        StepGate<OwnerRecord.Claimed> claimant =
                StepGate.holdAt(
                        Point.JUDGED,
                        () -> OwnerRecord.claimFirstFree(body, 3, offset, 9, 90, () -> 1));
        long rival = OwnerRecord.ownerWord(7, 1);
        assertThat(OwnerRecord.claim(body, 0, 0, rival, 70, () -> 1)).isTrue();

        OwnerRecord.Claimed claimed = claimant.release();

        assertThat(claimed).isNotNull();
        assertThat(claimed.index()).isEqualTo(1);
        assertThat(OwnerRecord.ownerWord(body, 0)).isEqualTo(rival);
        assertThat(OwnerRecord.ownerWord(body, offset.applyAsInt(1)))
                .isEqualTo(claimed.ownerWord());
    }
}
