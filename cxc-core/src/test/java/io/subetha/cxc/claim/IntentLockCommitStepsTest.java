package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.StepGate;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the file holds at each step of a holder's step, where a SIGKILL would leave it: the holder
 * is held with a {@link StepGate} at each point of the protocol (taken, staged, sealed, half
 * applied, applied, cleared) while the test reads the lock's words and the targets, as the next
 * holder would find them.
 */
class IntentLockCommitStepsTest {

    static final int BASE = 64;
    static final int ENTRIES = 4;
    static final long SEALED = 0x5EA1EDL << 32;
    static final long OWN_PID = ProcessHandle.current().pid();
    static final long WAIT = 30_000_000_000L;

    /** Four targets below the lock, and the values one step writes there. */
    static final int[] TARGETS = {0, 8, 16, 24};

    static final long[] VALUES = {11, 22, 33, 44};

    final AtomicBuffer body =
            new AtomicBuffer(ByteBuffer.allocateDirect(1024).order(ByteOrder.LITTLE_ENDIAN));
    final List<Boolean> hookCalls = new ArrayList<>();
    final IntentLock lock =
            new IntentLock(body, BASE, ENTRIES, 16, "stepped lock", hookCalls::add, null);

    long intent() {
        return body.getLongVolatile(BASE + IntentLock.INTENT_OFFSET);
    }

    long target(int i) {
        return body.getLongVolatile(TARGETS[i]);
    }

    long fileEntry(int i, int word) {
        return body.getLongVolatile(BASE + IntentLock.ENTRIES_OFFSET + i * 16 + 8 * word);
    }

    /** One whole step: take, stage four words, commit, release. */
    Void oneStep() {
        lock.lock(WAIT);
        for (int i = 0; i < ENTRIES; i++) {
            lock.stage(TARGETS[i], VALUES[i]);
        }
        lock.commit();
        lock.unlock();
        return null;
    }

    StepGate<Void> holdAt(Point point) {
        return StepGate.holdAt(point, this::oneStep);
    }

    @Test
    void takenTheLockHasReplayedADeadHoldersSealedStepAndRunItsHookBeforeAnythingElse()
            throws Exception {
        IntentLockTest.plantHolder(body, IntentLockTest.deadPid());
        body.setLongPlain(BASE + IntentLock.ENTRIES_OFFSET, 32);
        body.setLongPlain(BASE + IntentLock.ENTRIES_OFFSET + 8, 99);
        body.setLongVolatile(BASE + IntentLock.INTENT_OFFSET, SEALED | 1);

        StepGate<Void> held = holdAt(Point.INTENT_LOCKED);
        assertThat(body.getLongVolatile(32)).isEqualTo(99);
        assertThat(intent()).isZero();
        assertThat(lock.repairs()).isEqualTo(1);
        assertThat(hookCalls).containsExactly(true);
        assertThat(lock.holderPid()).isEqualTo(OWN_PID);
        held.release();
        assertThat(lock.holderPid()).isZero();
    }

    @Test
    void stagedTheEntriesAreInTheFileButNotSealedAndNoTargetIsTouched() {
        StepGate<Void> held = holdAt(Point.INTENT_STAGED);
        for (int i = 0; i < ENTRIES; i++) {
            assertThat(fileEntry(i, 0)).isEqualTo(TARGETS[i]);
            assertThat(fileEntry(i, 1)).isEqualTo(VALUES[i]);
            assertThat(target(i)).isZero();
        }
        assertThat(intent()).as("a crash here voids the step").isZero();
        held.release();
    }

    @Test
    void sealedTheIntentCountsTheEntriesAndNoTargetIsTouchedYet() {
        StepGate<Void> held = holdAt(Point.INTENT_SEALED);
        assertThat(intent()).isEqualTo(SEALED | ENTRIES);
        assertThat(IntentLock.intentProblem(body, BASE, ENTRIES)).isNull();
        for (int i = 0; i < ENTRIES; i++) {
            assertThat(target(i)).isZero();
        }
        held.release();
        for (int i = 0; i < ENTRIES; i++) {
            assertThat(target(i)).isEqualTo(VALUES[i]);
        }
    }

    @Test
    void halfAppliedTheFirstHalfIsWrittenInOrderAndTheRestNot() {
        StepGate<Void> held = holdAt(Point.INTENT_HALF_APPLIED);
        assertThat(target(0)).isEqualTo(VALUES[0]);
        assertThat(target(1)).isEqualTo(VALUES[1]);
        assertThat(target(2)).isZero();
        assertThat(target(3)).isZero();
        assertThat(intent()).isEqualTo(SEALED | ENTRIES);
        held.release();
    }

    @Test
    void appliedEveryTargetIsWrittenAndTheIntentIsStillSealed() {
        StepGate<Void> held = holdAt(Point.INTENT_APPLIED);
        for (int i = 0; i < ENTRIES; i++) {
            assertThat(target(i)).isEqualTo(VALUES[i]);
        }
        assertThat(intent()).isEqualTo(SEALED | ENTRIES);
        held.release();
        assertThat(intent()).isZero();
    }

    @Test
    void clearedTheIntentIsZeroWhileTheLockIsStillHeld() {
        StepGate<Void> held = holdAt(Point.INTENT_CLEARED);
        assertThat(intent()).isZero();
        assertThat(lock.holderPid()).isEqualTo(OWN_PID);
        assertThat(lock.holderStatus()).isEqualTo(OwnerStatus.LIVE);
        held.release();
        assertThat(lock.holderPid()).isZero();
        assertThat(hookCalls).containsExactly(false);
        assertThat(lock.repairs()).isZero();
    }

    @Test
    void aStepOfOneEntryIsSealedAndAppliedWhole() {
        lock.lock(WAIT);
        lock.stage(40, 7);
        StepGate<Void> held =
                StepGate.holdAt(
                        Point.INTENT_HALF_APPLIED,
                        () -> {
                            lock.commit();
                            return null;
                        });
        // Half of one is none: held before the only entry is applied.
        assertThat(body.getLongVolatile(40)).isZero();
        assertThat(intent()).isEqualTo(SEALED | 1);
        held.release();
        assertThat(body.getLongVolatile(40)).isEqualTo(7);
        lock.unlock();
    }
}
