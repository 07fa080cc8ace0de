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
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the survivors of the scheduler's mutation run left unpinned, each state planted in the file
 * as a killed process leaves it (a participant record's PID made one no process can have): the
 * watchdog's filter (another worker of the same generation and an older generation of the dead
 * record left alone) and the ids it reports in a later lap, the head stepped over a dead
 * submitter's slot by the next lap's submit, a tail reservation helped, a receive meeting a lap of
 * running jobs, what a look behind the head must not take, the word a completer holds while it
 * writes, the beats of {@code complete} and {@code heartbeat()} on a record other than 0, a record
 * taken over under a live handle, the watchdog's own scans and the scans {@code register} makes,
 * and closing the handle on record 0.
 */
class SchedulerSweepAndHeadStepsTest {

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
        assertThat(s.collector().poll(CAPACITY)).hasSize(CAPACITY);
    }

    @Test
    void theWatchdogRequeuesOnlyTheDeadRecordsOwnGenerationsJobsAndNamesTheirIds() {
        BackgroundScheduler<Long, Long> owner = handles.get(0);
        oneLap(owner);
        BackgroundScheduler<Long, Long> doomed = handle();
        BackgroundScheduler<Long, Long> live = handle();
        owner.submit(10L); // id 4
        owner.submit(11L); // id 5
        owner.submit(12L); // id 6
        Job<Long> first = doomed.receive(PID).orElseThrow();
        Job<Long> kept = live.receive(PID).orElseThrow();
        Job<Long> second = doomed.receive(PID).orElseThrow();
        assertThat(List.of(first.id(), kept.id(), second.id())).containsExactly(4L, 5L, 6L);
        assertThat(recordOf(first)).isNotEqualTo(recordOf(kept));
        assertThat(generation(first.word)).isEqualTo(generation(kept.word));
        // id 7 running under the doomed record's older generation: not this sweep's.
        long older = pack(1, RUNNING, participant(first.word), generation(first.word) + 3, 1);
        raw.setLongVolatile(slot(7), older);
        raw.setLongVolatile(TAIL_OFFSET, 8);
        raw.setLongVolatile(HEAD_OFFSET, 8);
        kill(recordOf(first));
        long scans = owner.opCounts().get("watchdog_scan");

        ReclaimReport report = owner.watchdogScan();

        assertThat(report.requeuedJobIds()).containsExactly(4L, 6L);
        assertThat(report.deadParticipants()).isEqualTo(1);
        assertThat(raw.getLongVolatile(slot(5))).isEqualTo(kept.word);
        assertThat(raw.getLongVolatile(slot(7))).isEqualTo(older);
        assertThat(live.complete(kept, 50L)).isTrue();
        assertThat(owner.opCounts().get("watchdog_scan") - scans).isEqualTo(1);
        raw.setLongVolatile(slot(7), pack(1, DONE, 0, 0, 1));
    }

    @Test
    @Timeout(60)
    void theNextLapsSubmitStepsTheHeadOverADeadSubmittersSlotNoReceiveSteppedOver() {
        BackgroundScheduler<Long, Long> s = handles.get(0);
        // Position 0 abandoned by a scan (its submitter died mid-write); nothing received since.
        raw.setLongVolatile(slot(0), pack(0, ABANDONED, 0, 0, 0));
        raw.setLongVolatile(TAIL_OFFSET, 1);
        assertThat(s.submit(1L)).isEqualTo(1);
        assertThat(s.submit(2L)).isEqualTo(2);
        assertThat(s.submit(3L)).isEqualTo(3);

        assertThat(s.submit(4L)).isEqualTo(4);

        assertThat(raw.getLongVolatile(HEAD_OFFSET)).isEqualTo(1);
        List<Long> received = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            received.add(s.receive(PID).orElseThrow().payload());
        }
        assertThat(received).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    @Timeout(60)
    void aSubmitHelpsTheTailPastASlotReservedByASubmitterKilledBeforeMovingIt() {
        BackgroundScheduler<Long, Long> s = handles.get(0);
        raw.setLongVolatile(slot(0), pack(0, WRITING, 9, 1, 0));

        assertThat(s.submit(5L)).isEqualTo(1);

        assertThat(raw.getLongVolatile(TAIL_OFFSET)).isEqualTo(2);
        assertThat(state(raw.getLongVolatile(slot(1)))).isEqualTo(QUEUED);
    }

    @Test
    @Timeout(60)
    void aReceiveMeetingALapOfRunningJobsAnswersNothingYet() {
        BackgroundScheduler<Long, Long> s = handles.get(0);
        for (long i = 0; i < CAPACITY; i++) {
            s.submit(i);
            assertThat(s.receive(PID).orElseThrow().id()).isEqualTo(i);
        }

        assertThat(s.receive(PID)).isEmpty();
        assertThat(s.trySubmit(9L)).isEqualTo(-1);
    }

    @Test
    void aLookBehindTheHeadTakesNeitherALiveWorkersJobNorTheNextLapsJob() {
        BackgroundScheduler<Long, Long> s = handles.get(0);
        BackgroundScheduler<Long, Long> live = handle();
        s.submit(0L);
        s.complete(s.receive(PID).orElseThrow(), 0L);
        assertThat(s.collector().poll(1)).hasSize(1); // slot 0 free for lap 1
        s.submit(1L);
        Job<Long> running = live.receive(PID).orElseThrow(); // id 1, behind the head
        s.submit(2L);
        s.submit(3L);
        s.submit(4L); // id 4: slot 0, lap 1, behind the head by slot
        raw.setLongVolatile(REQUEUED_HINT_OFFSET, 1); // left high by a crash

        Job<Long> next = s.receive(PID).orElseThrow();

        assertThat(next.id()).isEqualTo(2);
        assertThat(raw.getLongVolatile(slot(1))).isEqualTo(running.word);
        assertThat(live.complete(running, 1L)).isTrue();
        assertThat(s.receive(PID).orElseThrow().id()).isEqualTo(3);
        assertThat(s.receive(PID).orElseThrow().id()).isEqualTo(4);
    }

    @Test
    void aCompleterHoldsItsJobsOwnWordMarkedCompletingWhileItWritesTheResult() {
        Path watched = dir.resolve("watched.cxc");
        long[] seen = new long[1];
        AtomicBuffer[] watchedRaw = new AtomicBuffer[1];
        FixedCodec<Long> watching =
                new FixedCodec<>() {
                    @Override
                    public int size() {
                        return 8;
                    }

                    @Override
                    public void write(AtomicBuffer buffer, int offset, Long value) {
                        if (watchedRaw[0] != null) {
                            seen[0] = watchedRaw[0].getLongVolatile(slot(0));
                        }
                        buffer.setLongPlain(offset, value);
                    }

                    @Override
                    public Long read(AtomicBuffer buffer, int offset) {
                        return buffer.getLongPlain(offset);
                    }

                    @Override
                    public long fingerprint() {
                        return 0x57A7C4L;
                    }

                    @Override
                    public String describe() {
                        return "watching";
                    }
                };
        try (BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        watched,
                        new BackgroundScheduler.Settings<>(
                                CAPACITY, FixedCodec.INT64, watching, Duration.ofDays(1)),
                        CxcFileOptions.defaults())) {
            watchedRaw[0] = RawBody.of(watched);
            s.submit(1L);
            Job<Long> job = s.receive(PID).orElseThrow();

            assertThat(s.complete(job, 2L)).isTrue();

            long expected = (job.word & ~(7L << 24)) | ((long) COMPLETING << 24);
            assertThat(state(seen[0])).isEqualTo(COMPLETING);
            assertThat(seen[0]).isEqualTo(expected);
            assertThat(participant(seen[0])).isEqualTo(participant(job.word));
            assertThat(generation(seen[0])).isEqualTo(generation(job.word));
            assertThat(attempt(seen[0])).isEqualTo(attempt(job.word));
            assertThat(state(watchedRaw[0].getLongVolatile(slot(0)))).isEqualTo(DONE);
        }
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
    void aDeadWorkersCollectableResultStaysAndASilentSubmittersSlotIsLeftToIt() {
        BackgroundScheduler<Long, Long> owner = handles.get(0);
        BackgroundScheduler<Long, Long> doomed = handle();
        BackgroundScheduler<Long, Long> silent = handle();
        owner.submit(1L);
        owner.submit(2L);
        Job<Long> done = doomed.receive(PID).orElseThrow();
        assertThat(doomed.complete(done, 100L)).isTrue();
        Job<Long> running = doomed.receive(PID).orElseThrow();
        silent.submit(3L); // id 2: claims silent's record
        Job<Long> silentsJob = silent.receive(PID).orElseThrow();
        int silentRecord = recordOf(silentsJob);
        // The silent participant holds id 3 half-written, and has not beaten for two days.
        long writing =
                pack(0, WRITING, participant(silentsJob.word), generation(silentsJob.word), 0);
        raw.setLongVolatile(slot(3), writing);
        raw.setLongVolatile(TAIL_OFFSET, 4);
        raw.setLongVolatile(
                silentRecord + OwnerRecord.HEARTBEAT_OFFSET,
                System.nanoTime() - Duration.ofDays(2).toNanos());
        kill(recordOf(running));

        ReclaimReport report = owner.watchdogScan();

        assertThat(report.requeuedJobIds())
                .containsExactlyInAnyOrder(running.id(), silentsJob.id());
        assertThat(report.abandonedSubmits()).isZero();
        assertThat(raw.getLongVolatile(slot(3))).isEqualTo(writing);
        assertThat(state(raw.getLongVolatile(slot(done.id())))).isEqualTo(DONE);
        List<JobResult<Long>> results = owner.collector().poll(5);
        assertThat(results).hasSize(1);
        assertThat(results.get(0).jobId()).isEqualTo(done.id());
        assertThat(results.get(0).result()).isEqualTo(100L);
        raw.setLongVolatile(slot(3), pack(0, ABANDONED, 0, 0, 0));
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
}
