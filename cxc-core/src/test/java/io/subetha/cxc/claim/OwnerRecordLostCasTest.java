package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.StepGate;
import java.nio.ByteBuffer;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * What an owner does when one of its CASes loses to another writer between its read and its CAS,
 * each replayed by holding it with a {@link StepGate} at that very step: the identity and the
 * heartbeat are retried from the value now there (never given up on, never lowered), and a table
 * claim that lost a record goes on to the next free one instead of reporting the lost one.
 */
class OwnerRecordLostCasTest {

    static final int RECORD = 8;

    final AtomicBuffer body = new AtomicBuffer(ByteBuffer.allocateDirect(4 * OwnerRecord.LENGTH));

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
