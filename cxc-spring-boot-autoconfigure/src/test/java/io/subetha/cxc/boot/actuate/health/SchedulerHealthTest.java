package io.subetha.cxc.boot.actuate.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.LongJobHandler;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.boot.scheduling.WorkerPoolSettings;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/** A scheduler's health on a real file: UP with its counts, DOWN once damaged or stopped. */
class SchedulerHealthTest {

    @TempDir Path temp;

    private BackgroundScheduler<Long, Long> jobs;
    private SchedulerWorkers workers;

    /** Echoes its job. */
    static final class Echo extends LongJobHandler {
        Echo() {
            super("jobs");
        }

        @Override
        public Long handle(Job<Long> job) {
            return job.payload();
        }
    }

    private HealthIndicator health() {
        jobs =
                BackgroundScheduler.openOrCreate(
                        temp.resolve("jobs.scheduler"),
                        new BackgroundScheduler.Settings<>(16, FixedCodec.INT64, FixedCodec.INT64));
        workers =
                new SchedulerWorkers(
                        Map.of("jobs", jobs),
                        Map.of("jobs", new WorkerPoolSettings(1, Duration.ofSeconds(30))),
                        List.of(new Echo()));
        workers.start();
        return (HealthIndicator) SchedulerHealth.of(workers).getContributor("jobs");
    }

    @AfterEach
    void close() {
        workers.stop();
        jobs.close();
    }

    @Test
    void upWithItsCountsWhileItsPoolRuns() {
        HealthIndicator health = health();
        jobs.submit(1L);
        await().atMost(Duration.ofSeconds(30)).until(() -> jobs.counts().done() == 1);
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        assertThat(health.health().getDetails())
                .containsEntry("queued", 0L)
                .containsEntry("running", 0L)
                .containsEntry("failed", 0L);
    }

    @Test
    void downOnceItsFileIsDamagedSayingHow() {
        HealthIndicator health = health();
        RawBody.of(temp.resolve("jobs.scheduler"))
                .setLongVolatile(BackgroundSchedulerDescriptor.HEAD_OFFSET, -5);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> health.health().getStatus().equals(Status.DOWN));
        assertThat(health.health().getDetails())
                .extractingByKey("error")
                .asString()
                .contains("below 0");
    }

    @Test
    void downOnceItsPoolStops() {
        HealthIndicator health = health();
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        workers.stop();
        assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.health().getDetails())
                .containsEntry("reason", "its worker pool in this process has stopped");
    }
}
