package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

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
 * The watchdog's repairs, each crash state planted in the file as a killed process leaves it (a
 * participant record's PID made one no process can have): a dead worker's running and completing
 * jobs re-queued and fenced, a silent one's completing job left to it, a silent submitter's slot
 * stepped over but kept from the next lap until its writer lets it go or dies, a silent worker's
 * running job re-queued while its record stays, a dead submitter's half-written slot abandoned and
 * stepped over, only dead records freed; the watchdog's filter (another worker of the same
 * generation and an older generation of the dead record left alone) and the ids it reports in a
 * later lap, and a dead worker's collectable result kept. The grace is a day, so nothing here is
 * stale unless the test says so.
 */
class SchedulerCrashRepairTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long PID = Pids.current();
    static final int CAPACITY = 4;
    static final int STRIDE = slotStride(8, 8);

    @TempDir Path dir;
    Path path;
    final List<BackgroundScheduler<Long, Long>> handles = new ArrayList<>();
    AtomicBuffer raw;
    BackgroundScheduler<Long, Long> scanner;
    BackgroundScheduler<Long, Long> worker;

    @BeforeEach
    void open() {
        path = dir.resolve("jobs.cxc");
        scanner = handle(Duration.ofDays(1));
        worker = handle();
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

    /** Makes the record that holds {@code job} look like its process was killed. */
    long kill(Job<Long> job) {
        int record = participantOffset(participant(job.word));
        long word = OwnerRecord.ownerWord(raw, record);
        long dead = OwnerRecord.ownerWord(DEAD_PID, OwnerRecord.key(word));
        raw.setLongVolatile(record + OwnerRecord.OWNER_WORD_OFFSET, dead);
        return dead;
    }

    int slotOf(long id) {
        return SLOTS_OFFSET + (int) (id % 4) * slotStride(8, 8);
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
    void aDeadWorkersCollectableResultStaysAndASilentSubmittersSlotIsSteppedOverButKeptForIt() {
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
        // Stepped over, so it holds up no dispatch; kept from the next lap, as its writer may
        // still copy its job into it.
        assertThat(report.abandonedSubmits()).isOne();
        assertThat(raw.getLongVolatile(slot(3))).isEqualTo(steppedOver(writing));
        assertThat(writerHolds(raw.getLongVolatile(slot(3)))).isTrue();
        assertThat(state(raw.getLongVolatile(slot(done.id())))).isEqualTo(DONE);
        List<JobResult<Long>> results = owner.collector().take(5);
        assertThat(results).hasSize(1);
        assertThat(results.get(0).jobId()).isEqualTo(done.id());
        assertThat(results.get(0).result()).isEqualTo(100L);
        raw.setLongVolatile(slot(3), pack(0, ABANDONED, 0, 0, 0));
    }

    @Test
    void aSlotSteppedOverFromAWriterThatThenDiedIsNobodysAndTheNextLapFreesIt() {
        worker.heartbeat(); // the writer: record 0
        int record = participantOffset(0);
        long key = OwnerRecord.key(OwnerRecord.ownerWord(raw, record));
        // Job 0's writer went silent mid-write; a scan stepped its slot over.
        raw.setLongVolatile(slot(0), steppedOver(pack(0, WRITING, 0, key, 0)));
        raw.setLongVolatile(TAIL_OFFSET, 1);
        raw.setLongVolatile(HEAD_OFFSET, 1);
        for (long j = 1; j < CAPACITY; j++) {
            assertThat(scanner.submit(j)).isEqualTo(j);
            assertThat(scanner.complete(scanner.receive(PID).orElseThrow(), j)).isTrue();
        }
        assertThat(scanner.collector().take(CAPACITY)).hasSize(CAPACITY - 1);
        // Its writer may still copy into it: the next lap may not reuse it yet.
        assertThat(scanner.trySubmit(4L)).isEqualTo(-1);

        kill(record);
        assertThat(scanner.watchdogScan().deadParticipants()).isOne();

        assertThat(raw.getLongVolatile(slot(0))).isEqualTo(pack(0, ABANDONED, 0, 0, 0));
        assertThat(scanner.trySubmit(4L)).isEqualTo(4);
    }

    @Test
    void aResultPolledByACollectorThatDiedBeforeAcknowledgingIsDeliveredAgain() {
        BackgroundScheduler<Long, Long> collector = handle();
        long id = scanner.submit(7L); // record 0
        assertThat(worker.complete(worker.receive(PID).orElseThrow(), 70L)).isTrue(); // record 1
        List<JobResult<Long>> polled = collector.collector().poll(4); // record 2
        assertThat(polled).extracting(JobResult::result).containsExactly(70L);
        assertThat(scanner.collector().poll(4)).isEmpty(); // delivered to one collector at a time

        kill(participantOffset(2));
        scanner.watchdogScan();

        List<JobResult<Long>> again = scanner.collector().poll(4);
        assertThat(again).extracting(JobResult::jobId).containsExactly(id);
        assertThat(again).extracting(JobResult::result).containsExactly(70L);
        assertThat(collector.collector().acknowledge(polled)).isZero(); // too late: handed back
        assertThat(scanner.counts().done()).isOne();
        assertThat(scanner.collector().acknowledge(again)).isOne();
        assertThat(scanner.counts().done()).isZero();
        assertThat(scanner.counts().collected()).isOne();
        assertThat(scanner.collector().poll(4)).isEmpty();
    }

    @Test
    void aCollectorsCloseHandsBackWhatItPolledAndDidNotAcknowledge() {
        BackgroundScheduler<Long, Long> collector = handle();
        scanner.submit(7L);
        assertThat(worker.complete(worker.receive(PID).orElseThrow(), 70L)).isTrue();
        List<JobResult<Long>> polled = collector.collector().poll(4);
        assertThat(polled).hasSize(1);

        collector.close();

        assertThat(collector.collector().acknowledge(polled)).isZero();
        assertThat(scanner.collector().take(4)).extracting(JobResult::result).containsExactly(70L);
        assertThat(scanner.counts().collected()).isOne();
    }

    @Test
    void aDeadWorkersRunningJobIsRequeuedFencedAndItsRecordFreed() {
        long id = scanner.submit(7L);
        Job<Long> job = worker.receive(PID).orElseThrow();
        int record = participantOffset(participant(job.word));
        long dead = kill(job);

        ReclaimReport report = scanner.watchdogScan();

        assertThat(report.requeuedJobIds()).containsExactly(id);
        assertThat(report.deadParticipants()).isEqualTo(1);
        assertThat(report.abandonedSubmits()).isZero();
        assertThat(OwnerRecord.ownerWord(raw, record)).isEqualTo(OwnerRecord.freed(dead));
        assertThat(state(raw.getLongVolatile(slotOf(id)))).isEqualTo(QUEUED);
        assertThat(scanner.counts().reclaimed()).isEqualTo(1);
        assertThat(scanner.counts().queued()).isEqualTo(1);
        assertThat(worker.complete(job, 1L)).isFalse();

        Job<Long> again = scanner.receive(PID).orElseThrow();
        assertThat(again.id()).isEqualTo(id);
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(again.payload()).isEqualTo(7L);
        assertThat(scanner.complete(again, 2L)).isTrue();
        assertThat(scanner.collector().take(4)).extracting(JobResult::result).containsExactly(2L);
        assertThat(scanner.watchdogScan().isEmpty()).isTrue();
    }

    @Test
    void aDeadCompletersJobIsRequeuedButASilentCompletersIsLeftToIt() {
        long deadId = scanner.submit(1L);
        long silentId = scanner.submit(2L);
        Job<Long> deadJob = worker.receive(PID).orElseThrow();
        BackgroundScheduler<Long, Long> silent =
                BackgroundScheduler.open(
                        path,
                        new BackgroundScheduler.Settings<>(4, FixedCodec.INT64, FixedCodec.INT64));
        try {
            Job<Long> silentJob = silent.receive(PID).orElseThrow();
            assertThat(silentJob.id()).isEqualTo(silentId);
            // Both were killed (or stopped) after the COMPLETING CAS, before publishing DONE.
            long completingDead = (deadJob.word & ~(7L << 24)) | ((long) COMPLETING << 24);
            long completingSilent = (silentJob.word & ~(7L << 24)) | ((long) COMPLETING << 24);
            raw.setLongVolatile(slotOf(deadId), completingDead);
            raw.setLongVolatile(slotOf(silentId), completingSilent);
            kill(deadJob);
            int silentRecord = participantOffset(participant(silentJob.word));
            raw.setLongVolatile(
                    silentRecord + OwnerRecord.HEARTBEAT_OFFSET,
                    System.nanoTime() - Duration.ofDays(2).toNanos());

            ReclaimReport report = scanner.watchdogScan();

            assertThat(report.requeuedJobIds()).containsExactly(deadId);
            assertThat(report.deadParticipants()).isEqualTo(1);
            assertThat(raw.getLongVolatile(slotOf(silentId))).isEqualTo(completingSilent);
            assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, silentRecord))).isEqualTo(PID);
            assertThat(scanner.counts().running()).isEqualTo(1);
            assertThat(scanner.counts().queued()).isEqualTo(1);
        } finally {
            silent.close();
        }
    }

    @Test
    void aSilentWorkersRunningJobIsRequeuedButItsRecordKept() {
        long id = scanner.submit(3L);
        Job<Long> job = worker.receive(PID).orElseThrow();
        int record = participantOffset(participant(job.word));
        long word = OwnerRecord.ownerWord(raw, record);
        raw.setLongVolatile(
                record + OwnerRecord.HEARTBEAT_OFFSET,
                System.nanoTime() - Duration.ofDays(2).toNanos());

        ReclaimReport report = scanner.watchdogScan();

        assertThat(report.requeuedJobIds()).containsExactly(id);
        assertThat(report.deadParticipants()).isZero();
        assertThat(OwnerRecord.ownerWord(raw, record)).isEqualTo(word);
        assertThat(worker.complete(job, 9L)).isFalse();
    }

    @Test
    void aDeadSubmittersHalfWrittenSlotIsAbandonedAndSteppedOver() {
        // A submitter that won slot 0's WRITING CAS and moved the tail, then was killed.
        int record = participantOffset(9);
        long dead = OwnerRecord.ownerWord(DEAD_PID, 1);
        raw.setLongVolatile(record + OwnerRecord.OWNER_WORD_OFFSET, dead);
        raw.setLongVolatile(slotOf(0), pack(0, WRITING, 9, 1, 0));
        raw.setLongVolatile(TAIL_OFFSET, 1);
        assertThat(worker.receive(PID)).isEmpty(); // waits for the writer a while, then gives up

        ReclaimReport report = scanner.watchdogScan();

        assertThat(report.abandonedSubmits()).isEqualTo(1);
        assertThat(report.deadParticipants()).isEqualTo(1);
        assertThat(report.requeuedJobIds()).isEmpty();
        assertThat(state(raw.getLongVolatile(slotOf(0)))).isEqualTo(ABANDONED);
        assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, record)))
                .isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(scanner.counts().queued()).isZero();

        long id = scanner.submit(4L);
        assertThat(id).isEqualTo(1);
        Job<Long> job = worker.receive(PID).orElseThrow();
        assertThat(job.id()).isEqualTo(1);
        assertThat(job.payload()).isEqualTo(4L);
        assertThat(raw.getLongVolatile(HEAD_OFFSET)).isEqualTo(2);
    }

    @Test
    void aLiveParticipantIsNeitherSweptNorFreed() {
        long id = scanner.submit(5L);
        Job<Long> job = worker.receive(PID).orElseThrow();
        ReclaimReport report = scanner.watchdogScan();
        assertThat(report.isEmpty()).isTrue();
        assertThat(worker.complete(job, 6L)).isTrue();
        assertThat(scanner.collector().result(id)).contains(6L);
        List<JobResult<Long>> results = scanner.collector().take(1);
        assertThat(results).singleElement().satisfies(r -> assertThat(r.jobId()).isEqualTo(id));
    }
}
