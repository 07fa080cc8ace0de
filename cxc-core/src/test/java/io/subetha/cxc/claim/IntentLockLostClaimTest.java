package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.StepGate;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * A claimant of the intent lock whose CAS loses (held with a {@link StepGate} between judging the
 * word and its CAS while another claimant takes the lock) does not believe it holds the lock, on
 * the free path and on a dead holder's take-over alike; and what a waiter's flag becomes once it
 * has the lock.
 */
class IntentLockLostClaimTest {

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
}
