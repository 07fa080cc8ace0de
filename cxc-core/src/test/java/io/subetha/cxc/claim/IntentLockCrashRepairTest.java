package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.StepGate;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The intent lock's crash repair. What the file holds at each step of a holder's step, where a
 * SIGKILL would leave it: the holder is held with a {@link StepGate} at each point of the protocol
 * (taken, staged, sealed, half applied, applied, cleared) while the test reads the lock's words and
 * the targets, as the next holder would find them. And what the next holder replays of a dead
 * holder's sealed intent, and where it draws the line: every entry is checked against the body and
 * the lock's own bytes (each bound at its exact edge) before a single one is applied; copies are
 * replayed byte for byte; an unsealed intent is void; every writer gets a corrupt intent's error,
 * none a timeout.
 */
class IntentLockCrashRepairTest {
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

    // -------------------------------------------------------------- what the next holder replays

    static final int PAYLOAD = 16;
    static final int CAPACITY = 1024;

    /** Where the lock's bytes end: entries, then the payload area. */
    static final int LOCK_END =
            BASE + IntentLock.ENTRIES_OFFSET + ENTRIES * IntentLock.ENTRY_LENGTH + PAYLOAD;

    static final long COPY = 1L << 62;

    static long dead;

    final IntentLock checkedLock = new IntentLock(body, BASE, ENTRIES, PAYLOAD, "checked lock");

    @BeforeAll
    static void reapAChild() throws Exception {
        dead = IntentLockTest.deadPid();
    }

    void plantDeadHolderWithIntent(long intent, long... targetsAndValues) {
        IntentLockTest.plantHolder(body, dead);
        for (int i = 0; i < targetsAndValues.length / 2; i++) {
            int entry = BASE + IntentLock.ENTRIES_OFFSET + i * IntentLock.ENTRY_LENGTH;
            body.setLongPlain(entry, targetsAndValues[2 * i]);
            body.setLongPlain(entry + 8, targetsAndValues[2 * i + 1]);
        }
        body.setLongVolatile(BASE + IntentLock.INTENT_OFFSET, intent);
    }

    void assertRefusedWhole(String message) {
        assertThatThrownBy(() -> checkedLock.lock(WAIT))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("checked lock: the intent left by a dead writer is corrupt")
                .hasMessageContaining(message)
                .hasMessageContaining("nothing of it was applied");
        assertThat(body.getLongVolatile(0)).as("the valid first entry was not applied").isZero();
        assertThat(checkedLock.holderPid()).as("released again for the next writer").isZero();
        assertThat(checkedLock.repairs()).isZero();
    }

    @Test
    void entriesRightUpToEachBoundAreReplayed() {
        plantDeadHolderWithIntent(
                SEALED | 4,
                BASE - 8,
                1, // ends exactly where the lock begins
                LOCK_END,
                2, // begins exactly where the lock ends
                CAPACITY - 8,
                3, // ends exactly at the body's end
                0,
                4);
        checkedLock.lock(WAIT);
        assertThat(body.getLongVolatile(BASE - 8)).isEqualTo(1);
        assertThat(body.getLongVolatile(LOCK_END)).isEqualTo(2);
        assertThat(body.getLongVolatile(CAPACITY - 8)).isEqualTo(3);
        assertThat(body.getLongVolatile(0)).isEqualTo(4);
        assertThat(body.getLongVolatile(BASE + IntentLock.INTENT_OFFSET)).isZero();
        assertThat(checkedLock.repairs()).isEqualTo(1);
        checkedLock.unlock();
    }

    @Test
    void entriesPastTheSealedCountAreLeftoversOfALongerStepAndNeitherCheckedNorApplied() {
        // An earlier step of two entries left its second in the file; the dead holder's last step
        // sealed one. The leftover targets the lock itself: checked, it would refuse the intent.
        plantDeadHolderWithIntent(SEALED | 1, 0, 41, BASE, 42);
        checkedLock.lock(WAIT);
        assertThat(body.getLongVolatile(0)).isEqualTo(41);
        assertThat(checkedLock.repairs()).isEqualTo(1);
        checkedLock.unlock();
    }

    @Test
    void anEntryPastTheBodysEndIsRefused() {
        plantDeadHolderWithIntent(SEALED | 2, 0, 1, CAPACITY, 2);
        assertRefusedWhole("entry 1 targets offset " + CAPACITY + " (body 1024 bytes");
    }

    @Test
    void anEntryOverlappingTheLocksFirstOrLastWordIsRefused() {
        plantDeadHolderWithIntent(SEALED | 2, 0, 1, BASE, 2);
        assertRefusedWhole("entry 1 targets offset " + BASE + " (body 1024 bytes, lock at 64..");
        plantDeadHolderWithIntent(SEALED | 2, 0, 1, LOCK_END - 8, 2);
        assertRefusedWhole("entry 1 targets offset " + (LOCK_END - 8));
    }

    @Test
    void aMisalignedWordEntryIsRefused() {
        plantDeadHolderWithIntent(SEALED | 2, 0, 1, LOCK_END + 4, 2);
        assertRefusedWhole("entry 1 targets offset " + (LOCK_END + 4));
    }

    @Test
    void aMisalignedCopyOfAWordOrMoreIsRefusedWholeNotHalfReplayed() {
        plantDeadHolderWithIntent(SEALED | 2, 0, 1, COPY | (LOCK_END + 4), 8);
        assertRefusedWhole("entry 1 targets offset " + (LOCK_END + 4));
    }

    @Test
    void aNegativeTargetIsRefused() {
        plantDeadHolderWithIntent(SEALED | 2, 0, 1, Long.MIN_VALUE | 8, 2);
        assertRefusedWhole("entry 1 targets offset " + (Long.MIN_VALUE | 8));
    }

    @Test
    void aCopyLongerThanThePayloadAreaOrNegativeIsRefused() {
        plantDeadHolderWithIntent(SEALED | 2, 0, 1, COPY | LOCK_END, PAYLOAD + 1);
        assertRefusedWhole("entry 1 copies 17 bytes, limit 16");
        plantDeadHolderWithIntent(SEALED | 2, 0, 1, COPY | LOCK_END, -1);
        assertRefusedWhole("entry 1 copies -1 bytes, limit 16");
    }

    @Test
    void aCopyEndingPastTheBodyOrIntoTheLockIsRefused() {
        plantDeadHolderWithIntent(SEALED | 2, 0, 1, COPY | (CAPACITY - 8), PAYLOAD);
        assertRefusedWhole("entry 1 targets offset " + (CAPACITY - 8));
        plantDeadHolderWithIntent(SEALED | 2, 0, 1, COPY | (BASE - 8), PAYLOAD);
        assertRefusedWhole("entry 1 targets offset " + (BASE - 8));
    }

    @Test
    void aCopyOfTheWholePayloadAndOneOfAnOddLengthAreReplayedByteForByte() {
        int payload = LOCK_END - PAYLOAD;
        for (int i = 0; i < PAYLOAD; i++) {
            body.putByte(payload + i, (byte) (0x10 + i));
        }
        int tail = CAPACITY - 16; // 13 bytes: one word, then five bytes one by one
        plantDeadHolderWithIntent(SEALED | 2, COPY | LOCK_END, PAYLOAD, COPY | tail, 13);
        checkedLock.lock(WAIT);
        for (int i = 0; i < PAYLOAD; i++) {
            assertThat(body.getByte(LOCK_END + i)).isEqualTo((byte) (0x10 + i));
        }
        assertThat(body.getByte(LOCK_END + PAYLOAD)).as("nothing past the copy").isZero();
        for (int i = 0; i < 13; i++) {
            assertThat(body.getByte(tail + i)).isEqualTo((byte) (0x10 + i));
        }
        assertThat(body.getByte(tail + 13)).as("nothing past the copy").isZero();
        checkedLock.unlock();
    }

    @Test
    void anUnsealedIntentIsClearedAndNothingOfItApplied() {
        plantDeadHolderWithIntent(2, 0, 41, 8, 42); // a count, never sealed
        checkedLock.lock(WAIT);
        assertThat(body.getLongVolatile(0)).isZero();
        assertThat(body.getLongVolatile(8)).isZero();
        assertThat(body.getLongVolatile(BASE + IntentLock.INTENT_OFFSET)).isZero();
        assertThat(checkedLock.repairs()).isZero();
        checkedLock.unlock();
    }

    @Test
    void aSealedIntentOnAFreeLockIsReplayedByItsNextTaker() {
        // A file copied mid-step: the holder's word is free, its sealed step still there.
        plantDeadHolderWithIntent(SEALED | 1, 0, 41);
        body.setLongVolatile(BASE, OwnerRecord.freed(body.getLongVolatile(BASE)));
        checkedLock.lock(WAIT);
        assertThat(body.getLongVolatile(0)).isEqualTo(41);
        assertThat(checkedLock.repairs()).isEqualTo(1);
        checkedLock.unlock();
    }

    @Test
    void everyReplayIsCountedAndACorruptIntentFailsEveryWriterAlike() {
        plantDeadHolderWithIntent(SEALED | 1, 0, 41);
        checkedLock.lock(WAIT);
        checkedLock.unlock();
        plantDeadHolderWithIntent(SEALED | 1, 8, 42);
        checkedLock.lock(WAIT);
        checkedLock.unlock();
        assertThat(checkedLock.repairs()).isEqualTo(2);

        plantDeadHolderWithIntent(SEALED | 1, 4, 43);
        IntentLock other = new IntentLock(body, BASE, ENTRIES, PAYLOAD, "other view");
        for (IntentLock writer : new IntentLock[] {checkedLock, other, checkedLock}) {
            assertThatThrownBy(() -> writer.lock(WAIT))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("entry 0 targets offset 4");
        }
        assertThat(checkedLock.repairs()).isEqualTo(2);
    }
}
