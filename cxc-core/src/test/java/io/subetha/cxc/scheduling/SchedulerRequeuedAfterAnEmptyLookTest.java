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
 * A worker whose look behind the head found nothing (the re-queued-jobs hint left high, as a crash
 * leaves it) still receives a job another handle's watchdog re-queues afterwards ahead of later
 * jobs: it looks again once the hint moves, not only after its own next scan.
 */
class SchedulerRequeuedAfterAnEmptyLookTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long PID = Pids.current();
    static final int CAPACITY = 8;

    @TempDir Path dir;
    Path path;
    final List<BackgroundScheduler<Long, Long>> handles = new ArrayList<>();
    AtomicBuffer raw;

    @BeforeEach
    void open() {
        path = dir.resolve("jobs.cxc");
        handles.add(
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                CAPACITY, FixedCodec.INT64, FixedCodec.INT64, Duration.ofDays(1)),
                        CxcFileOptions.defaults()));
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        handles.forEach(BackgroundScheduler::close);
    }

    BackgroundScheduler<Long, Long> handle() {
        BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.open(
                        path,
                        new BackgroundScheduler.Settings<>(
                                CAPACITY, FixedCodec.INT64, FixedCodec.INT64));
        handles.add(s);
        return s;
    }

    void kill(Job<Long> job) {
        int record = participantOffset(participant(job.word));
        long word = OwnerRecord.ownerWord(raw, record);
        raw.setLongVolatile(
                record + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(DEAD_PID, OwnerRecord.key(word)));
    }

    @Test
    void aJobAnotherHandleRequeuesAfterAnEmptyLookIsReceivedAheadOfLaterJobs() {
        BackgroundScheduler<Long, Long> worker = handles.get(0);
        BackgroundScheduler<Long, Long> doomed = handle();
        BackgroundScheduler<Long, Long> watchdog = handle();
        raw.setLongVolatile(REQUEUED_HINT_OFFSET, 1); // left high by a crash
        assertThat(worker.receive(PID)).isEmpty(); // its look behind the head finds nothing
        worker.submit(40L); // id 0
        Job<Long> lost = doomed.receive(PID).orElseThrow();
        kill(lost);
        assertThat(watchdog.watchdogScan().requeuedJobIds()).containsExactly(0L);
        assertThat(raw.getLongVolatile(REQUEUED_HINT_OFFSET)).isEqualTo(2);
        worker.submit(41L); // id 1

        Job<Long> next = worker.receive(PID).orElseThrow();

        assertThat(next.id()).isZero();
        assertThat(next.attempt()).isEqualTo(2);
        assertThat(next.payload()).isEqualTo(40L);
        assertThat(worker.receive(PID).orElseThrow().id()).isEqualTo(1);
    }

    @Test
    void aWorkerWhoseLookFoundNothingReceivesAtTheHeadWhileTheHintStaysPut() {
        BackgroundScheduler<Long, Long> worker = handles.get(0);
        raw.setLongVolatile(REQUEUED_HINT_OFFSET, 1);
        assertThat(worker.receive(PID)).isEmpty();
        worker.submit(50L);
        worker.submit(51L);

        assertThat(worker.receive(PID).orElseThrow().payload()).isEqualTo(50L);
        assertThat(worker.receive(PID).orElseThrow().payload()).isEqualTo(51L);

        assertThat(raw.getLongVolatile(REQUEUED_HINT_OFFSET)).isEqualTo(1);
    }
}
