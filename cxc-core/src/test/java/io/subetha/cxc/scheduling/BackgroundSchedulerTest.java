package io.subetha.cxc.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.CxcFileOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler in one process: submission and completion order, a full scheduler, a silent
 * worker's job re-dispatched and its late result refused, closing a worker, threads recording every
 * result once, the counts of every op and slot state, and a reclaim report empty only with nothing
 * in it.
 */
class BackgroundSchedulerTest {

    static final long PID = ProcessHandle.current().pid();

    @TempDir Path dir;

    BackgroundScheduler<Long, Long> scheduler(int capacity) {
        return BackgroundScheduler.TYPE.create(
                dir.resolve("jobs.cxc"),
                new BackgroundScheduler.Settings<>(capacity, FixedCodec.INT64, FixedCodec.INT64));
    }

    @Test
    void jobsRunInSubmissionOrderAndResultsComeBackInCompletionOrder() {
        try (BackgroundScheduler<Long, Long> s = scheduler(8)) {
            long a = s.submit(10L);
            long b = s.submit(20L);
            Job<Long> first = s.receive(PID).orElseThrow();
            Job<Long> second = s.receive(PID).orElseThrow();
            assertThat(first.id()).isEqualTo(a);
            assertThat(first.attempt()).isEqualTo(1);
            assertThat(second.payload()).isEqualTo(20L);
            assertThat(s.receive(PID)).isEmpty();
            assertThat(s.complete(second, 21L)).isTrue();
            assertThat(s.complete(first, 11L)).isTrue();
            assertThat(s.complete(first, 12L)).isFalse(); // recorded once
            assertThat(s.collector().result(b)).contains(21L);
            List<JobResult<Long>> results = s.collector().take(10);
            assertThat(results).extracting(JobResult::jobId).containsExactly(b, a);
            assertThat(results).extracting(JobResult::result).containsExactly(21L, 11L);
            assertThat(s.collector().take(10)).isEmpty();
            assertThat(s.collector().result(b)).isEmpty();
            assertThat(s.describe()).containsEntry("collected", 2L);
        }
    }

    @Test
    void aFullSchedulerIsAnAnswerUntilResultsAreCollected() {
        try (BackgroundScheduler<Long, Long> s = scheduler(2)) {
            for (int lap = 0; lap < 4; lap++) {
                s.submit(1L);
                s.submit(2L);
                assertThat(s.trySubmit(3L)).isEqualTo(-1);
                assertThatThrownBy(() -> s.submit(3L))
                        .isInstanceOf(CxcCapacityException.class)
                        .hasMessageContaining("2 jobs (capacity)");
                for (int i = 0; i < 2; i++) {
                    Job<Long> job = s.receive(PID).orElseThrow();
                    assertThat(s.complete(job, job.payload())).isTrue();
                }
                assertThat(s.collector().take(5)).hasSize(2);
            }
        }
    }

    @Test
    void aSilentWorkersJobIsReDispatchedAndItsLateResultRefused() {
        Path path = dir.resolve("jobs.cxc");
        BackgroundScheduler.Settings<Long, Long> settings =
                new BackgroundScheduler.Settings<>(
                        8, FixedCodec.INT64, FixedCodec.INT64, Duration.ofMillis(200));
        try (BackgroundScheduler<Long, Long> silent =
                        BackgroundScheduler.TYPE.create(path, settings, CxcFileOptions.defaults());
                BackgroundScheduler<Long, Long> other =
                        BackgroundScheduler.open(
                                path,
                                new BackgroundScheduler.Settings<>(
                                        8, FixedCodec.INT64, FixedCodec.INT64))) {
            long id = silent.submit(7L);
            Job<Long> stale = silent.receive(PID).orElseThrow();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> other.watchdogScan().requeuedJobIds().contains(id));
            Job<Long> again = other.receive(PID).orElseThrow();
            assertThat(again.id()).isEqualTo(id);
            assertThat(again.attempt()).isEqualTo(2);
            assertThat(silent.complete(stale, 1L)).isFalse();
            assertThat(other.complete(again, 2L)).isTrue();
            assertThat(other.collector().take(5))
                    .singleElement()
                    .satisfies(
                            r -> {
                                assertThat(r.result()).isEqualTo(2L);
                                assertThat(r.attempt()).isEqualTo(2);
                            });
            assertThat(other.describe()).containsEntry("reclaimed", 1L);
        }
    }

    @Test
    void closingAWorkerPutsItsRunningJobsBackInTheQueue() {
        Path path = dir.resolve("jobs.cxc");
        try (BackgroundScheduler<Long, Long> s = scheduler(8)) {
            s.submit(5L);
            BackgroundScheduler<Long, Long> worker =
                    BackgroundScheduler.open(
                            path,
                            new BackgroundScheduler.Settings<>(
                                    8, FixedCodec.INT64, FixedCodec.INT64));
            Job<Long> job = worker.receive(PID).orElseThrow();
            worker.close();
            Job<Long> again = s.receive(PID).orElseThrow();
            assertThat(again.id()).isEqualTo(job.id());
            assertThat(again.attempt()).isEqualTo(2);
        }
    }

    @Test
    void threadsSubmittingWorkingAndCollectingRecordEveryResultOnce() throws Exception {
        int jobs = 20_000;
        try (BackgroundScheduler<Long, Long> s = scheduler(256)) {
            Map<Long, Long> results = new HashMap<>();
            AtomicBoolean submitted = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            threads.add(
                    new Thread(
                            () -> {
                                for (long j = 0; j < jobs; j++) {
                                    while (s.trySubmit(j) < 0) {
                                        Thread.yield();
                                    }
                                }
                                submitted.set(true);
                            }));
            for (int w = 0; w < 2; w++) {
                threads.add(
                        new Thread(
                                () -> {
                                    while (!submitted.get() || s.counts().queued() > 0) {
                                        s.receive(PID)
                                                .ifPresentOrElse(
                                                        job -> s.complete(job, job.payload() * 3),
                                                        Thread::yield);
                                    }
                                }));
            }
            threads.forEach(Thread::start);
            int duplicates = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (results.size() < jobs && System.nanoTime() < deadline) {
                for (JobResult<Long> r : s.collector().take(256)) {
                    if (results.put(r.jobId(), r.result()) != null) {
                        duplicates++;
                    }
                }
            }
            for (Thread t : threads) {
                t.join(60_000);
            }
            assertThat(duplicates).isZero();
            assertThat(results).hasSize(jobs);
            results.forEach((id, result) -> assertThat(result).isEqualTo(id * 3));
        }
    }

    @Test
    void badArgumentsAreRefusedNamingTheArgument() {
        try (BackgroundScheduler<Long, Long> s = scheduler(4)) {
            assertThatThrownBy(() -> s.receive(PID + 1))
                    .hasMessageContaining("workerPid must be this process's PID");
            assertThatThrownBy(() -> s.collector().take(0)).hasMessageContaining("max must be 1");
            assertThatThrownBy(() -> s.collector().result(-1)).hasMessageContaining("got -1");
        }
        assertThatThrownBy(
                        () ->
                                BackgroundScheduler.TYPE.create(
                                        dir.resolve("zero.cxc"),
                                        new BackgroundScheduler.Settings<>(
                                                0, FixedCodec.INT64, FixedCodec.INT64)))
                .hasMessageContaining("capacity must be 1..");
    }

    @Test
    void aReportIsEmptyOnlyWithNothingInIt() {
        assertThat(new ReclaimReport(List.of(), 0, 0).isEmpty()).isTrue();
        assertThat(new ReclaimReport(List.of(3L), 0, 0).isEmpty()).isFalse();
        assertThat(new ReclaimReport(List.of(), 1, 0).isEmpty()).isFalse();
        assertThat(new ReclaimReport(List.of(), 0, 1).isEmpty()).isFalse();
    }

    @Test
    void everyOpAndEverySlotStateIsCounted() {
        try (BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        dir.resolve("j.cxc"),
                        new BackgroundScheduler.Settings<>(
                                4, FixedCodec.INT64, FixedCodec.INT64))) {
            s.submit(1L);
            s.submit(2L);
            s.submit(3L);
            Job<Long> first = s.receive(PID).orElseThrow();
            assertThat(s.counts()).isEqualTo(new BackgroundScheduler.Counts(2, 1, 0, 0, 0));
            s.complete(first, 10L);
            s.receive(PID).orElseThrow();
            assertThat(s.counts()).isEqualTo(new BackgroundScheduler.Counts(1, 1, 1, 0, 0));
            assertThat(s.describe())
                    .containsEntry("queued", 1L)
                    .containsEntry("running", 1L)
                    .containsEntry("done", 1L);
            assertThat(s.opCounts())
                    .containsEntry("submit", 3L)
                    .containsEntry("recv", 2L)
                    .containsEntry("complete", 1L);
        }
    }
}
