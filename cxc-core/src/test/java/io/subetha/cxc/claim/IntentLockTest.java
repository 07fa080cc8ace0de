package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The intent lock on a plain buffer, with holders planted as a dead or live process leaves them.
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
}
