package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The intent lock on a plain buffer, with holders planted as a dead or live process leaves them,
 * and its turns: a holder re-taking the lock in a loop lets a waiting thread in, and a waiter's
 * flag never blocks the lock once its thread is gone, frozen or has given up.
 */
class IntentLockTest {
    static final int BASE = 64;
    static final int ENTRIES = 4;

    final AtomicBuffer body =
            new AtomicBuffer(ByteBuffer.allocateDirect(1024).order(ByteOrder.LITTLE_ENDIAN));
    final IntentLock lock = new IntentLock(body, BASE, ENTRIES, 16, "test lock");

    static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }

    void plantHolder(long pid) {
        plantHolder(body, pid);
    }

    static void plantHolder(AtomicBuffer body, long pid) {
        body.setLongVolatile(BASE, OwnerRecord.ownerWord(pid, 7));
    }

    void plantEntry(int i, long offset, long value) {
        body.setLongPlain(BASE + IntentLock.ENTRIES_OFFSET + 16 * i, offset);
        body.setLongPlain(BASE + IntentLock.ENTRIES_OFFSET + 16 * i + 8, value);
    }

    @Test
    void aCommittedStepIsAppliedInOrderAndTheLockReleased() {
        lock.lock(1_000_000_000L);
        lock.stage(0, 1);
        lock.stage(8, 2);
        lock.stage(0, 3);
        body.setLongPlain(lock.payloadOffset(), 0x1122334455667788L);
        lock.stageCopy(16, 8);
        lock.commit();
        lock.unlock();
        assertThat(body.getLongVolatile(0)).isEqualTo(3);
        assertThat(body.getLongVolatile(8)).isEqualTo(2);
        assertThat(body.getLongVolatile(16)).isEqualTo(0x1122334455667788L);
        assertThat(lock.holderPid()).isZero();
        assertThat(lock.repairs()).isZero();
    }

    @Test
    void aDeadHoldersSealedStepIsReplayedByTheNextHolder() throws Exception {
        plantHolder(deadPid());
        plantEntry(0, 0, 41);
        plantEntry(1, 8, 42);
        body.setLongVolatile(BASE + IntentLock.INTENT_OFFSET, (0x5EA1EDL << 32) | 2);
        lock.lock(10_000_000_000L);
        assertThat(body.getLongVolatile(0)).isEqualTo(41);
        assertThat(body.getLongVolatile(8)).isEqualTo(42);
        assertThat(body.getLongVolatile(BASE + IntentLock.INTENT_OFFSET)).isZero();
        assertThat(lock.repairs()).isEqualTo(1);
        lock.unlock();
    }

    @Test
    void aDeadHoldersUnsealedStepIsVoid() throws Exception {
        plantHolder(deadPid());
        plantEntry(0, 0, 41);
        lock.lock(10_000_000_000L);
        assertThat(body.getLongVolatile(0)).isZero();
        assertThat(lock.repairs()).isZero();
        lock.unlock();
    }

    @Test
    void aSealedIntentAimedOutsideTheBodyOrAtTheLockIsRefusedWhole() throws Exception {
        plantHolder(deadPid());
        plantEntry(0, 0, 41);
        plantEntry(1, BASE + IntentLock.INTENT_OFFSET, 0);
        body.setLongVolatile(BASE + IntentLock.INTENT_OFFSET, (0x5EA1EDL << 32) | 2);
        assertThatThrownBy(() -> lock.lock(10_000_000_000L))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("entry 1 targets offset " + (BASE + 24));
        assertThat(body.getLongVolatile(0)).as("nothing applied").isZero();

        body.setLongVolatile(BASE + IntentLock.INTENT_OFFSET, (0x5EA1EDL << 32) | 99);
        assertThatThrownBy(() -> new IntentLock(body, BASE, ENTRIES, 16, "t").lock(1_000_000_000L))
                .hasMessageContaining("entry count 99 exceeds the limit 4");
    }

    @Test
    void aLiveHolderIsWaitedForBoundedlyAndNamed() {
        plantHolder(1); // init: alive, and never ours
        assertThatThrownBy(() -> lock.lock(50_000_000L))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("held by live PID 1")
                .hasMessageContaining("test lock");
    }

    @Test
    void anUncontendedRelockKeepsTheKeyAndTheIdentity() {
        lock.lock(1_000_000_000L);
        long first = OwnerRecord.ownerWord(body, BASE);
        long identity = body.getLongVolatile(BASE + OwnerRecord.IDENTITY_OFFSET);
        lock.unlock();
        lock.lock(1_000_000_000L);
        // claimFree: the free word's key already names this process, so one CAS, same word.
        assertThat(OwnerRecord.ownerWord(body, BASE)).isEqualTo(first);
        assertThat(body.getLongVolatile(BASE + OwnerRecord.IDENTITY_OFFSET)).isEqualTo(identity);
        assertThat(OwnerRecord.isOwnedBy(body, BASE, first, lock.holderPid(), ownStartTime()))
                .isTrue();
        lock.unlock();
        assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(body, BASE))).isZero();
    }

    static long ownStartTime() {
        return OwnerRecord.startTimeOf(ProcessHandle.current().pid());
    }

    @Test
    void theHookRunsAfterEveryAcquisitionAndKnowsATakeover() throws Exception {
        List<Boolean> calls = new ArrayList<>();
        IntentLock hooked =
                new IntentLock(body, BASE, ENTRIES, 16, "hooked lock", calls::add, () -> "busy");
        hooked.lock(1_000_000_000L);
        hooked.unlock();
        plantHolder(deadPid());
        hooked.lock(10_000_000_000L);
        hooked.unlock();
        assertThat(calls).containsExactly(false, true);
    }

    @Test
    void aThrowingHookLeavesTheLockFreeForTheNextWriter() {
        IntentLock failing =
                new IntentLock(
                        body,
                        BASE,
                        ENTRIES,
                        16,
                        "failing lock",
                        tookOver -> {
                            throw new IllegalStateException("repair failed");
                        },
                        null);
        assertThatThrownBy(() -> failing.lock(1_000_000_000L)).hasMessage("repair failed");
        assertThat(failing.holderPid()).isZero();
        assertThat(failing.holderStatus()).isEqualTo(OwnerStatus.FREE);
    }

    @Test
    void theTimeoutSaysWhatTheHolderIsDoingAndWhenItIsThisProcess() {
        IntentLock described =
                new IntentLock(body, BASE, ENTRIES, 16, "described lock", null, () -> "inserting");
        plantHolder(ProcessHandle.current().pid()); // as another thread of this process
        assertThat(described.holderStatus()).isEqualTo(OwnerStatus.LIVE);
        assertThatThrownBy(() -> described.lock(50_000_000L))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("held by live PID " + ProcessHandle.current().pid())
                .hasMessageContaining("(this process), inserting");
    }

    @Test
    void aBadIntentWordIsNamedByTheBodyCheck() {
        assertThat(IntentLock.intentProblem(body, BASE, ENTRIES)).isNull();
        body.setLongVolatile(BASE + IntentLock.INTENT_OFFSET, (0x5EA1EDL << 32) | ENTRIES);
        assertThat(IntentLock.intentProblem(body, BASE, ENTRIES)).isNull();
        body.setLongVolatile(BASE + IntentLock.INTENT_OFFSET, (0x5EA1EDL << 32) | (ENTRIES + 1));
        assertThat(IntentLock.intentProblem(body, BASE, ENTRIES))
                .contains("at most " + ENTRIES + " entries");
        body.setLongVolatile(BASE + IntentLock.INTENT_OFFSET, 3);
        assertThat(IntentLock.intentProblem(body, BASE, ENTRIES)).contains("0x3");
    }

    // ------------------------------------------------------------------------------------- turns

    static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(60);

    /** Holder re-acquisitions in the loop; without turns the waiter saw none of its windows. */
    static final int RELOCKS = Integer.getInteger("cxc.intentlock.relocks", 100_000);

    IntentLock newLock(String what) {
        return new IntentLock(body, BASE, 4, 16, what);
    }

    long waiterWord() {
        return body.getLongVolatile(BASE + IntentLock.WAITER_OFFSET);
    }

    @Test
    void aHolderReTakingTheLockInALoopLetsTheWaiterInAtItsNextRelease() throws Exception {
        IntentLock holder = newLock("holder's view");
        IntentLock waiter = newLock("waiter's view");
        AtomicLong relocks = new AtomicLong();
        AtomicLong relocksWhenWaiterGotIt = new AtomicLong(-1);
        holder.lock(LONG_WAIT);
        CompletableFuture<Void> waiting =
                CompletableFuture.runAsync(
                        () -> {
                            waiter.lock(LONG_WAIT);
                            relocksWhenWaiterGotIt.set(relocks.get());
                            waiter.unlock();
                        });
        try {
            // The waiter has spun, parked and asked for the next turn.
            await().atMost(Duration.ofSeconds(60)).until(() -> waiterWord() != 0);
            for (int i = 0; i < RELOCKS; i++) {
                holder.unlock();
                holder.lock(LONG_WAIT);
                relocks.incrementAndGet();
            }
        } finally {
            holder.unlock();
        }
        waiting.get(60, TimeUnit.SECONDS);
        // The flag was up before the first release: the holder's first re-take waited its turn.
        assertThat(relocksWhenWaiterGotIt.get()).isZero();
        assertThat(waiterWord()).as("the waiter cleared its flag").isZero();
    }

    @Test
    void aDeadWaitersFlagIsClearedByTheNextClaimant() throws Exception {
        long dead = IntentLockTest.deadPid();
        body.setLongVolatile(BASE + IntentLock.WAITER_OFFSET, (7L << 32) | dead);
        IntentLock lock = newLock("lock");
        lock.lock(LONG_WAIT);
        lock.unlock();
        assertThat(waiterWord()).isZero();
    }

    @Test
    void aLiveWaiterThatNeverTakesItsTurnIsPassedOverAfterTheCourtesy() {
        // PID 1 is alive and never waits on this lock: a frozen waiter, or a dead one's PID reused.
        body.setLongVolatile(BASE + IntentLock.WAITER_OFFSET, (7L << 32) | 1);
        IntentLock lock = newLock("lock");
        lock.lock(LONG_WAIT);
        assertThat(waiterWord()).isZero();
        lock.unlock();
    }

    @Test
    void aWaiterThatTimesOutLeavesNoFlag() {
        IntentLockTest.plantHolder(body, 1); // alive, never ours
        IntentLock lock = newLock("lock");
        assertThatThrownBy(() -> lock.lock(50_000_000L))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("held by live PID 1");
        assertThat(waiterWord()).isZero();
    }

    @Test
    void aTimeoutOnAFreeLockLeftToAnotherWaiterNamesThatWaiter() {
        // A live waiter (PID 1) is owed the turn; a claimant whose wait is shorter than the
        // courtesy times out naming it rather than a holder.
        body.setLongVolatile(BASE + IntentLock.WAITER_OFFSET, (7L << 32) | 1);
        IntentLock lock = newLock("lock");
        assertThatThrownBy(() -> lock.lock(50_000_000L))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("free but left to the waiting PID 1");
        assertThat(waiterWord()).as("another waiter's flag stays").isEqualTo((7L << 32) | 1);
    }
}
