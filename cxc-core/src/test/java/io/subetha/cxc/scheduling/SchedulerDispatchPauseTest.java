package io.subetha.cxc.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.codec.FixedCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pausing a scheduler's dispatch in one process: no receive hands out a job while paused, in this
 * handle or another on the file; a running job still completes; submits still queue and the
 * timetable still fires; {@code describe()} says so; a resume hands out the queue in order.
 */
class SchedulerDispatchPauseTest {

    static final long PID = ProcessHandle.current().pid();

    @TempDir Path dir;

    BackgroundScheduler<Long, Long> scheduler() {
        return BackgroundScheduler.openOrCreate(
                dir.resolve("jobs.cxc"),
                new BackgroundScheduler.Settings<>(16, FixedCodec.INT64, FixedCodec.INT64));
    }

    @Test
    void aPausedSchedulerQueuesAndFiresButHandsOutNothingUntilResumed() {
        try (BackgroundScheduler<Long, Long> s = scheduler();
                BackgroundScheduler<Long, Long> other = scheduler()) {
            s.submit(1L);
            Job<Long> running = s.receive(PID).orElseThrow();

            Instant before = Instant.now().minusMillis(1);
            assertThat(s.dispatch().pause()).isTrue();
            assertThat(other.dispatch().pause()).as("paused already").isFalse();
            assertThat(other.dispatch().isPaused()).isTrue();
            assertThat(other.dispatch().pausedSince()).get().matches(at -> !at.isBefore(before));
            assertThat(other.describe()).containsEntry("paused", true);

            s.submit(2L);
            s.schedule(
                    "tick", Recurrence.fixedRate(Duration.ofHours(1)), 3L, JobOptions.at(before));
            assertThat(other.receive(PID)).isEmpty();
            assertThat(s.receive(PID, Duration.ofMillis(1))).isEmpty();
            assertThat(s.timetable()).singleElement().matches(e -> e.fires() == 1);
            assertThat(s.counts().queued()).as("the submit and the fire").isEqualTo(2);
            assertThat(s.complete(running, 10L)).as("a running job finishes").isTrue();

            assertThat(other.dispatch().resume()).isTrue();
            assertThat(s.dispatch().resume()).as("dispatching already").isFalse();
            assertThat(s.dispatch().pausedSince()).isEmpty();
            assertThat(s.describe()).containsEntry("paused", false);
            assertThat(s.receive(PID).orElseThrow().payload()).isEqualTo(2L);
            assertThat(other.receive(PID).orElseThrow().payload()).isEqualTo(3L);
        }
    }

    @Test
    void aPauseIsKeptByTheFileAcrossHandles() {
        try (BackgroundScheduler<Long, Long> s = scheduler()) {
            s.dispatch().pause();
            s.submit(1L);
        }
        try (BackgroundScheduler<Long, Long> reopened = scheduler()) {
            assertThat(reopened.dispatch().isPaused()).isTrue();
            assertThat(reopened.receive(PID)).isEmpty();
            reopened.dispatch().resume();
            assertThat(reopened.receive(PID)).isPresent();
        }
    }

    @Test
    void aClosedHandleNeitherPausesNorResumes() {
        BackgroundScheduler<Long, Long> s = scheduler();
        s.close();
        assertThatThrownBy(() -> s.dispatch().pause()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> s.dispatch().resume()).isInstanceOf(IllegalStateException.class);
    }
}
