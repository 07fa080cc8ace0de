package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker's failure report racing the watchdog's re-queue of the same job, the worker silent (a
 * GC, {@code SIGSTOP}) with a grace of 1 ns: re-queued before the report's CAS, the report is
 * refused and the job runs again as the next attempt, queued once; held after its CAS (inside the
 * exception's message, as a pause would hold it) the job is left to the reporter, which queues its
 * retry once.
 */
@Timeout(60)
class SchedulerRetryRacesTest {

    static final long PID = Pids.current();

    @TempDir Path dir;
    Path path;
    AtomicBuffer raw;
    BackgroundScheduler<Long, Long> worker;
    BackgroundScheduler<Long, Long> watchdog;

    @BeforeEach
    void open() {
        path = dir.resolve("jobs.cxc");
        var settings =
                new BackgroundScheduler.Settings<>(
                                2, FixedCodec.INT64, FixedCodec.INT64, Duration.ofNanos(1))
                        .withRetry(RetryPolicy.fixed(3, Duration.ZERO));
        worker = BackgroundScheduler.TYPE.create(path, settings, CxcFileOptions.defaults());
        watchdog = BackgroundScheduler.open(path, settings);
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        worker.close();
        watchdog.close();
    }

    long slotWord() {
        return raw.getLongVolatile(SLOTS_OFFSET);
    }

    @Test
    void aFailureReportedAfterTheWatchdogRequeuedTheJobIsRefusedAndTheJobQueuedOnce() {
        watchdog.submit(5L);
        Job<Long> job = worker.receive(PID).orElseThrow();
        assertThat(watchdog.watchdogScan().requeuedJobIds()).containsExactly(0L);

        assertThat(worker.fail(job, new IllegalStateException("late")))
                .isEqualTo(FailOutcome.REFUSED);

        assertThat(state(slotWord())).isEqualTo(QUEUED);
        assertThat(raw.getLongVolatile(REQUEUED_HINT_OFFSET)).isEqualTo(1);
        assertThat(raw.getLongVolatile(SLOTS_OFFSET + NOT_BEFORE_OFFSET)).isZero(); // untouched
        Job<Long> again = watchdog.receive(PID).orElseThrow();
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(watchdog.receive(PID)).isEmpty();
        assertThat(watchdog.fail(again, new IllegalStateException()))
                .isEqualTo(FailOutcome.RETRYING);
        assertThat(watchdog.jobs()).containsExactly(new JobEntry(0, JobEntry.State.QUEUED, 0, 2));
    }

    @Test
    void aFailureHeldAfterItsClaimIsLeftToItsSilentReporterWhichQueuesTheRetryOnce()
            throws Exception {
        watchdog.submit(5L);
        Job<Long> job = worker.receive(PID).orElseThrow();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        RuntimeException held =
                new IllegalStateException() {
                    @Override
                    public String getMessage() {
                        inside.countDown();
                        try {
                            go.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return "held";
                    }
                };
        CompletableFuture<FailOutcome> failing =
                CompletableFuture.supplyAsync(() -> worker.fail(job, held));
        try {
            assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
            long completing = slotWord();
            assertThat(state(completing)).isEqualTo(COMPLETING);

            // Silent beyond the grace, but alive: its report may still be written, so it is its.
            assertThat(watchdog.watchdogScan().requeuedJobIds()).isEmpty();
            assertThat(slotWord()).isEqualTo(completing);
            assertThat(watchdog.receive(PID)).isEmpty();
        } finally {
            go.countDown();
        }
        assertThat(failing.get(30, TimeUnit.SECONDS)).isEqualTo(FailOutcome.RETRYING);
        assertThat(state(slotWord())).isEqualTo(QUEUED);
        assertThat(attempt(slotWord())).isEqualTo(1);
        assertThat(raw.getLongVolatile(REQUEUED_HINT_OFFSET)).isEqualTo(1);
        assertThat(watchdog.watchdogScan().requeuedJobIds()).isEmpty();
        Job<Long> again = watchdog.receive(PID).orElseThrow();
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(watchdog.receive(PID)).isEmpty();
    }
}
