package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scan's repairs, each crash state planted in the file as a killed process leaves it (its
 * participant record's PID made one no process can have): a dead consumer's claims return ahead of
 * the level's later items in their order, a dead drainer's half-taken item is finished, a dead
 * writer's half-written slot is stepped over, a silent consumer's claims return while its record
 * stays, and a live one is left alone. The grace is a day: nothing is stale unless planted so.
 */
class DeadParticipantScanTest {

    /** A PID no process can have (above every kernel's pid_max): always provably dead. */
    static final long DEAD_PID = Pids.MAX_PID - 1;

    static final int CAPACITY = 4;
    static final int LEVEL = 2;

    @TempDir Path dir;
    Path path;
    PriorityFanout<Long> scanner;
    PriorityFanout<Long> consumer;
    AtomicBuffer raw;

    @BeforeEach
    void open() {
        path = dir.resolve("fanout.cxc");
        PriorityFanout.Settings<Long> settings =
                new PriorityFanout.Settings<>(CAPACITY, FixedCodec.INT64, Duration.ofDays(1));
        scanner = PriorityFanout.TYPE.create(path, settings, CxcFileOptions.defaults());
        consumer = PriorityFanout.TYPE.open(path, settings, CxcFileOptions.defaults());
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        consumer.close();
        scanner.close();
    }

    static int slot(int priority, long position) {
        return SLOTS_OFFSET + (priority * CAPACITY + (int) (position % CAPACITY)) * slotStride(8);
    }

    int recordHolding(int priority, long position) {
        return participantOffset(participant(raw.getLongVolatile(slot(priority, position))));
    }

    void killRecord(int record) {
        long word = OwnerRecord.ownerWord(raw, record);
        raw.setLongVolatile(
                record + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(DEAD_PID, OwnerRecord.key(word)));
    }

    /** Record 9, held by a killed process under generation 1. */
    int deadRecord() {
        int record = participantOffset(9);
        raw.setLongVolatile(
                record + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.ownerWord(DEAD_PID, 1));
        return record;
    }

    @Test
    void aDeadConsumersClaimsReturnAheadOfLaterItemsInTheirOrder() {
        scanner.submit(LEVEL, 1L);
        scanner.submit(LEVEL, 2L);
        scanner.submit(LEVEL, 3L);
        FanoutClaim<Long> claim = consumer.claimHighest(2);
        assertThat(claim.items()).containsExactly(1L, 2L);
        int record = recordHolding(LEVEL, 0);
        killRecord(record);

        PriorityFanout.ScanReport report = scanner.scan();

        assertThat(report.returnedClaims()).isEqualTo(2);
        assertThat(report.deadParticipants()).isEqualTo(1);
        assertThat(report.abandonedWrites()).isZero();
        assertThat(report.finishedTakes()).isZero();
        assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, record)))
                .isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(state(raw.getLongVolatile(slot(LEVEL, 0)))).isEqualTo(FULL);
        assertThat(raw.getLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET)).isEqualTo(2);
        assertThat(claim.ack()).isFalse();

        assertThat(scanner.drainHighest(10)).containsExactly(1L, 2L, 3L);
        assertThat(raw.getLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET)).isZero();
        assertThat(scanner.depth(LEVEL)).isZero();
        assertThat(scanner.scan().changedAnything()).isFalse();
    }

    @Test
    void aDeadDrainersHalfTakenItemIsFinishedAndTheHeadMovesPastIt() {
        scanner.submit(LEVEL, 1L);
        scanner.submit(LEVEL, 2L);
        deadRecord();
        // It won the FULL -> TAKING CAS on position 0 and was killed before moving the head.
        raw.setLongVolatile(slot(LEVEL, 0), pack(0, TAKING, 9, 1));

        PriorityFanout.ScanReport report = scanner.scan();

        assertThat(report.finishedTakes()).isEqualTo(1);
        assertThat(report.deadParticipants()).isEqualTo(1);
        assertThat(raw.getLongVolatile(levelOffset(LEVEL) + HEAD_OFFSET)).isEqualTo(1);
        assertThat(raw.getLongVolatile(slot(LEVEL, 0))).isEqualTo(empty(1));
        assertThat(scanner.drainHighest(10)).containsExactly(2L);
    }

    @Test
    void aDeadWritersHalfWrittenSlotIsAbandonedAndSteppedOver() {
        int record = deadRecord();
        // It won EMPTY -> WRITING on position 0, moved the tail, and was killed mid-payload.
        raw.setLongVolatile(slot(LEVEL, 0), pack(0, WRITING, 9, 1));
        raw.setLongVolatile(levelOffset(LEVEL) + TAIL_OFFSET, 1);
        scanner.submit(LEVEL, 7L);

        PriorityFanout.ScanReport report = scanner.scan();

        assertThat(report.abandonedWrites()).isEqualTo(1);
        assertThat(report.deadParticipants()).isEqualTo(1);
        assertThat(state(raw.getLongVolatile(slot(LEVEL, 0)))).isEqualTo(ABANDONED);
        assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, record)))
                .isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(consumer.drainHighest(10)).containsExactly(7L);
        assertThat(raw.getLongVolatile(slot(LEVEL, 0))).isEqualTo(empty(1));
        assertThat(raw.getLongVolatile(levelOffset(LEVEL) + HEAD_OFFSET)).isEqualTo(2);
    }

    @Test
    void aSilentConsumersClaimsReturnButItsRecordAndAWritersSlotStay() {
        scanner.submit(LEVEL, 1L);
        FanoutClaim<Long> claim = consumer.claimHighest(1);
        int record = recordHolding(LEVEL, 0);
        long word = OwnerRecord.ownerWord(raw, record);
        // The same silent participant also holds a half-written slot at level 0.
        raw.setLongVolatile(
                slot(0, 0),
                pack(
                        0,
                        WRITING,
                        participant(raw.getLongVolatile(slot(LEVEL, 0))),
                        generation(raw.getLongVolatile(slot(LEVEL, 0)))));
        raw.setLongVolatile(levelOffset(0) + TAIL_OFFSET, 1);
        raw.setLongVolatile(
                record + OwnerRecord.HEARTBEAT_OFFSET,
                System.nanoTime() - Duration.ofDays(2).toNanos());

        PriorityFanout.ScanReport report = scanner.scan();

        assertThat(report.returnedClaims()).isEqualTo(1);
        assertThat(report.deadParticipants()).isZero();
        assertThat(report.abandonedWrites()).isZero();
        assertThat(OwnerRecord.ownerWord(raw, record)).isEqualTo(word);
        assertThat(state(raw.getLongVolatile(slot(0, 0)))).isEqualTo(WRITING);
        assertThat(claim.ack()).isFalse();
        assertThat(scanner.drainPriority(LEVEL, 5)).containsExactly(1L);
    }

    @Test
    void aLiveConsumersClaimIsLeftAloneAndItsAckFreesTheSlots() {
        scanner.submit(LEVEL, 1L);
        scanner.submit(1, 2L);
        FanoutClaim<Long> claim = consumer.claimHighest(5);
        assertThat(claim.priority()).isEqualTo(LEVEL);
        assertThat(scanner.scan().changedAnything()).isFalse();
        assertThat(claim.ack()).isTrue();
        assertThat(raw.getLongVolatile(slot(LEVEL, 0))).isEqualTo(empty(1));
        assertThat(scanner.drainHighest(5)).containsExactly(2L);
    }
}
