package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.wake.DoorbellDescriptor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handle's participant record, each state planted in the file as a killed process leaves it (a
 * participant record's PID made one no process can have): the records {@code describe()} counts,
 * the beat cadence (a day's grace beats only on {@code heartbeat()}, a nanosecond's on every op),
 * the two scans a register makes before it gives up on a table of live records, a record freed
 * under a live handle claimed again, closing a handle (its claims returned, its record freed), and
 * a closed handle refused what would claim it a record again, so no record is left held by a handle
 * nobody will close.
 */
class FanoutParticipantsTest {

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
    void describeCountsHeldRecordsOnlyNotTheFirstSlotPastThem() {
        PriorityFanout<Long> fanout = handles.get(0);
        fanout.submit(0, 1L);
        assertThat(fanout.drainPriority(0, 1)).containsExactly(1L);
        // The doorbell region lies right after the last record, slot 0 of level 0 right after
        // it; the slot's word is now lap 1's empty.
        assertThat(raw.getLongVolatile(slot(0, 0))).isEqualTo(empty(1));
        assertThat(participantOffset(MAX_PARTICIPANTS)).isEqualTo(DOORBELL_OFFSET);
        assertThat(DOORBELL_OFFSET + DoorbellDescriptor.LENGTH).isEqualTo(slot(0, 0));

        assertThat(fanout.describe()).containsEntry("participants", 1);
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
    void aClosedHandleRefusesToSubmitOrTakeAndHoldsNoRecord() {
        Path path = dir.resolve("closed.cxc");
        PriorityFanout.Settings<Long> settings =
                new PriorityFanout.Settings<>(8, FixedCodec.INT64, Duration.ofDays(1));
        PriorityFanout<Long> f =
                PriorityFanout.TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
        try (PriorityFanout<Long> other =
                PriorityFanout.TYPE.openOrCreate(path, settings, CxcFileOptions.defaults())) {
            f.submit(1, 7L);
            FanoutClaim<Long> claim = f.claimHighest(1);
            assertThat(claim.items()).containsExactly(7L);
            f.close();
            AtomicBuffer raw = RawBody.of(path);
            assertThat(heldRecords(raw)).isZero();

            assertThatThrownBy(() -> f.submit(1, 8L))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(path.toString())
                    .hasMessageContaining("is closed")
                    .hasMessageContaining("open a new one");
            assertThatThrownBy(() -> f.drainHighest(1)).isInstanceOf(IllegalStateException.class);

            assertThat(heldRecords(raw)).isZero();
            assertThat(other.drainHighest(1)).containsExactly(7L); // close returned the claim
        }
    }

    static int heldRecords(AtomicBuffer raw) {
        int held = 0;
        for (int r = 0; r < MAX_PARTICIPANTS; r++) {
            if (OwnerRecord.pid(OwnerRecord.ownerWord(raw, participantOffset(r))) != 0) {
                held++;
            }
        }
        return held;
    }
}
