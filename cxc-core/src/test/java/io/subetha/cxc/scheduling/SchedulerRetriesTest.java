package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retries and failed jobs: a worker's reported failure queues the job again, not before its
 * exponential backoff, while its run has attempts left under the submitter's policy (the handle's,
 * or the submit's own); a job that spends them is FAILED with its last exception's class and
 * message (cut to a bounded size) and its attempts, holds its slot, is listed by any handle, and is
 * kept until re-run (with its policy's attempts anew) or deleted.
 */
class SchedulerRetriesTest {

    static final long PID = Pids.current();
    static final int STRIDE = slotStride(8, 8);

    @TempDir Path dir;
    Path path;

    BackgroundScheduler<Long, Long> scheduler(int capacity, RetryPolicy policy) {
        path = dir.resolve("jobs.cxc");
        return BackgroundScheduler.TYPE.create(
                path,
                new BackgroundScheduler.Settings<>(capacity, FixedCodec.INT64, FixedCodec.INT64)
                        .withRetry(policy));
    }

    static int slot(long id, int capacity) {
        return SLOTS_OFFSET + (int) (id % capacity) * STRIDE;
    }

    @Test
    void theBackoffGrowsByItsMultiplierUpToItsMaximum() {
        RetryPolicy policy = new RetryPolicy(9, Duration.ofSeconds(1), 2.0, Duration.ofSeconds(5));
        assertThat(policy.backoffNanos(1)).isEqualTo(Duration.ofSeconds(1).toNanos());
        assertThat(policy.backoffNanos(2)).isEqualTo(Duration.ofSeconds(2).toNanos());
        assertThat(policy.backoffNanos(3)).isEqualTo(Duration.ofSeconds(4).toNanos());
        assertThat(policy.backoffNanos(4)).isEqualTo(Duration.ofSeconds(5).toNanos());
        assertThat(policy.backoffNanos(400)).isEqualTo(Duration.ofSeconds(5).toNanos());
        assertThat(RetryPolicy.fixed(3, Duration.ofMillis(7)).backoffNanos(3))
                .isEqualTo(Duration.ofMillis(7).toNanos());
        assertThatThrownBy(() -> new RetryPolicy(0, Duration.ZERO, 1, Duration.ZERO))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("retry.maxAttempts");
        assertThatThrownBy(
                        () -> new RetryPolicy(2, Duration.ofSeconds(2), 2, Duration.ofSeconds(1)))
                .hasMessageContaining("retry.maxBackoff");
        assertThatThrownBy(() -> new RetryPolicy(2, Duration.ZERO, 0.5, Duration.ZERO))
                .hasMessageContaining("retry.multiplier");
        assertThatThrownBy(() -> new RetryPolicy(2, Duration.ZERO, Double.NaN, Duration.ZERO))
                .hasMessageContaining("retry.multiplier");
    }

    @Test
    void aFailedAttemptIsQueuedAgainAndNotDispatchedBeforeItsBackoff() {
        RetryPolicy policy = new RetryPolicy(4, Duration.ofHours(1), 3.0, Duration.ofHours(5));
        try (var s = scheduler(4, policy)) {
            AtomicBuffer raw = RawBody.of(path);
            long id = s.submit(5L);
            Job<Long> job = s.receive(PID).orElseThrow();
            long before = System.nanoTime();
            assertThat(s.fail(job, new IllegalStateException("no")))
                    .isEqualTo(FailOutcome.RETRYING);
            long after = System.nanoTime();
            long notBefore = raw.getLongVolatile(slot(id, 4) + NOT_BEFORE_OFFSET);
            assertThat(notBefore - before).isGreaterThanOrEqualTo(Duration.ofHours(1).toNanos());
            assertThat(notBefore - after).isLessThanOrEqualTo(Duration.ofHours(1).toNanos());

            assertThat(s.receive(PID)).isEmpty(); // not due
            s.watchdogScan();
            assertThat(s.receive(PID)).isEmpty(); // not due after a fresh look either
            assertThat(s.jobs()).containsExactly(new JobEntry(id, JobEntry.State.QUEUED, 0, 1));
            assertThat(s.counts().queued()).isEqualTo(1);
            assertThat(s.complete(job, 1L)).isFalse(); // the failed attempt is fenced off

            // Its backoff passed (planted), it is dispatched as the next attempt, behind the head.
            raw.setLongVolatile(slot(id, 4) + NOT_BEFORE_OFFSET, System.nanoTime() - 1);
            s.watchdogScan();
            Job<Long> again = s.receive(PID).orElseThrow();
            assertThat(again.id()).isEqualTo(id);
            assertThat(again.attempt()).isEqualTo(2);
            assertThat(raw.getLongVolatile(REQUEUED_HINT_OFFSET)).isZero();

            // The second failure waits initial × multiplier.
            long second = System.nanoTime();
            assertThat(s.fail(again, new IllegalStateException("no")))
                    .isEqualTo(FailOutcome.RETRYING);
            assertThat(raw.getLongVolatile(slot(id, 4) + NOT_BEFORE_OFFSET) - second)
                    .isGreaterThanOrEqualTo(Duration.ofHours(3).toNanos());
        }
    }

    @Test
    void aJobDueAgainIsReceivedWithoutAnyOtherWrite() {
        try (var s = scheduler(4, RetryPolicy.fixed(2, Duration.ofMillis(1)))) {
            s.submit(5L);
            Job<Long> job = s.receive(PID).orElseThrow();
            assertThat(s.fail(job, new IllegalStateException())).isEqualTo(FailOutcome.RETRYING);
            Job<Long>[] again = receiveAgain(s);
            assertThat(again[0].attempt()).isEqualTo(2);
        }
    }

    @SuppressWarnings("unchecked")
    static Job<Long>[] receiveAgain(BackgroundScheduler<Long, Long> s) {
        Job<Long>[] received = new Job[1];
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> (received[0] = s.receive(PID).orElse(null)) != null);
        return received;
    }

    @Test
    void aJobThatSpendsItsAttemptsIsFailedKeptListedAndRerunWithItsAttemptsAnew() {
        try (var s = scheduler(1, RetryPolicy.fixed(2, Duration.ZERO))) {
            long id = s.submit(5L);
            Job<Long> first = s.receive(PID).orElseThrow();
            assertThat(s.fail(first, new IllegalStateException("first")))
                    .isEqualTo(FailOutcome.RETRYING);
            Job<Long> second = s.receive(PID).orElseThrow();
            assertThat(second.attempt()).isEqualTo(2);
            assertThat(s.fail(second, new IOException("disk full"))).isEqualTo(FailOutcome.FAILED);

            JobEntry failed =
                    new JobEntry(
                            id,
                            JobEntry.State.FAILED,
                            0,
                            2,
                            new JobFailure("java.io.IOException", "disk full"));
            assertThat(s.jobs()).containsExactly(failed);
            try (var other =
                    BackgroundScheduler.open(
                            path,
                            new BackgroundScheduler.Settings<>(
                                    1, FixedCodec.INT64, FixedCodec.INT64))) {
                assertThat(other.jobs()).containsExactly(failed); // any handle reads it
                assertThat(other.counts().failed()).isEqualTo(1);
            }
            assertThat(s.describe()).containsEntry("failed", 1L);
            assertThat(s.receive(PID)).isEmpty();
            assertThat(s.complete(second, 1L)).isFalse();
            assertThat(s.fail(second, new IOException())).isEqualTo(FailOutcome.REFUSED);
            assertThat(s.collector().result(id)).isEmpty();
            assertThat(s.trySubmit(6L)).isEqualTo(-1); // it holds its slot

            assertThat(s.rerun(id)).isTrue();
            assertThat(s.rerun(id)).isFalse(); // queued now, not failed
            Job<Long> third = s.receive(PID).orElseThrow();
            assertThat(third.attempt()).isEqualTo(3);
            assertThat(s.fail(third, new IllegalStateException())).isEqualTo(FailOutcome.RETRYING);
            Job<Long> fourth = s.receive(PID).orElseThrow();
            assertThat(s.fail(fourth, new IllegalStateException())).isEqualTo(FailOutcome.FAILED);

            assertThat(s.delete(id)).isTrue();
            assertThat(s.delete(id)).isFalse();
            assertThat(s.jobs()).isEmpty();
            assertThat(s.counts().failed()).isZero();
            assertThat(s.submit(6L)).isEqualTo(id + 1); // the slot is free, the next lap's
            assertThat(s.opCounts())
                    .containsEntry("fail", 5L)
                    .containsEntry("rerun", 1L)
                    .containsEntry("delete", 1L);
        }
    }

    @Test
    void aSubmitsOwnPolicyOverridesTheHandles() {
        try (var s = scheduler(4, RetryPolicy.NONE)) {
            long once = s.submit(1L);
            long twice =
                    s.submit(2L, JobOptions.DEFAULT.withRetry(RetryPolicy.fixed(2, Duration.ZERO)));
            assertThat(s.fail(s.receive(PID).orElseThrow(), new IllegalStateException()))
                    .isEqualTo(FailOutcome.FAILED);
            Job<Long> job = s.receive(PID).orElseThrow();
            assertThat(job.id()).isEqualTo(twice);
            assertThat(s.fail(job, new IllegalStateException())).isEqualTo(FailOutcome.RETRYING);
            assertThat(s.jobs())
                    .extracting(JobEntry::id, JobEntry::state)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(once, JobEntry.State.FAILED),
                            org.assertj.core.groups.Tuple.tuple(twice, JobEntry.State.QUEUED));
        }
    }

    @Test
    void aLongMessageIsCutToTheBoundAtACharactersBoundary() {
        try (var s = scheduler(2, RetryPolicy.NONE)) {
            long id = s.submit(1L);
            String message = "€".repeat(500);
            s.fail(s.receive(PID).orElseThrow(), new IllegalArgumentException(message));
            JobFailure failure = s.jobs().get(0).failure();
            assertThat(failure.exceptionClass()).isEqualTo("java.lang.IllegalArgumentException");
            assertThat(message).startsWith(failure.message());
            assertThat(
                            (failure.exceptionClass() + "\n" + failure.message())
                                    .getBytes(StandardCharsets.UTF_8))
                    .hasSizeBetween(FAILURE_TEXT_MAX - 2, FAILURE_TEXT_MAX);
            assertThat(s.delete(id)).isTrue();
        }
    }

    @Test
    void aMessageThatThrowsOrIsMissingIsStillRecorded() {
        try (var s = scheduler(2, RetryPolicy.NONE)) {
            s.submit(1L);
            s.submit(2L);
            s.fail(
                    s.receive(PID).orElseThrow(),
                    new IllegalStateException() {
                        @Override
                        public String getMessage() {
                            throw new UnsupportedOperationException();
                        }
                    });
            s.fail(s.receive(PID).orElseThrow(), new NullPointerException());
            assertThat(s.jobs())
                    .extracting(JobEntry::failure)
                    .extracting(JobFailure::message)
                    .containsExactly(
                            "(its message threw java.lang.UnsupportedOperationException)", "");
        }
    }

    @Test
    void onlyAFailedJobIsRerunOrDeleted() {
        try (var s = scheduler(2, RetryPolicy.NONE)) {
            long id = s.submit(1L);
            assertThat(s.rerun(id)).isFalse();
            assertThat(s.delete(id)).isFalse();
            assertThat(s.rerun(id + 2)).isFalse(); // the next lap's: not submitted
            assertThat(s.delete(99)).isFalse();
            assertThatThrownBy(() -> s.rerun(-1)).isInstanceOf(IllegalArgumentException.class);
            assertThat(s.receive(PID).orElseThrow().id()).isEqualTo(id);
        }
    }
}
