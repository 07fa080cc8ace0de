package io.subetha.cxc.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fire-and-forget jobs: a job submitted without wanting its result frees its slot as its worker
 * completes it, so a scheduler nobody collects from never fills up; per submit, or for every job a
 * handle submits; a late complete of such a job is refused like any other.
 */
@Timeout(120)
class SchedulerFireAndForgetTest {

    static final long PID = Pids.current();

    @TempDir Path dir;

    BackgroundScheduler<Long, Long> scheduler(BackgroundScheduler.Settings<Long, Long> settings) {
        return BackgroundScheduler.TYPE.create(dir.resolve("jobs.cxc"), settings);
    }

    static BackgroundScheduler.Settings<Long, Long> settings(int capacity) {
        return new BackgroundScheduler.Settings<>(capacity, FixedCodec.INT64, FixedCodec.INT64);
    }

    @Test
    void farMoreJobsThanCapacityAllRunWithNoCollector() throws InterruptedException {
        int jobs = 2_000;
        try (var s = scheduler(settings(4))) {
            Set<Long> ran = new HashSet<>();
            AtomicBoolean stop = new AtomicBoolean();
            Thread worker =
                    new Thread(
                            () -> {
                                while (!stop.get()) {
                                    s.receive(PID)
                                            .ifPresentOrElse(
                                                    job -> {
                                                        synchronized (ran) {
                                                            ran.add(job.payload());
                                                        }
                                                        assertThat(job.fireAndForget()).isTrue();
                                                        assertThat(s.complete(job, 0L)).isTrue();
                                                    },
                                                    Thread::onSpinWait);
                                }
                            });
            worker.start();
            try {
                for (long j = 0; j < jobs; j++) {
                    while (s.trySubmit(j, JobOptions.fireAndForget()) < 0) {
                        Thread.onSpinWait(); // full until the worker completes one
                    }
                }
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> s.counts().queued() + s.counts().running() == 0);
            } finally {
                stop.set(true);
                worker.join();
            }
            synchronized (ran) {
                assertThat(ran).hasSize(jobs);
            }
            assertThat(s.counts().done()).isZero();
            assertThat(s.jobs()).isEmpty();
            assertThat(s.collector().poll(10)).isEmpty();
        }
    }

    @Test
    void aHandleWhoseSettingsDiscardResultsSubmitsEveryJobFireAndForget() {
        try (var s = scheduler(settings(2).withFireAndForget(true))) {
            for (long j = 0; j < 10; j++) {
                long id = s.submit(j);
                Job<Long> job = s.receive(PID).orElseThrow();
                assertThat(job.id()).isEqualTo(id);
                assertThat(job.fireAndForget()).isTrue();
                assertThat(s.complete(job, j)).isTrue();
                assertThat(s.collector().result(id)).isEmpty();
            }
            assertThat(s.counts()).isEqualTo(new BackgroundScheduler.Counts(0, 0, 0, 0, 0));
        }
    }

    @Test
    void keptAndDiscardedResultsMixAndALateCompleteIsRefused() {
        try (var s = scheduler(settings(4))) {
            long kept = s.submit(1L);
            long discarded = s.submit(2L, JobOptions.fireAndForget());
            Job<Long> first = s.receive(PID).orElseThrow();
            Job<Long> second = s.receive(PID).orElseThrow();
            assertThat(first.fireAndForget()).isFalse();
            assertThat(second.fireAndForget()).isTrue();
            assertThat(s.complete(second, 20L)).isTrue();
            assertThat(s.complete(second, 21L)).isFalse(); // its slot is free: fenced off
            assertThat(s.complete(first, 10L)).isTrue();
            assertThat(s.collector().take(4))
                    .extracting(JobResult::jobId, JobResult::result)
                    .containsExactly(tuple(kept, 10L));
            assertThat(s.collector().result(discarded)).isEmpty();
            assertThat(s.jobs()).isEmpty();
        }
    }
}
