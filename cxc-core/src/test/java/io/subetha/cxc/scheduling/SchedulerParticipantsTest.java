package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcCapacityException;
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
 * A handle's participant record, each state planted in the file as a killed process leaves it: the
 * beats of {@code complete} and {@code heartbeat()} on a record other than 0 (never one taken
 * over), a record taken over under a live handle claimed again before its next job, the watchdog's
 * own scans and the two a register makes before it gives up, closing a handle (its jobs re-queued,
 * its record freed; one whose record was taken over, that never took part, or closed twice touches
 * nothing), and a closed handle refused what would claim it a record again, so no record is left
 * held by a handle nobody will close and a worker pool on it ends.
 */
class SchedulerParticipantsTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long PID = Pids.current();
    static final int CAPACITY = 4;
    static final int STRIDE = slotStride(8, 8);

    @TempDir Path dir;
    Path path;
    final List<BackgroundScheduler<Long, Long>> handles = new ArrayList<>();
    AtomicBuffer raw;

    @BeforeEach
    void open() {
        path = dir.resolve("jobs.cxc");
        handle(Duration.ofDays(1));
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        handles.forEach(BackgroundScheduler::close);
    }

    BackgroundScheduler<Long, Long> handle(Duration grace) {
        BackgroundScheduler<Long, Long> s =
                handles.isEmpty()
                        ? BackgroundScheduler.TYPE.create(
                                path,
                                new BackgroundScheduler.Settings<>(
                                        CAPACITY, FixedCodec.INT64, FixedCodec.INT64, grace),
                                CxcFileOptions.defaults())
                        : BackgroundScheduler.open(
                                path,
                                new BackgroundScheduler.Settings<>(
                                        CAPACITY, FixedCodec.INT64, FixedCodec.INT64));
        handles.add(s);
        return s;
    }

    BackgroundScheduler<Long, Long> handle() {
        return handle(Duration.ofDays(1));
    }

    static int slot(long id) {
        return SLOTS_OFFSET + (int) (id % CAPACITY) * STRIDE;
    }

    int recordOf(Job<Long> job) {
        return participantOffset(participant(job.word));
    }

    void kill(int record) {
        long word = OwnerRecord.ownerWord(raw, record);
        raw.setLongVolatile(
                record + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(DEAD_PID, OwnerRecord.key(word)));
    }

    /** Runs a whole lap through: ids 0..3 submitted, received, completed and collected. */
    void oneLap(BackgroundScheduler<Long, Long> s) {
        for (long i = 0; i < CAPACITY; i++) {
            s.submit(i);
            s.complete(s.receive(PID).orElseThrow(), i);
        }
        assertThat(s.collector().take(CAPACITY)).hasSize(CAPACITY);
    }

    @Test
    void completeBeatsItsOwnRecordWhenDueAndNeverOneTakenOver() {
        Path quick = dir.resolve("quick.cxc");
        try (BackgroundScheduler<Long, Long> first =
                        BackgroundScheduler.TYPE.create(
                                quick,
                                new BackgroundScheduler.Settings<>(
                                        CAPACITY,
                                        FixedCodec.INT64,
                                        FixedCodec.INT64,
                                        Duration.ofNanos(1)),
                                CxcFileOptions.defaults());
                BackgroundScheduler<Long, Long> worker =
                        BackgroundScheduler.open(
                                quick,
                                new BackgroundScheduler.Settings<>(
                                        CAPACITY, FixedCodec.INT64, FixedCodec.INT64))) {
            AtomicBuffer q = RawBody.of(quick);
            first.submit(1L); // record 0
            first.submit(2L);
            Job<Long> job = worker.receive(PID).orElseThrow(); // record 1
            int record = participantOffset(participant(job.word));
            assertThat(record).isEqualTo(participantOffset(1));
            long planted = OwnerRecord.heartbeat(q, record) - 1_000;
            q.setLongVolatile(record + OwnerRecord.HEARTBEAT_OFFSET, planted);

            assertThat(worker.complete(job, 10L)).isTrue();
            assertThat(OwnerRecord.heartbeat(q, record)).isGreaterThan(planted);

            Job<Long> next = worker.receive(PID).orElseThrow();
            long mine = OwnerRecord.ownerWord(q, record);
            long other = OwnerRecord.ownerWord(1, OwnerRecord.nextGeneration(mine));
            q.setLongVolatile(record + OwnerRecord.OWNER_WORD_OFFSET, other);
            q.setLongVolatile(record + OwnerRecord.HEARTBEAT_OFFSET, planted);
            assertThat(worker.complete(next, 20L)).isTrue();
            assertThat(OwnerRecord.heartbeat(q, record)).isEqualTo(planted);
            q.setLongVolatile(record + OwnerRecord.OWNER_WORD_OFFSET, mine);
        }
    }

    @Test
    void heartbeatBeatsTheHandlesOwnRecordNotRecordZero() {
        BackgroundScheduler<Long, Long> s = handles.get(0);
        s.submit(1L); // record 0
        BackgroundScheduler<Long, Long> other = handle();
        other.submit(2L); // record 1
        int zero = participantOffset(0);
        int one = participantOffset(1);
        long zeroBefore = OwnerRecord.heartbeat(raw, zero);
        raw.setLongVolatile(one + OwnerRecord.HEARTBEAT_OFFSET, 1);

        other.heartbeat();

        assertThat(OwnerRecord.heartbeat(raw, one)).isGreaterThan(1);
        assertThat(OwnerRecord.heartbeat(raw, zero)).isEqualTo(zeroBefore);
    }

    @Test
    void aRecordTakenOverUnderALiveHandleIsClaimedAgainBeforeItsNextJob() {
        BackgroundScheduler<Long, Long> s = handles.get(0);
        s.submit(1L);
        s.submit(2L);
        Job<Long> job = s.receive(PID).orElseThrow();
        int record = recordOf(job);
        long mine = OwnerRecord.ownerWord(raw, record);
        // Judged silent and taken over by a live process (init never dies).
        long other = OwnerRecord.ownerWord(1, OwnerRecord.nextGeneration(mine));
        raw.setLongVolatile(record + OwnerRecord.OWNER_WORD_OFFSET, other);

        Job<Long> next = s.receive(PID).orElseThrow();

        assertThat(recordOf(next)).isNotEqualTo(record);
        assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, recordOf(next)))).isEqualTo(PID);
        raw.setLongVolatile(record + OwnerRecord.OWNER_WORD_OFFSET, 0);
    }

    @Test
    void aReceiveScansOnItsOwnOnceTheIntervalHasPassedAndRegisterScansTwiceBeforeGivingUp() {
        BackgroundScheduler<Long, Long> owner = handles.get(0);
        BackgroundScheduler<Long, Long> doomed = handle();
        owner.submit(1L);
        Job<Long> job = doomed.receive(PID).orElseThrow();
        kill(recordOf(job));
        BackgroundScheduler<Long, Long> worker = handle();

        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> {
                            var again = worker.receive(PID);
                            assertThat(again).isPresent();
                            assertThat(again.get().attempt()).isEqualTo(2);
                        });

        Path full = dir.resolve("full.cxc");
        try (BackgroundScheduler<Long, Long> late =
                BackgroundScheduler.TYPE.create(
                        full,
                        new BackgroundScheduler.Settings<>(
                                2, FixedCodec.INT64, FixedCodec.INT64))) {
            AtomicBuffer f = RawBody.of(full);
            for (int r = 0; r < MAX_PARTICIPANTS; r++) {
                f.setLongVolatile(
                        participantOffset(r) + OwnerRecord.OWNER_WORD_OFFSET,
                        OwnerRecord.ownerWord(1, 1));
            }
            long scans = late.opCounts().get("watchdog_scan");
            assertThatThrownBy(() -> late.submit(1L)).isInstanceOf(CxcCapacityException.class);
            assertThat(late.opCounts().get("watchdog_scan") - scans).isEqualTo(2);
            for (int r = 0; r < MAX_PARTICIPANTS; r++) {
                f.setLongVolatile(participantOffset(r) + OwnerRecord.OWNER_WORD_OFFSET, 0);
            }
        }
    }

    @Test
    void closingTheHandleOnRecordZeroRequeuesItsJobsAndFreesTheRecord() {
        BackgroundScheduler<Long, Long> s = handles.get(0);
        s.submit(1L);
        Job<Long> job = s.receive(PID).orElseThrow();
        assertThat(recordOf(job)).isEqualTo(participantOffset(0));

        s.close();

        assertThat(s.isClosed()).isTrue();
        assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, participantOffset(0))))
                .isEqualTo(OwnerRecord.NO_OWNER);
        BackgroundScheduler<Long, Long> next = handle();
        assertThat(next.counts().reclaimed()).isEqualTo(1);
        assertThat(next.receive(PID).orElseThrow().attempt()).isEqualTo(2);
    }

    @Test
    void aClosedHandleRefusesToSubmitOrReceiveAndHoldsNoRecord() {
        Path path = dir.resolve("closed.cxc");
        BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                8, FixedCodec.INT64, FixedCodec.INT64, Duration.ofDays(1)),
                        CxcFileOptions.defaults());
        try (BackgroundScheduler<Long, Long> other =
                BackgroundScheduler.open(
                        path,
                        new BackgroundScheduler.Settings<>(
                                8, FixedCodec.INT64, FixedCodec.INT64))) {
            s.submit(1L);
            Job<Long> job = s.receive(PID).orElseThrow();
            s.close();
            AtomicBuffer raw = RawBody.of(path);
            assertThat(heldRecords(raw)).isZero();

            assertThatThrownBy(() -> s.receive(PID))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(path.toString())
                    .hasMessageContaining("is closed")
                    .hasMessageContaining("open a new one");
            assertThatThrownBy(() -> s.submit(2L)).isInstanceOf(IllegalStateException.class);

            assertThat(heldRecords(raw)).isZero();
            Job<Long> again = other.receive(PID).orElseThrow(); // close re-queued it
            assertThat(again.id()).isEqualTo(job.id());
            assertThat(again.attempt()).isEqualTo(2);
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

    @Test
    void closingAHandleWhoseRecordWasTakenOverTouchesNothing() {
        Path path = dir.resolve("taken.cxc");
        try (BackgroundScheduler<Long, Long> owner =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                4, FixedCodec.INT64, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            owner.submit(1L); // record 0
            var worker =
                    BackgroundScheduler.open(
                            path,
                            new BackgroundScheduler.Settings<>(
                                    4, FixedCodec.INT64, FixedCodec.INT64));
            Job<Long> job = worker.receive(PID).orElseThrow(); // record 1
            int record = participantOffset(participant(job.word));
            long mine = OwnerRecord.ownerWord(raw, record);
            // Judged silent and taken over: another process now holds the record.
            long other = OwnerRecord.ownerWord(1, OwnerRecord.nextGeneration(mine));
            raw.setLongVolatile(record + OwnerRecord.OWNER_WORD_OFFSET, other);

            worker.close();
            worker.close(); // twice: nothing more

            assertThat(OwnerRecord.ownerWord(raw, record)).isEqualTo(other);
            assertThat(owner.counts().running()).isEqualTo(1);
            assertThat(owner.counts().reclaimed()).isZero();
            var never =
                    BackgroundScheduler.open(
                            path,
                            new BackgroundScheduler.Settings<>(
                                    4, FixedCodec.INT64, FixedCodec.INT64));
            never.close(); // never took part: no record to free
            assertThat(owner.counts().running()).isEqualTo(1);
        }
    }
}
