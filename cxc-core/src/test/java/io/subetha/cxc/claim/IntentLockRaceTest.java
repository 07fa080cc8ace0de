package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.StepGate;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Claims of the intent lock raced at their exact steps: a claimant whose CAS loses (held with a
 * {@link StepGate} between judging the word and its CAS while another claimant takes the lock) does
 * not believe it holds the lock, on the free path, on a dead holder's take-over and on a waiter's
 * own claim of a freed lock alike; a waiter that flagged itself and then takes the released lock
 * clears its flag and runs what every acquisition runs (replay, hook); another live waiter's flag
 * outlasts the courtesy while the lock is held; and a sealed copy of no bytes, or of fewer than
 * eight onto an odd offset, is replayed, not refused.
 */
class IntentLockRaceTest {
    static final int BASE = 64;
    static final long WAIT = 30_000_000_000L;

    /** Shorter than the courtesy (1 s) after which any flag is voided. */
    static final long SHORT = 900_000_000L;

    final AtomicBuffer body =
            new AtomicBuffer(ByteBuffer.allocateDirect(1024).order(ByteOrder.LITTLE_ENDIAN));

    IntentLock newLock(String what) {
        return new IntentLock(body, BASE, 2, 0, what);
    }

    long waiterWord() {
        return body.getLongVolatile(BASE + IntentLock.WAITER_OFFSET);
    }

    @Test
    void aFreeLockWhoseClaimLosesToAnotherIsWaitedForNotTaken() {
        IntentLock mine = newLock("mine");
        IntentLock theirs = newLock("theirs");
        // Never taken before, so no identity of ours: the claim is the full one, held before its
        // CAS.
        StepGate<Void> claimant =
                StepGate.holdAt(
                        Point.JUDGED,
                        () -> {
                            mine.lock(100_000_000L);
                            return null;
                        });
        theirs.lock(WAIT); // another thread of this process takes it meanwhile

        assertThatThrownBy(claimant::release)
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("waited ")
                .hasMessageContaining("writer lock of mine, held by live PID");
        theirs.unlock();
        assertThat(waiterWord()).isZero();
    }

    @Test
    void aDeadHoldersTakeOverThatLosesToAnotherIsWaitedForNotTaken() throws Exception {
        IntentLockTest.plantHolder(body, IntentLockTest.deadPid());
        IntentLock mine = newLock("mine");
        IntentLock theirs = newLock("theirs");
        StepGate<Void> claimant =
                StepGate.holdAt(
                        Point.JUDGED,
                        () -> {
                            mine.lock(300_000_000L);
                            return null;
                        });
        theirs.lock(WAIT); // judges the same dead holder and wins the take-over

        assertThatThrownBy(claimant::release).isInstanceOf(CxcTimeoutException.class);
        assertThat(OwnerRecord.key(OwnerRecord.ownerWord(body, BASE))).isEqualTo(8);
        theirs.unlock();
    }

    @Test
    void aWaiterThatTookOverADeadHolderClearsItsOwnFlag() throws Exception {
        IntentLockTest.plantHolder(body, IntentLockTest.deadPid());
        IntentLock lock = newLock("lock");
        lock.lock(WAIT); // spins, flags itself, then finds the holder dead
        assertThat(waiterWord()).isZero();
        lock.unlock();
    }

    @Test
    void aDeadWaitersFlagIsClearedWellBeforeTheCourtesy() throws Exception {
        long dead = IntentLockTest.deadPid();
        body.setLongVolatile(BASE + IntentLock.WAITER_OFFSET, (7L << 32) | dead);
        IntentLock lock = newLock("lock");
        lock.lock(SHORT); // the dead check comes every millisecond, the courtesy after a second
        assertThat(waiterWord()).isZero();
        lock.unlock();
    }

    @Test
    void aTimeoutWhileAnotherWaitersTurnDoesNotSayThisThreadWasNext() {
        long flag = (7L << 32) | 1; // init's, alive: its turn
        body.setLongVolatile(BASE + IntentLock.WAITER_OFFSET, flag);
        IntentLock lock = newLock("lock");
        assertThatThrownBy(() -> lock.lock(50_000_000L))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageNotContaining("this thread was next in turn");
        assertThat(waiterWord()).isEqualTo(flag);
    }

    @Test
    void aTimeoutSaysItWaitedAtLeastItsTimeout() {
        IntentLockTest.plantHolder(body, 1);
        IntentLock lock = newLock("lock");
        String message = "";
        try {
            lock.lock(60_000_000L);
        } catch (CxcTimeoutException e) {
            message = e.getMessage();
        }
        long waitedMillis =
                Long.parseLong(message.substring("waited ".length(), message.indexOf(" ms ")));
        assertThat(waitedMillis).isBetween(60L, 600_000L);
    }

    @Test
    void theBodyCheckNamesWhereTheBadIntentWordIs() {
        body.setLongVolatile(BASE + IntentLock.INTENT_OFFSET, 3);
        assertThat(IntentLock.intentProblem(body, BASE, 2))
                .isEqualTo(
                        "intent word 0x3 at body offset "
                                + (BASE + IntentLock.INTENT_OFFSET)
                                + ": neither 0 nor sealed with at most 2 entries");
    }

    // ---------------------------------------------------- the waiter's own claim of a freed lock

    static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(60);
    static final long SEALED = 0x5EA1EDL << 32;
    static final long COPY = 1L << 62;

    @Test
    void aFlaggedWaiterThatTakesTheReleasedLockClearsItsFlagAndRunsTheHook() throws Exception {
        IntentLock holder = new IntentLock(body, BASE, 2, 0, "holder's view");
        List<Boolean> hookCalls = new CopyOnWriteArrayList<>();
        IntentLock waiter = new IntentLock(body, BASE, 2, 0, "waiter's view", hookCalls::add, null);
        holder.lock(LONG_WAIT);
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> waiter.lock(LONG_WAIT));
        try {
            // The waiter spun, parked and asked for the next turn.
            await().atMost(Duration.ofSeconds(60)).until(() -> waiterWord() != 0);
        } finally {
            holder.unlock();
        }
        waiting.get(60, TimeUnit.SECONDS);
        assertThat(waiterWord()).as("the waiter cleared its own flag").isZero();
        assertThat(hookCalls).as("one acquisition, of a free lock").containsExactly(false);
        assertThat(waiter.holderPid()).isEqualTo(ProcessHandle.current().pid());
        waiter.unlock();
    }

    @Test
    void aWaitersClaimOfTheFreedLockThatLosesToAnotherIsWaitedForNotTaken() throws Exception {
        // A dead waiter's flag sends the claimant past the fast path; its next dead check clears
        // the flag, and its claim of the free lock (never taken: the full claim) is held there.
        body.setLongVolatile(
                BASE + IntentLock.WAITER_OFFSET, (7L << 32) | IntentLockTest.deadPid());
        IntentLock mine = new IntentLock(body, BASE, 2, 0, "mine");
        IntentLock theirs = new IntentLock(body, BASE, 2, 0, "theirs");
        StepGate<Void> claimant =
                StepGate.holdAt(
                        Point.JUDGED,
                        () -> {
                            // Long enough to reach the held step on a loaded machine.
                            mine.lock(2_000_000_000L);
                            return null;
                        });
        theirs.lock(LONG_WAIT); // another thread takes the free lock meanwhile

        assertThatThrownBy(claimant::release)
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("writer lock of mine, held by live PID");
        assertThat(theirs.holderPid()).isEqualTo(ProcessHandle.current().pid());
        theirs.unlock();
        assertThat(waiterWord()).isZero();
    }

    @Test
    void aLiveWaitersFlagIsKeptAsLongAsTheLockIsHeldHoweverLongAClaimantWaits() {
        IntentLockTest.plantHolder(body, 1); // alive, never ours
        long flag = (7L << 32) | 1; // PID 1 again: a live waiter owed the next turn
        body.setLongVolatile(BASE + IntentLock.WAITER_OFFSET, flag);
        IntentLock lock = new IntentLock(body, BASE, 2, 0, "lock");
        // Past the courtesy, which voids only a flag whose thread leaves a free lock untaken.
        assertThatThrownBy(() -> lock.lock(2 * IntentLock.COURTESY_NANOS))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("held by live PID 1");
        assertThat(waiterWord()).isEqualTo(flag);
    }

    @Test
    void aSealedCopyOfNoBytesIsReplayedNotRefused() throws Exception {
        IntentLockTest.plantHolder(body, IntentLockTest.deadPid());
        int entries = BASE + IntentLock.ENTRIES_OFFSET;
        body.setLongPlain(entries, 0);
        body.setLongPlain(entries + 8, 41);
        body.setLongPlain(entries + 16, COPY | 8);
        body.setLongPlain(entries + 24, 0); // a copy of zero bytes onto offset 8
        body.setLongVolatile(BASE + IntentLock.INTENT_OFFSET, SEALED | 2);
        IntentLock lock = new IntentLock(body, BASE, 2, 16, "lock");

        lock.lock(LONG_WAIT);
        assertThat(body.getLongVolatile(0)).isEqualTo(41);
        assertThat(body.getLongVolatile(8)).isZero();
        assertThat(lock.repairs()).isEqualTo(1);
        lock.unlock();
    }

    @Test
    void aSealedCopyShorterThanAWordOntoAnOddOffsetIsReplayedByteByByte() throws Exception {
        IntentLockTest.plantHolder(body, IntentLockTest.deadPid());
        IntentLock lock = new IntentLock(body, BASE, 2, 16, "lock");
        int payload = lock.payloadOffset();
        for (int i = 0; i < 5; i++) {
            body.putByte(payload + i, (byte) (0x20 + i));
        }
        int entries = BASE + IntentLock.ENTRIES_OFFSET;
        body.setLongPlain(entries, COPY | 3); // five bytes onto offset 3: byte stores only
        body.setLongPlain(entries + 8, 5);
        body.setLongVolatile(BASE + IntentLock.INTENT_OFFSET, SEALED | 1);

        lock.lock(LONG_WAIT);
        for (int i = 0; i < 5; i++) {
            assertThat(body.getByte(3 + i)).isEqualTo((byte) (0x20 + i));
        }
        assertThat(body.getByte(2)).isZero();
        assertThat(body.getByte(8)).isZero();
        assertThat(lock.repairs()).isEqualTo(1);
        lock.unlock();
    }
}
