package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What dead parties leave in the file and who repairs it, in one process (the states planted word
 * by word, as a killed process leaves them; the SIGKILL tests are in {@link
 * PassRegistryProcessTest}): a dead binder's record taken at once, a mailbox full of dead callers'
 * and owners' slots reclaimed while a live one's is kept, a caller judged by PID and the start time
 * it stamped (a recycled PID is not alive), and a dead owner's running slot freed by the caller
 * that finds it dead.
 */
class PassRegistryCrashRepairTest extends PassRegistryFixture {

    @Test
    void aDeadBindersRecordIsTakenAtOnceUnderTheNextGeneration() {
        PassRegistry owner = open(1, 1, 64);
        AtomicBuffer raw = RawBody.of(file());
        raw.setLongVolatile(
                BINDER_OFFSET + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.ownerWord(DEAD_PID, 9));
        // A dead binder's half-bound entry: its keys differ, so it names no id and is reused.
        int only = entry(0, 1, 64);
        raw.setLongVolatile(
                only + OWNER_RECORD_OFFSET + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(DEAD_PID, 2));
        raw.setLongVolatile(only + BOUND_KEY_OFFSET, 1);
        raw.setLongVolatile(only + PASS_ID_OFFSET, 4);
        raw.setLongVolatile(only + CALLS_OFFSET, 9);
        assertThat(owner.isRegistered(4)).isFalse();

        owner.register(3, args -> args);

        assertThat(OwnerRecord.ownerWord(raw, BINDER_OFFSET))
                .isEqualTo(OwnerRecord.ownerWord(0, 10));
        assertThat(raw.getLongVolatile(only + PASS_ID_OFFSET)).isEqualTo(3);
        assertThat(raw.getLongVolatile(only + CALLS_OFFSET)).isZero();
        assertThat(owner.isRegistered(3)).isTrue();
        assertThat(owner.isRegistered(4)).isFalse();
    }

    @Test
    void aMailboxFullOfDeadPartiesSlotsIsReclaimedAndALiveOnesSlotKept() {
        int slots = 8;
        PassRegistry owner = open(1, slots, 64);
        owner.register(1, args -> PassChild.bytes(PassChild.value(args) * 2));
        PassRegistry caller = open(1, slots, 64, QUICK_CHECKS);
        AtomicBuffer raw = RawBody.of(file());
        int e = entry(0, slots, 64);
        long deadOwner = OwnerRecord.ownerWord(DEAD_PID, 1);
        long liveOwner = OwnerRecord.ownerWord(1, 1);
        long self = Pids.current();
        // Callers dead (judged by PID: no start time stamped for these claims), or PID 0.
        raw.setLongVolatile(slot(e, 0, 64) + STATE_WORD_OFFSET, packState(STATE_CLAIMED, 3, 0));
        raw.setLongVolatile(
                slot(e, 1, 64) + STATE_WORD_OFFSET, packState(STATE_CLAIMED, 3, DEAD_PID));
        raw.setLongVolatile(
                slot(e, 2, 64) + STATE_WORD_OFFSET, packState(STATE_REQUEST, 3, DEAD_PID));
        raw.setLongVolatile(
                slot(e, 3, 64) + STATE_WORD_OFFSET, packState(STATE_RESPONSE, 3, DEAD_PID));
        raw.setLongVolatile(
                slot(e, 4, 64) + STATE_WORD_OFFSET, packState(STATE_FAILED, 3, DEAD_PID));
        // Taken by an owner that died (the caller, this process, is alive).
        for (int i = 5; i <= 6; i++) {
            int s = slot(e, i, 64);
            raw.setLongVolatile(s + ADDRESSED_OWNER_OFFSET, deadOwner);
            raw.setLongVolatile(
                    s + STATE_WORD_OFFSET,
                    packState(i == 5 ? STATE_RUNNING : STATE_ABANDONED, 3, self));
        }
        // Taken by a live owner elsewhere: kept.
        int kept = slot(e, 7, 64);
        raw.setLongVolatile(kept + ADDRESSED_OWNER_OFFSET, liveOwner);
        raw.setLongVolatile(kept + STATE_WORD_OFFSET, packState(STATE_RUNNING, 3, self));
        assertThat(caller.describe()).containsEntry("busySlots", slots);

        assertThat(PassChild.value(caller.execute(1, PassChild.bytes(21), LONG))).isEqualTo(42);

        assertThat(caller.describe()).containsEntry("busySlots", 1);
        assertThat(state(raw.getLongVolatile(kept + STATE_WORD_OFFSET))).isEqualTo(STATE_RUNNING);
    }

    /**
     * A mailbox slot claimed by a live PID whose start time is not the one the claimant stamped:
     * the PID was reused by another process, so the claimant is dead and its slot is reclaimed.
     * (Judged by PID alone, the slot would stay busy and the call fail with a capacity error.)
     */
    @Test
    void aSlotStampedWithALivePidButAnotherStartTimeIsReclaimed() throws IOException {
        PassRegistry owner = open(1, 1, 64);
        PassRegistry caller = open(1, 1, 64, QUICK_CHECKS);
        owner.register(3, args -> PassChild.bytes(PassChild.value(args) * 3));
        long pid = Pids.current();
        long wrongStartTime = OwnerRecord.startTimeOf(pid) + 12_345;
        stampSlot(packState(STATE_CLAIMED, 41, pid), callerIdentity(41, wrongStartTime));
        assertThat(caller.describe()).containsEntry("busySlots", 1);

        assertThat(PassChild.value(caller.execute(3, PassChild.bytes(5), LONG))).isEqualTo(15);
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }

    /** The same slot stamped with the live PID's real start time is left alone: it is alive. */
    @Test
    void aSlotStampedWithALivePidAndItsStartTimeIsNotReclaimed() throws IOException {
        PassRegistry owner = open(1, 1, 64);
        PassRegistry caller = open(1, 1, 64, QUICK_CHECKS);
        owner.register(3, args -> args);
        long pid = Pids.current();
        stampSlot(
                packState(STATE_CLAIMED, 41, pid),
                callerIdentity(41, OwnerRecord.startTimeOf(pid)));

        assertThatThrownBy(() -> caller.execute(3, PassChild.bytes(5), Duration.ofMillis(200)))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("mailbox slots (mailboxSlots)");
        assertThat(caller.describe()).containsEntry("busySlots", 1);
    }

    /** Writes slot 0 of entry 0 through the file, as another process would through its mapping. */
    private void stampSlot(long stateWord, long identity) throws IOException {
        long slot = HeaderDescriptor.HEADER_LENGTH + ENTRIES_OFFSET + ENTRY_HEADER_LENGTH;
        try (FileChannel channel = FileChannel.open(file(), StandardOpenOption.WRITE)) {
            ByteBuffer identityBytes =
                    ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, identity);
            channel.write(identityBytes, slot + CALLER_IDENTITY_OFFSET);
            ByteBuffer state =
                    ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, stateWord);
            channel.write(state, slot + STATE_WORD_OFFSET);
        }
    }

    /**
     * A request of a pass bound to a dead PID, taken by that owner's dispatcher (the test plays it:
     * REQUEST to RUNNING) before it died: the caller's owner check fails the call saying the
     * handler may have run, and frees the slot itself (a dead dispatcher never will).
     */
    @Test
    void aDeadOwnersRunningSlotIsFreedByTheCallerThatFindsItDead() {
        PassRegistry caller = open(1, 1, 64, checksEvery(Duration.ofMillis(300)));
        AtomicBuffer raw = RawBody.of(file());
        bind(raw, entry(0, 1, 64), 7, DEAD_PID, 3);
        int s = slot(entry(0, 1, 64), 0, 64);

        CompletableFuture<byte[]> call = caller.executeAsync(7, new byte[1], LONG);
        long request = raw.getLongVolatile(s + STATE_WORD_OFFSET);
        assertThat(state(request)).isEqualTo(STATE_REQUEST);
        assertThat(
                        raw.compareAndSetLong(
                                s + STATE_WORD_OFFSET, request, withState(request, STATE_RUNNING)))
                .isTrue();

        assertThat(call)
                .failsWithin(LONG)
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(PassOwnerDiedException.class)
                .withMessageContaining(
                        "died before the call was answered; its handler had started: it may"
                                + " have run");
        assertThat(raw.getLongVolatile(s + STATE_WORD_OFFSET))
                .isEqualTo(withState(request, STATE_FREE));
    }

    /**
     * The same running slot, but the call times out before any owner check: a timeout is not an
     * owner's death, so the slot is left abandoned for its dispatcher (here a dead one, whose slot
     * the next full mailbox reclaims).
     */
    @Test
    void aCallThatTimesOutWhileRunningAbandonsTheSlotEvenIfTheOwnerIsDead() {
        PassRegistry caller = open(1, 1, 64, checksEvery(HOUR));
        AtomicBuffer raw = RawBody.of(file());
        bind(raw, entry(0, 1, 64), 7, DEAD_PID, 3);
        int s = slot(entry(0, 1, 64), 0, 64);

        CompletableFuture<byte[]> call =
                caller.executeAsync(7, new byte[1], Duration.ofMillis(100));
        long request = raw.getLongVolatile(s + STATE_WORD_OFFSET);
        raw.compareAndSetLong(s + STATE_WORD_OFFSET, request, withState(request, STATE_RUNNING));

        assertThat(call)
                .failsWithin(LONG)
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(CxcTimeoutException.class)
                .withMessageContaining("its handler was still running");
        assertThat(raw.getLongVolatile(s + STATE_WORD_OFFSET))
                .isEqualTo(withState(request, STATE_ABANDONED));
    }
}
