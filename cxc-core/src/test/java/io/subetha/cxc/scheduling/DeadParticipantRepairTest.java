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
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watchdog's repairs, one crash state at a time, planted in the file as a killed process leaves
 * it (its participant record's PID made one no process can have): a dead worker's running and
 * completing jobs re-queued, a silent one's completing job left to it, a dead submitter's
 * half-written slot abandoned and stepped over, and only dead records freed. The grace is a day, so
 * nothing here is stale unless the test says so.
 */
class DeadParticipantRepairTest {

    /** A PID no process can have (above every kernel's pid_max): always provably dead. */
    static final long DEAD_PID = Pids.MAX_PID - 1;

    static final long PID = Pids.current();

    @TempDir Path dir;
    Path path;
    BackgroundScheduler<Long, Long> scanner;
    BackgroundScheduler<Long, Long> worker;
    AtomicBuffer raw;

    @BeforeEach
    void open() {
        path = dir.resolve("jobs.cxc");
        scanner =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                4, FixedCodec.INT64, FixedCodec.INT64, Duration.ofDays(1)),
                        CxcFileOptions.defaults());
        worker =
                BackgroundScheduler.open(
                        path,
                        new BackgroundScheduler.Settings<>(4, FixedCodec.INT64, FixedCodec.INT64));
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        worker.close();
        scanner.close();
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
        assertThat(scanner.collector().poll(4)).extracting(JobResult::result).containsExactly(2L);
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
        List<JobResult<Long>> results = scanner.collector().poll(1);
        assertThat(results).singleElement().satisfies(r -> assertThat(r.jobId()).isEqualTo(id));
    }
}
