package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scan's repairs, each crash state planted in the file as a killed process leaves it (a
 * participant record's PID made one no process can have): a dead consumer's claims return ahead of
 * the level's later items in their order, a dead drainer's half-taken item is finished (the head
 * moved from its own position, in any lap), a dead writer's half-written slot is stepped over, a
 * silent consumer's claims return while its record stays, a live one is left alone; the scan's
 * filter (a dead submitter's committed items, another participant of the same generation and an
 * older generation of the dead record left alone), a returned item claimed again and its claimer
 * killed, a late release of a returned claim, and the scans a take makes on its own. The grace is a
 * day: nothing is stale unless planted so.
 */
class FanoutCrashRepairTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long PID = ProcessHandle.current().pid();
    static final int CAPACITY = 4;
    static final int LEVEL = 3;
    static final Duration DAY = Duration.ofDays(1);

    @TempDir Path dir;
    Path path;
    PriorityFanout.Settings<Long> settings;
    final List<PriorityFanout<Long>> handles = new ArrayList<>();
    AtomicBuffer raw;
    PriorityFanout<Long> scanner;
    PriorityFanout<Long> consumer;

    @BeforeEach
    void open() {
        path = dir.resolve("fanout.cxc");
        settings = new PriorityFanout.Settings<>(CAPACITY, FixedCodec.INT64, DAY);
        scanner = handle();
        consumer = handle();
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        handles.forEach(PriorityFanout::close);
    }

    PriorityFanout<Long> handle() {
        PriorityFanout<Long> h =
                PriorityFanout.TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
        handles.add(h);
        return h;
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

    long head(int priority) {
        return raw.getLongVolatile(levelOffset(priority) + HEAD_OFFSET);
    }

    long hint(int priority) {
        return raw.getLongVolatile(levelOffset(priority) + RETURNED_OFFSET);
    }

    @Test
    void aSweepTouchesOnlyTheDeadRecordsOwnGenerationsHeldSlots() {
        PriorityFanout<Long> submitter = handles.get(0);
        PriorityFanout<Long> consumer = handle();
        PriorityFanout<Long> scanner = handle();
        submitter.submit(LEVEL, 1L);
        submitter.submit(LEVEL, 2L);
        FanoutClaim<Long> claim = consumer.claimHighest(1);
        int submitterRecord = recordHolding(LEVEL, 1);
        int consumerRecord = recordHolding(LEVEL, 0);
        assertThat(submitterRecord).isNotEqualTo(consumerRecord);
        // Two records, one generation: the slot words tell them apart by record only.
        assertThat(generation(raw.getLongVolatile(slot(LEVEL, 0))))
                .isEqualTo(generation(raw.getLongVolatile(slot(LEVEL, 1))));
        // A claim behind level 0's head naming the dead record under an older generation.
        long older =
                pack(
                        0,
                        CLAIMED,
                        participant(raw.getLongVolatile(slot(LEVEL, 1))),
                        generation(raw.getLongVolatile(slot(LEVEL, 1))) + 5);
        raw.setLongVolatile(slot(0, 0), older);
        raw.setLongVolatile(levelOffset(0) + TAIL_OFFSET, 1);
        raw.setLongVolatile(levelOffset(0) + HEAD_OFFSET, 1);
        killRecord(submitterRecord);

        PriorityFanout.ScanReport report = scanner.scan();

        assertThat(report).isEqualTo(new PriorityFanout.ScanReport(1, 0, 0, 0));
        assertThat(state(raw.getLongVolatile(slot(LEVEL, 1)))).isEqualTo(FULL);
        assertThat(state(raw.getLongVolatile(slot(LEVEL, 0)))).isEqualTo(CLAIMED);
        assertThat(raw.getLongVolatile(slot(0, 0))).isEqualTo(older);
        assertThat(head(LEVEL)).isEqualTo(1);
        assertThat(hint(0)).isZero();
        assertThat(claim.ack()).isTrue();
        assertThat(scanner.drainPriority(LEVEL, 5)).containsExactly(2L);
        raw.setLongVolatile(slot(0, 0), empty(1));
    }

    @Test
    void aDeadTakersReservationInALaterLapIsUndoneInItsOwnLap() {
        PriorityFanout<Long> fanout = handles.get(0);
        for (int lap = 0; lap < 2; lap++) {
            for (long i = 0; i < CAPACITY; i++) {
                fanout.submit(LEVEL, i);
            }
            assertThat(fanout.drainHighest(CAPACITY)).hasSize(CAPACITY);
        }
        fanout.submit(LEVEL, 10L);
        fanout.submit(LEVEL, 11L);
        fanout.submit(LEVEL, 12L);
        assertThat(fanout.drainHighest(2)).containsExactly(10L, 11L);
        int record = participantOffset(9);
        raw.setLongVolatile(
                record + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.ownerWord(DEAD_PID, 1));
        // Position 10 (lap 2, slot 2; the other levels' heads still at 0): reserved, killed
        // before its take stood.
        raw.setLongVolatile(slot(LEVEL, 10), pack(2, TAKING, 9, 1));

        PriorityFanout.ScanReport report = handle().scan();

        assertThat(report).isEqualTo(new PriorityFanout.ScanReport(1, 0, 0, 1));
        assertThat(head(LEVEL)).isEqualTo(10);
        assertThat(raw.getLongVolatile(slot(LEVEL, 10))).isEqualTo(pack(2, FULL, 0, 0));
        assertThat(fanout.drainHighest(2)).containsExactly(12L);
    }

    @Test
    void aReturnedItemClaimedAgainReturnsAgainWhenItsNewClaimerDies() {
        PriorityFanout<Long> scanner = handles.get(0);
        PriorityFanout<Long> first = handle();
        PriorityFanout<Long> second = handle();
        scanner.submit(LEVEL, 5L);
        assertThat(first.claimHighest(1).items()).containsExactly(5L);
        killRecord(recordHolding(LEVEL, 0));
        assertThat(scanner.scan().returnedClaims()).isEqualTo(1);
        assertThat(hint(LEVEL)).isEqualTo(1);

        FanoutClaim<Long> again = second.claimHighest(1);

        assertThat(again.items()).containsExactly(5L);
        assertThat(again.priority()).isEqualTo(LEVEL);
        assertThat(state(raw.getLongVolatile(slot(LEVEL, 0)))).isEqualTo(CLAIMED);
        assertThat(hint(LEVEL)).isZero();
        killRecord(recordHolding(LEVEL, 0));
        assertThat(scanner.scan()).isEqualTo(new PriorityFanout.ScanReport(1, 1, 0, 0));
        assertThat(scanner.drainHighest(5)).containsExactly(5L);
    }

    @Test
    void aLateReleaseOfAClaimAScanReturnedReturnsNothingAndLeavesTheHint() {
        PriorityFanout<Long> scanner = handles.get(0);
        PriorityFanout<Long> silent = handle();
        scanner.submit(LEVEL, 8L);
        FanoutClaim<Long> claim = silent.claimHighest(1);
        int record = recordHolding(LEVEL, 0);
        raw.setLongVolatile(
                record + OwnerRecord.HEARTBEAT_OFFSET,
                System.nanoTime() - Duration.ofDays(2).toNanos());
        assertThat(scanner.scan()).isEqualTo(new PriorityFanout.ScanReport(0, 1, 0, 0));
        assertThat(hint(LEVEL)).isEqualTo(1);

        assertThat(claim.release()).isZero();

        assertThat(hint(LEVEL)).isEqualTo(1);
        assertThat(scanner.drainHighest(5)).containsExactly(8L);
        assertThat(hint(LEVEL)).isZero();
    }

    @Test
    void drainsScanOnTheirOwnOnceTheIntervalHasPassedAndNotOnEveryCall() {
        PriorityFanout<Long> submitter = handles.get(0);
        submitter.submit(LEVEL, 1L);
        PriorityFanout<Long> doomed = handle();
        assertThat(doomed.claimHighest(1).items()).containsExactly(1L);
        killRecord(recordHolding(LEVEL, 0));
        PriorityFanout<Long> drainer = handle();

        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(drainer.drainPriority(LEVEL, 5)).containsExactly(1L));

        PriorityFanout<Long> doomedToo = handle();
        submitter.submit(LEVEL, 3L);
        assertThat(doomedToo.claimHighest(1).items()).containsExactly(3L);
        killRecord(recordHolding(LEVEL, 1));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(drainer.drainHighest(1)).containsExactly(3L));

        PriorityFanout<Long> fresh = handle();
        long scans = fresh.opCounters().get("scan");
        for (int i = 0; i < 200; i++) {
            assertThat(fresh.drainPriority(1, 1)).isEmpty();
        }
        assertThat(fresh.opCounters().get("scan") - scans).isLessThan(200);
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
        assertThat(report.undoneTakes()).isZero();
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
    void aDeadTakersReservationIsUndoneAndItsItemTakenByTheNext() {
        scanner.submit(LEVEL, 1L);
        scanner.submit(LEVEL, 2L);
        deadRecord();
        // It reserved position 0 (FULL -> TAKING) below a level it passed, and was killed before
        // its take stood: the item was never taken.
        raw.setLongVolatile(slot(LEVEL, 0), pack(0, TAKING, 9, 1));

        PriorityFanout.ScanReport report = scanner.scan();

        assertThat(report.undoneTakes()).isEqualTo(1);
        assertThat(report.deadParticipants()).isEqualTo(1);
        assertThat(raw.getLongVolatile(levelOffset(LEVEL) + HEAD_OFFSET)).isZero();
        assertThat(raw.getLongVolatile(slot(LEVEL, 0))).isEqualTo(pack(0, FULL, 0, 0));
        assertThat(scanner.drainHighest(10)).containsExactly(1L, 2L);
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
