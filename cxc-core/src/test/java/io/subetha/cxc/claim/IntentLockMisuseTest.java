package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * The intent lock's limits and what it says when it is misused: its size, the arguments it is built
 * with, a step staging more than it may, an unlock of a lock taken from under the caller, and a
 * holder carrying this process's PID, which is never taken over (another thread of ours).
 */
class IntentLockMisuseTest {

    static final int BASE = 64;
    static final long OWN_PID = ProcessHandle.current().pid();

    final AtomicBuffer body =
            new AtomicBuffer(ByteBuffer.allocateDirect(1024).order(ByteOrder.LITTLE_ENDIAN));

    @Test
    void aLockTakesItsWordsItsEntriesAndItsPayloadRoundedToWholeWords() {
        assertThat(IntentLock.length(0, 0)).isEqualTo(48);
        assertThat(IntentLock.length(4, 16)).isEqualTo(48 + 64 + 16);
        assertThat(IntentLock.length(1, 1)).isEqualTo(48 + 16 + 8);
        assertThat(IntentLock.align8(0)).isZero();
        assertThat(IntentLock.align8(9)).isEqualTo(16);
        assertThat(IntentLock.align8(16)).isEqualTo(16);
        assertThat(new IntentLock(body, BASE, 4, 16, "l").payloadOffset())
                .isEqualTo(BASE + 48 + 64);
    }

    @Test
    void aMisalignedBaseOrNegativeSizesAreRefusedNamingEach() {
        assertThatThrownBy(() -> new IntentLock(body, 4, 1, 0, "l"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "an intent lock needs an 8-aligned base and non-negative sizes, got base 4,"
                                + " 1 entries, 0 payload bytes");
        assertThatThrownBy(() -> new IntentLock(body, BASE, -1, 0, "l"))
                .hasMessageContaining("-1 entries");
        assertThatThrownBy(() -> new IntentLock(body, BASE, 1, -1, "l"))
                .hasMessageContaining("-1 payload bytes");
        assertThat(new IntentLock(body, 0, 0, 0, "smallest").holderPid()).isZero();
    }

    @Test
    void aStepStagesAtMostItsEntriesAndCopiesAtMostThePayload() {
        IntentLock lock = new IntentLock(body, BASE, 2, 16, "small lock");
        lock.lock(1_000_000_000L);
        lock.stage(0, 1);
        lock.stageCopy(8, 16); // exactly the payload
        assertThatThrownBy(() -> lock.stage(16, 3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("small lock: a step stages at most 2");
        lock.commit();
        // The commit starts a new step: two entries again.
        assertThatThrownBy(() -> lock.stageCopy(8, 17))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("small lock: copy of 17 bytes");
        lock.stage(0, 5);
        lock.stage(16, 6);
        lock.commit();
        lock.unlock();
        assertThat(body.getLongVolatile(0)).isEqualTo(5);
        assertThat(body.getLongVolatile(16)).isEqualTo(6);
    }

    @Test
    void aNewAcquisitionStartsWithNothingStaged() {
        IntentLock lock = new IntentLock(body, BASE, 1, 0, "lock");
        lock.lock(1_000_000_000L);
        lock.stage(0, 1);
        lock.unlock(); // abandons the step
        lock.lock(1_000_000_000L);
        lock.stage(8, 2); // one entry free again
        lock.commit();
        lock.unlock();
        assertThat(body.getLongVolatile(0)).isZero();
        assertThat(body.getLongVolatile(8)).isEqualTo(2);
    }

    @Test
    void anUnlockOfALockNoLongerHeldSaysSoAndTouchesNothing() {
        IntentLock lock = new IntentLock(body, BASE, 1, 0, "stolen lock");
        lock.lock(1_000_000_000L);
        long taken = OwnerRecord.ownerWord(1, 99);
        body.setLongVolatile(BASE, taken); // taken over meanwhile
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "the writer lock of stolen lock was not held by this process any more:"
                                + " owner word 0x"
                                + Long.toHexString(taken));
        assertThat(OwnerRecord.ownerWord(body, BASE)).isEqualTo(taken);
        assertThat(lock.holderPid()).isEqualTo(1);
        assertThat(lock.holderStatus()).isEqualTo(OwnerStatus.LIVE);
    }

    @Test
    void aDeadHolderIsReportedDeadAndAWaitersPidIsReadable() throws Exception {
        IntentLock lock = new IntentLock(body, BASE, 1, 0, "lock");
        assertThat(lock.waiterPid()).isZero();
        IntentLockTest.plantHolder(body, IntentLockTest.deadPid());
        assertThat(lock.holderStatus()).isEqualTo(OwnerStatus.DEAD);
        body.setLongVolatile(BASE + IntentLock.WAITER_OFFSET, (7L << 32) | 4242);
        assertThat(lock.waiterPid()).isEqualTo(4242);
    }

    @Test
    void aHolderWithThisProcesssPidIsNeverTakenOverEvenIfItsIdentityIsAnothers() {
        // This PID under a start time that is not ours: /proc judges such a holder reused (dead),
        // but a holder of our own PID is another thread of ours, or was before we started.
        long word = OwnerRecord.ownerWord(OWN_PID, 7);
        body.setLongVolatile(BASE, word);
        long otherStart = (OwnerRecord.startTimeOf(OWN_PID) + 1) & 0xFFFF_FFFFL;
        body.setLongVolatile(BASE + OwnerRecord.IDENTITY_OFFSET, (7L << 32) | otherStart);
        IntentLock lock = new IntentLock(body, BASE, 1, 0, "own lock");
        assertThat(lock.holderStatus()).isEqualTo(OwnerStatus.DEAD);
        assertThatThrownBy(() -> lock.lock(50_000_000L))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("held by live PID " + OWN_PID + " (this process)")
                .hasMessageContaining("(taken over only once that process is dead)");
        assertThat(OwnerRecord.ownerWord(body, BASE)).isEqualTo(word);
    }

    @Test
    void aFlagOfAnotherThreadOfThisProcessIsNeverClearedAsDead() {
        // A waiter of our own PID (another thread, stopped or slow) is alive by definition: only
        // the courtesy voids its flag, which this short wait does not reach.
        long flag = (0x7FFF_FFF0L << 32) | OWN_PID; // a thread id no test thread has
        body.setLongVolatile(BASE + IntentLock.WAITER_OFFSET, flag);
        IntentLock lock = new IntentLock(body, BASE, 1, 0, "lock");
        assertThatThrownBy(() -> lock.lock(50_000_000L))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("free but left to the waiting PID " + OWN_PID)
                .hasMessageContaining("whose turn it is");
        assertThat(body.getLongVolatile(BASE + IntentLock.WAITER_OFFSET)).isEqualTo(flag);
    }

    @Test
    void aTimeoutSaysHowLongItWaitedAndWhetherThisThreadWasNextInTurn() {
        IntentLockTest.plantHolder(body, 1); // init: alive, never ours
        IntentLock lock = new IntentLock(body, BASE, 1, 0, "named lock");
        assertThatThrownBy(() -> lock.lock(60_000_000L))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageStartingWith("waited ")
                .hasMessageContaining(" ms for the writer lock of named lock, held by live PID 1")
                .hasMessageNotContaining("(this process)")
                .hasMessageEndingWith("; this thread was next in turn");
    }
}
