package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job handed back unrun (a worker that may not run it yet, say a concurrency limit) is queued
 * again not before its wait, fenced like a failure, and its dispatch counts as no attempt of its
 * retry policy.
 */
class SchedulerHandBackTest {

    static final long PID = Pids.current();

    @TempDir Path dir;

    BackgroundScheduler<Long, Long> scheduler(RetryPolicy policy) {
        return BackgroundScheduler.TYPE.create(
                dir.resolve("jobs.cxc"),
                new BackgroundScheduler.Settings<>(4, FixedCodec.INT64, FixedCodec.INT64)
                        .withRetry(policy));
    }

    @Test
    void aHandedBackJobIsQueuedAgainWithoutSpendingAnAttempt() {
        try (var s = scheduler(RetryPolicy.fixed(2, Duration.ZERO))) {
            s.submit(5L);
            Job<Long> first = s.receive(PID).orElseThrow();
            assertThat(s.handBack(first, Duration.ZERO)).isEqualTo(FailOutcome.RETRYING);
            assertThat(s.complete(first, 1L)).isFalse(); // the handed-back attempt is fenced off

            Job<Long> second = s.receive(PID).orElseThrow();
            assertThat(second.id()).isEqualTo(first.id());
            assertThat(second.attempt()).isGreaterThan(first.attempt());
            // Two attempts allowed: the hand back was not one, so this failure is retried.
            assertThat(s.fail(second, new IllegalStateException("one")))
                    .isEqualTo(FailOutcome.RETRYING);
            Job<Long> third = s.receive(PID).orElseThrow();
            assertThat(s.fail(third, new IllegalStateException("two")))
                    .isEqualTo(FailOutcome.FAILED);
        }
    }

    @Test
    void aHandedBackJobIsNotDispatchedBeforeItsWaitAndALateHandBackIsRefused() {
        try (var s = scheduler(RetryPolicy.fixed(3, Duration.ZERO))) {
            AtomicBuffer raw = RawBody.of(dir.resolve("jobs.cxc"));
            s.submit(5L);
            Job<Long> job = s.receive(PID).orElseThrow();
            assertThat(s.handBack(job, Duration.ofHours(1))).isEqualTo(FailOutcome.RETRYING);
            assertThat(state(raw.getLongVolatile(SLOTS_OFFSET))).isEqualTo(QUEUED);
            assertThat(s.receive(PID)).isEmpty();
            assertThat(s.handBack(job, Duration.ZERO)).isEqualTo(FailOutcome.REFUSED);
            assertThat(s.receive(PID)).isEmpty(); // the refused hand back changed nothing
        }
    }

    @Test
    void aJobHandedBackAtALimitIsDueOnceALimitsPlaceIsReleasedWakingASleepingWorker() {
        try (var s = scheduler(RetryPolicy.fixed(3, Duration.ofHours(1)))) {
            s.submit(5L);
            s.submit(6L);
            Job<Long> waiting = s.receive(PID).orElseThrow();
            assertThat(s.handBack(waiting, Duration.ofHours(1))).isEqualTo(FailOutcome.RETRYING);
            Job<Long> other = s.receive(PID).orElseThrow();
            assertThat(other.payload()).isEqualTo(6L);
            assertThat(s.receive(PID)).isEmpty(); // waiting its hour
            CompletableFuture<Optional<Job<Long>>> asleep =
                    CompletableFuture.supplyAsync(() -> s.receive(PID, Duration.ofMinutes(1)));

            s.limitReleased(); // a run of its type ended: it is due now, not in an hour

            assertThat(asleep)
                    .succeedsWithin(Duration.ofSeconds(30))
                    .satisfies(job -> assertThat(job.orElseThrow().id()).isEqualTo(waiting.id()));
            // A retry's backoff is not cut short by a release: only a hand-back waits on one.
            assertThat(s.fail(other, new IllegalStateException("later")))
                    .isEqualTo(FailOutcome.RETRYING);
            s.limitReleased();
            assertThat(s.receive(PID)).isEmpty();
        }
    }
}
