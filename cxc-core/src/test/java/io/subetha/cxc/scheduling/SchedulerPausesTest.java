package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.HeldCodec;
import io.subetha.cxc.testing.HeldCodec.Side;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handle's thread paused between two steps of its own (held inside the job or result codec, as a
 * GC or {@code SIGSTOP} would hold it) while other handles go on: a worker paused between its claim
 * and its copy of the payload runs no other job's payload, at the head or behind it; and a close
 * racing the handle's own submit or complete keeps the record those slots name until they end (the
 * last of them frees it), so a process that exits meanwhile leaves slots a scan repairs.
 */
@Timeout(60)
class SchedulerPausesTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long PID = Pids.current();

    @TempDir Path dir;
    Path path;
    final HeldCodec held = new HeldCodec();
    final List<BackgroundScheduler<Long, Long>> handles = new ArrayList<>();
    AtomicBuffer raw;
    BackgroundScheduler<Long, Long> other;

    @BeforeEach
    void open() {
        path = dir.resolve("jobs.cxc");
        other =
                keep(
                        BackgroundScheduler.TYPE.create(
                                path,
                                new BackgroundScheduler.Settings<>(
                                        1, FixedCodec.INT64, FixedCodec.INT64, Duration.ofDays(1)),
                                CxcFileOptions.defaults()));
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        handles.forEach(BackgroundScheduler::close);
    }

    BackgroundScheduler<Long, Long> keep(BackgroundScheduler<Long, Long> s) {
        handles.add(s);
        return s;
    }

    /** A handle whose job and result copies the test can hold. */
    BackgroundScheduler<Long, Long> heldHandle() {
        return keep(
                BackgroundScheduler.open(path, new BackgroundScheduler.Settings<>(1, held, held)));
    }

    /** Makes the record that {@code word} names look held by a process that died. */
    void killHolderOf(long word) {
        int record = participantOffset(participant(word));
        long owner = OwnerRecord.ownerWord(raw, record);
        raw.setLongVolatile(
                record + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(DEAD_PID, OwnerRecord.key(owner)));
    }

    long slotWord() {
        return raw.getLongVolatile(SLOTS_OFFSET);
    }

    /**
     * Job 0 re-queued from under the paused worker, run, collected, and its slot refilled as job 1.
     */
    void runJobZeroElsewhereAndRefillItsSlot() {
        killHolderOf(slotWord());
        assertThat(other.watchdogScan().requeuedJobIds()).containsExactly(0L);
        Job<Long> again = other.receive(PID).orElseThrow();
        assertThat(again.id()).isZero();
        assertThat(other.complete(again, 1L)).isTrue();
        assertThat(other.collector().take(1)).hasSize(1);
        assertThat(other.submit(20L)).isEqualTo(1);
    }

    @Test
    void aWorkerPausedBetweenItsClaimAndItsCopyRunsNoOtherJobsPayload() {
        BackgroundScheduler<Long, Long> paused = heldHandle();
        other.submit(10L);
        StepGate<Optional<Job<Long>>> receiving = held.hold(Side.READ, () -> paused.receive(PID));
        assertThat(state(slotWord())).isEqualTo(RUNNING);

        runJobZeroElsewhereAndRefillItsSlot();

        Optional<Job<Long>> received = receiving.release();
        // Never job 0 with job 1's payload: the copy is refused and the worker goes on to job 1.
        assertThat(received).hasValueSatisfying(job -> assertThat(job.id()).isEqualTo(1));
        assertThat(received.orElseThrow().payload()).isEqualTo(20L);
    }

    @Test
    void aWorkerPausedWhileTakingARequeuedJobRunsNoOtherJobsPayload() {
        BackgroundScheduler<Long, Long> paused = heldHandle();
        BackgroundScheduler<Long, Long> doomed = keep(BackgroundScheduler.open(path, settings()));
        other.submit(10L);
        killHolderOf(doomed.receive(PID).orElseThrow().word);
        assertThat(other.watchdogScan().requeuedJobIds()).containsExactly(0L);
        StepGate<Optional<Job<Long>>> receiving =
                held.hold(Side.READ, () -> paused.receive(PID)); // behind the head
        assertThat(attempt(slotWord())).isEqualTo(2);

        runJobZeroElsewhereAndRefillItsSlot();

        Optional<Job<Long>> received = receiving.release();
        assertThat(received).hasValueSatisfying(job -> assertThat(job.id()).isEqualTo(1));
        assertThat(received.orElseThrow().payload()).isEqualTo(20L);
    }

    int recordOf(long word) {
        return participantOffset(participant(word));
    }

    long holderPid(int record) {
        return OwnerRecord.pid(OwnerRecord.ownerWord(raw, record));
    }

    @Test
    void aCloseRacingItsHandlesOwnSubmitKeepsTheRecordTheSlotNamesUntilTheSubmitEnds() {
        BackgroundScheduler<Long, Long> closing = heldHandle();
        StepGate<Long> submitting = held.hold(Side.WRITE, () -> closing.trySubmit(5L));
        long writing = slotWord();
        assertThat(state(writing)).isEqualTo(WRITING);

        closing.close();

        // Freed now, the WRITING slot would name a free record, which no scan repairs: if the
        // process then exits, the head is held for good.
        assertThat(holderPid(recordOf(writing))).isEqualTo(PID);
        assertThat(submitting.release()).isZero();
        assertThat(holderPid(recordOf(writing))).isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(other.receive(PID).orElseThrow().payload()).isEqualTo(5L);
    }

    @Test
    void aCloseRacingItsHandlesOwnCompleteKeepsTheRecordTheSlotNamesUntilTheCompleteEnds() {
        BackgroundScheduler<Long, Long> closing = heldHandle();
        other.submit(5L);
        Job<Long> job = closing.receive(PID).orElseThrow();
        StepGate<Boolean> completing = held.hold(Side.WRITE, () -> closing.complete(job, 6L));
        assertThat(state(slotWord())).isEqualTo(COMPLETING);

        closing.close();

        assertThat(holderPid(recordOf(job.word))).isEqualTo(PID);
        assertThat(completing.release()).isTrue();
        assertThat(holderPid(recordOf(job.word))).isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(other.collector().result(0)).contains(6L);
    }

    static BackgroundScheduler.Settings<Long, Long> settings() {
        return new BackgroundScheduler.Settings<>(1, FixedCodec.INT64, FixedCodec.INT64);
    }
}
