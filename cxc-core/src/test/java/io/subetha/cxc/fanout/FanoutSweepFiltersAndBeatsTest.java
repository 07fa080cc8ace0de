package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.SizedCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the survivors of the fan-out's mutation run left unpinned, each state planted in the file as
 * a killed process leaves it (a participant record's PID made one no process can have): the scan's
 * filter (a dead submitter's committed items, another participant of the same generation and an
 * older generation of the dead record are left alone), the head a dead drainer's repair moves in a
 * later lap, a returned item claimed again and its claimer killed, what a look behind the head must
 * not take, a late release, the beat cadence, the scans a take makes on its own, a record freed
 * under a live handle, closing a handle on record 0, and the argument checks.
 */
class FanoutSweepFiltersAndBeatsTest {

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

    @BeforeEach
    void open() {
        path = dir.resolve("fanout.cxc");
        settings = new PriorityFanout.Settings<>(CAPACITY, FixedCodec.INT64, DAY);
        handle();
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
    void aDeadDrainersHalfTakenItemInALaterLapMovesTheHeadFromItsOwnPosition() {
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
        // Position 10 (lap 2, slot 2; the other levels' heads still at 0): won FULL -> TAKING,
        // killed before moving the head.
        raw.setLongVolatile(slot(LEVEL, 10), pack(2, TAKING, 9, 1));

        PriorityFanout.ScanReport report = handle().scan();

        assertThat(report).isEqualTo(new PriorityFanout.ScanReport(1, 0, 0, 1));
        assertThat(head(LEVEL)).isEqualTo(11);
        assertThat(raw.getLongVolatile(slot(LEVEL, 10))).isEqualTo(empty(3));
    }

    @Test
    void describeCountsHeldRecordsOnlyNotTheFirstSlotPastThem() {
        PriorityFanout<Long> fanout = handles.get(0);
        fanout.submit(0, 1L);
        assertThat(fanout.drainPriority(0, 1)).containsExactly(1L);
        // Slot 0 of level 0 lies right after the last record; its word is now lap 1's empty.
        assertThat(raw.getLongVolatile(slot(0, 0))).isEqualTo(empty(1));
        assertThat(participantOffset(MAX_PARTICIPANTS)).isEqualTo(slot(0, 0));

        assertThat(fanout.describe()).containsEntry("participants", 1);
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
    void aLookBehindTheHeadTakesNeitherALiveClaimNorTheNextLapsItem() {
        PriorityFanout<Long> fanout = handles.get(0);
        PriorityFanout<Long> live = handle();
        fanout.submit(LEVEL, 1L);
        fanout.submit(LEVEL, 2L);
        assertThat(fanout.drainHighest(1)).containsExactly(1L);
        FanoutClaim<Long> claim = live.claimHighest(1);
        assertThat(claim.items()).containsExactly(2L);
        fanout.submit(LEVEL, 3L);
        fanout.submit(LEVEL, 4L);
        fanout.submit(LEVEL, 5L); // position 4: slot 0 again, lap 1, behind the head by slot
        raw.setLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET, 1); // left high by a crash

        assertThat(fanout.drainHighest(1)).containsExactly(3L);

        assertThat(state(raw.getLongVolatile(slot(LEVEL, 1)))).isEqualTo(CLAIMED);
        assertThat(hint(LEVEL)).isEqualTo(1);
        assertThat(claim.ack()).isTrue();
        assertThat(fanout.drainHighest(5)).containsExactly(4L, 5L);
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
    void aClaimThatMetAHeadBeingWrittenKeepsTheLevelOfWhatItTook() {
        PriorityFanout<Long> fanout = handles.get(0);
        fanout.submit(LEVEL, 1L);
        fanout.submit(LEVEL, 2L);
        fanout.submit(LEVEL, 3L);
        // Position 1 back to WRITING: a writer stopped mid-payload, position 2 committed behind it.
        long written = raw.getLongVolatile(slot(LEVEL, 1));
        raw.setLongVolatile(slot(LEVEL, 1), pack(0, WRITING, 9, 1));

        FanoutClaim<Long> claim = fanout.claimHighest(3);

        assertThat(claim.items()).containsExactly(1L);
        assertThat(claim.priority()).isEqualTo(LEVEL);
        assertThat(claim.isEmpty()).isFalse();
        assertThat(claim.ack()).isTrue();
        raw.setLongVolatile(slot(LEVEL, 1), written);
        assertThat(fanout.drainHighest(5)).containsExactly(2L, 3L);
    }

    @Test
    void aDayGraceBeatsOnlyOnHeartbeatAndANanosecondGraceOnEveryOp() {
        handles.get(0).submit(LEVEL, 0L); // record 0
        PriorityFanout<Long> fanout = handle();
        fanout.submit(LEVEL, 1L); // record 1
        int record = recordHolding(LEVEL, 1);
        assertThat(record).isEqualTo(participantOffset(1));
        long registered = OwnerRecord.heartbeat(raw, record);
        long zero = OwnerRecord.heartbeat(raw, participantOffset(0));
        for (int i = 0; i < 50; i++) {
            fanout.submit(0, 1L);
            assertThat(fanout.drainPriority(0, 1)).containsExactly(1L);
        }
        assertThat(OwnerRecord.heartbeat(raw, record)).isEqualTo(registered);
        long before = System.nanoTime();
        fanout.heartbeat();
        assertThat(OwnerRecord.heartbeat(raw, record)).isGreaterThanOrEqualTo(before);
        assertThat(OwnerRecord.heartbeat(raw, participantOffset(0))).isEqualTo(zero);

        Path quick = dir.resolve("quick.cxc");
        try (PriorityFanout<Long> beating =
                PriorityFanout.TYPE.create(
                        quick,
                        new PriorityFanout.Settings<>(
                                CAPACITY, FixedCodec.INT64, Duration.ofNanos(1)),
                        CxcFileOptions.defaults())) {
            AtomicBuffer quickRaw = RawBody.of(quick);
            beating.submit(0, 1L);
            int own = participantOffset(participant(quickRaw.getLongVolatile(slot(0, 0))));
            long first = OwnerRecord.heartbeat(quickRaw, own);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(
                            () -> {
                                beating.submit(1, 2L);
                                assertThat(beating.drainPriority(1, 1)).containsExactly(2L);
                                assertThat(OwnerRecord.heartbeat(quickRaw, own))
                                        .isGreaterThan(first);
                            });
        }
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
    void registerScansTwiceBeforeItGivesUpOnATableOfLiveRecords() {
        PriorityFanout<Long> late = handle();
        for (int r = 0; r < MAX_PARTICIPANTS; r++) {
            int record = participantOffset(r);
            raw.setLongVolatile(record + OwnerRecord.HEARTBEAT_OFFSET, System.nanoTime());
            raw.setLongVolatile(
                    record + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.ownerWord(PID, 1));
        }
        long scans = late.opCounters().get("scan");

        assertThatThrownBy(() -> late.submit(0, 1L))
                .isInstanceOf(io.subetha.cxc.CxcCapacityException.class);

        assertThat(late.opCounters().get("scan") - scans).isEqualTo(2);
        for (int r = 0; r < MAX_PARTICIPANTS; r++) {
            raw.setLongVolatile(participantOffset(r) + OwnerRecord.OWNER_WORD_OFFSET, 0);
        }
    }

    @Test
    void aRecordFreedUnderALiveHandleIsClaimedAgainBeforeItsNextWrite() {
        PriorityFanout<Long> fanout = handles.get(0);
        fanout.submit(LEVEL, 1L);
        int record = recordHolding(LEVEL, 0);
        raw.setLongVolatile(record + OwnerRecord.OWNER_WORD_OFFSET, 0);

        fanout.submit(LEVEL, 2L);

        int now = recordHolding(LEVEL, 1);
        assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, now))).isEqualTo(PID);
    }

    @Test
    void closingTheHandleOnRecordZeroReturnsItsClaimsAndFreesTheRecord() {
        PriorityFanout<Long> fanout = handles.get(0);
        fanout.submit(LEVEL, 1L);
        assertThat(fanout.claimHighest(1).items()).containsExactly(1L);
        assertThat(recordHolding(LEVEL, 0)).isEqualTo(participantOffset(0));

        fanout.close();

        assertThat(fanout.isClosed()).isTrue();
        assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, participantOffset(0))))
                .isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(state(raw.getLongVolatile(slot(LEVEL, 0)))).isEqualTo(FULL);
        assertThat(hint(LEVEL)).isEqualTo(1);
        assertThat(handle().drainHighest(5)).containsExactly(1L);
    }

    @Test
    void aSubmitHelpsTheTailPastASlotReservedByASubmitterKilledBeforeMovingIt() {
        PriorityFanout<Long> fanout = handles.get(0);
        raw.setLongVolatile(slot(LEVEL, 0), pack(0, WRITING, 9, 1));

        fanout.submit(LEVEL, 4L);

        assertThat(raw.getLongVolatile(levelOffset(LEVEL) + TAIL_OFFSET)).isEqualTo(2);
        assertThat(state(raw.getLongVolatile(slot(LEVEL, 1)))).isEqualTo(FULL);
        raw.setLongVolatile(slot(LEVEL, 0), pack(0, ABANDONED, 0, 0));
        assertThat(fanout.drainHighest(5)).containsExactly(4L);
    }

    @Test
    void settingsCodecsMaxesAndNullItemsAreCheckedNamingTheValue() {
        new PriorityFanout.Settings<>(1, new SizedCodec(0), DAY);
        new PriorityFanout.Settings<>(1, new SizedCodec(MAX_PAYLOAD), DAY);
        new PriorityFanout.Settings<>(1, FixedCodec.INT64, Duration.ofNanos(1));
        for (int size : new int[] {-1, MAX_PAYLOAD + 1}) {
            assertThatThrownBy(() -> new PriorityFanout.Settings<>(1, new SizedCodec(size), DAY))
                    .isInstanceOf(CxcSettingsException.class)
                    .hasMessageContaining("at most " + MAX_PAYLOAD + " bytes, got " + size)
                    .extracting(e -> ((CxcSettingsException) e).setting())
                    .isEqualTo("codec");
        }
        for (Duration grace :
                new Duration[] {Duration.ofNanos(-1), Duration.ZERO, DAY.plusNanos(1)}) {
            assertThatThrownBy(() -> new PriorityFanout.Settings<>(1, FixedCodec.INT64, grace))
                    .isInstanceOf(CxcSettingsException.class)
                    .hasMessageContaining("got " + grace)
                    .extracting(e -> ((CxcSettingsException) e).setting())
                    .isEqualTo("grace");
        }
        PriorityFanout<Long> fanout = handles.get(0);
        assertThatThrownBy(() -> fanout.trySubmit(0, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("item must not be null");
        assertThatThrownBy(() -> fanout.drainPriority(0, 0))
                .hasMessage("max must be 1 or more, got 0");
        assertThatThrownBy(() -> fanout.claimHighest(0)).hasMessage("max must be 1 or more, got 0");

        Path simple = dir.resolve("simple.cxc");
        try (PriorityFanout<Long> created =
                        PriorityFanout.openOrCreate(
                                simple, new PriorityFanout.Settings<>(CAPACITY, FixedCodec.INT64));
                PriorityFanout<Long> opened =
                        PriorityFanout.openOrCreate(
                                simple,
                                new PriorityFanout.Settings<>(CAPACITY, FixedCodec.INT64))) {
            created.submit(2, 6L);
            FanoutClaim<Long> one = opened.claimHighest(1);
            assertThat(one.items()).containsExactly(6L);
            assertThat(one.ack()).isTrue();
            FanoutClaim<Long> empty = opened.claimHighest(1);
            assertThat(empty.isEmpty()).isTrue();
            assertThat(empty.priority()).isEqualTo(-1);
        }
    }

    @Test
    void aScanReportChangedAnythingIfAnyOneFigureIsAboveZero() {
        assertThat(new PriorityFanout.ScanReport(0, 0, 0, 0).changedAnything()).isFalse();
        int[][] reports = {
            {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1},
            {1, 1, 0, 0}, {0, 1, 1, 0}, {0, 0, 1, 1}, {1, 2, 1, 3}
        };
        for (int[] r : reports) {
            assertThat(new PriorityFanout.ScanReport(r[0], r[1], r[2], r[3]).changedAnything())
                    .as("%s", java.util.Arrays.toString(r))
                    .isTrue();
        }
    }
}
