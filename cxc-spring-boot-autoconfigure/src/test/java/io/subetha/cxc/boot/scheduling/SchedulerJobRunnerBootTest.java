package io.subetha.cxc.boot.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.JobHandler;
import io.subetha.cxc.boot.LongJobHandler;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobEntry;
import io.subetha.cxc.scheduling.JobFailure;
import io.subetha.cxc.scheduling.JobOptions;
import io.subetha.cxc.scheduling.RetryPolicy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Boot application running a declared scheduler's {@link JobHandler}, over HTTP as an operator
 * sees it: a succeeding job, a job that throws twice then succeeds (retried after its backoff), a
 * job that always throws (FAILED with its exception and attempts, then re-run through {@code
 * /actuator/cxcjobs}), the history of every run, the meters in {@code /actuator/prometheus} and the
 * scheduler's health, DOWN once its pool stops.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "cxc.schedulers.jobs.capacity=64",
            "cxc.schedulers.jobs.workers=2",
            "cxc.schedulers.jobs.retry.max-attempts=3",
            "cxc.schedulers.jobs.retry.initial-backoff=10ms",
            "cxc.schedulers.jobs.retry.max-backoff=20ms",
            "cxc.schedulers.jobs.history=32",
            "management.endpoints.web.exposure.include=health,prometheus,cxcjobs",
            "management.endpoint.health.show-details=always",
            "management.endpoint.cxcjobs.access=unrestricted"
        })
class SchedulerJobRunnerBootTest {

    private static final Path DIRECTORY = temporaryDirectory();

    @DynamicPropertySource
    static void directory(DynamicPropertyRegistry properties) {
        properties.add("cxc.directory", DIRECTORY::toString);
    }

    /** Doubles its job: a negative one throws until healed, one of 1000 or more throws twice. */
    static final class Doubler extends LongJobHandler {
        volatile boolean healed;

        Doubler() {
            super("jobs");
        }

        @Override
        public Long handle(Job<Long> job) throws IOException {
            long payload = job.payload();
            if (payload < 0 && !healed) {
                throw new IllegalStateException("broken " + payload);
            }
            if (payload >= 1000 && job.attempt() < 3) {
                throw new IOException("flaky, attempt " + job.attempt());
            }
            return payload * 2;
        }

        @Override
        public String type(Job<Long> job) {
            return job.payload() < 0 ? "broken" : job.payload() >= 1000 ? "flaky" : "double";
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Doubler doubler() {
            return new Doubler();
        }
    }

    @LocalServerPort int port;

    @Autowired Doubler doubler;

    @Autowired SchedulerWorkers workers;

    @Autowired
    @Qualifier("jobs")
    BackgroundScheduler<Long, Long> jobs;

    private Long result(long id) {
        return await().atMost(Duration.ofSeconds(60))
                .until(() -> jobs.collector().result(id), Optional::isPresent)
                .orElseThrow();
    }

    private List<SchedulerHistory.Entry> history(long id) {
        return workers.history("jobs").orElseThrow().last(32).stream()
                .filter(e -> e.jobId() == id)
                .toList();
    }

    @Test
    void aSucceedingJobsResultIsRecordedAndItsRunIsInTheHistory() {
        long id = jobs.submit(21L);
        assertThat(result(id)).isEqualTo(42L);
        await().atMost(Duration.ofSeconds(60)).until(() -> !history(id).isEmpty());
        SchedulerHistory.Entry run = history(id).get(0);
        assertThat(run.type()).isEqualTo("double");
        assertThat(run.attempt()).isEqualTo(1);
        assertThat(run.outcome()).isEqualTo("succeeded");
        assertThat(run.started()).isBefore(java.time.Instant.now().plusSeconds(1));
        assertThat(run.took()).isPositive();
    }

    @Test
    void aJobThatThrowsTwiceIsRetriedAfterItsBackoffThenSucceeds() {
        long id = jobs.submit(1000L);
        assertThat(result(id)).isEqualTo(2000L);
        await().atMost(Duration.ofSeconds(60)).until(() -> history(id).size() == 3);
        assertThat(history(id))
                .extracting(SchedulerHistory.Entry::attempt, SchedulerHistory.Entry::outcome)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1L, "retried"),
                        org.assertj.core.groups.Tuple.tuple(2L, "retried"),
                        org.assertj.core.groups.Tuple.tuple(3L, "succeeded"));
    }

    @Test
    void aSubmitsOwnPolicyOverridesTheSchedulers() {
        long id = jobs.submit(1001L, JobOptions.DEFAULT.withRetry(RetryPolicy.NONE));
        await().atMost(Duration.ofSeconds(60)).until(() -> failed(id).isPresent());
        assertThat(failed(id).orElseThrow().attempt()).isEqualTo(1);
        assertThat(jobs.delete(id)).isTrue();
    }

    private Optional<JobEntry> failed(long id) {
        return jobs.jobs().stream()
                .filter(j -> j.id() == id && j.state() == JobEntry.State.FAILED)
                .findFirst();
    }

    @Test
    void aJobThatAlwaysThrowsIsFailedWithItsExceptionAndAttemptsUntilReRunOverHttp()
            throws Exception {
        long id = jobs.submit(-5L);
        await().atMost(Duration.ofSeconds(60)).until(() -> failed(id).isPresent());
        JobEntry entry = failed(id).orElseThrow();
        assertThat(entry.attempt()).isEqualTo(3);
        assertThat(entry.failure())
                .isEqualTo(new JobFailure(IllegalStateException.class.getName(), "broken -5"));
        String shown = http("GET", "/actuator/cxcjobs/jobs");
        assertThat(shown)
                .contains(
                        "\"id\":" + id, "\"state\":\"FAILED\"", "broken -5", "\"type\":\"broken\"");
        doubler.healed = true;
        assertThat(http("POST", "/actuator/cxcjobs/jobs/" + id)).isEqualTo("true");
        assertThat(result(id)).isEqualTo(-10L);
        assertThat(history(id))
                .extracting(SchedulerHistory.Entry::outcome)
                .containsExactly("retried", "retried", "failed", "succeeded");
        doubler.healed = false;
    }

    @Test
    void theMetersAreInPrometheus() throws Exception {
        long ok = jobs.submit(3L);
        long flaky = jobs.submit(1002L);
        result(ok);
        result(flaky);
        await().atMost(Duration.ofSeconds(60))
                .until(
                        () ->
                                http("GET", "/actuator/prometheus")
                                        .contains(
                                                "cxc_scheduler_executions_total{outcome=\"retried\",scheduler=\"jobs\"}"));
        jobs.submit(5L, JobOptions.after(Duration.ofHours(1))); // waits in the timetable
        String scrape = http("GET", "/actuator/prometheus");
        jobs.timetable().forEach(entry -> jobs.unschedule(entry.name()));
        assertThat(scrape)
                .contains(
                        "cxc_scheduler_jobs{scheduler=\"jobs\",state=\"scheduled\"} 1.0",
                        "cxc_scheduler_jobs{scheduler=\"jobs\",state=\"queued\"}",
                        "cxc_scheduler_jobs{scheduler=\"jobs\",state=\"running\"}",
                        "cxc_scheduler_jobs{scheduler=\"jobs\",state=\"failed\"}",
                        "cxc_scheduler_executions_total{outcome=\"succeeded\",scheduler=\"jobs\"}",
                        "cxc_scheduler_run_seconds_count{outcome=\"succeeded\",scheduler=\"jobs\"}",
                        "cxc_scheduler_run_seconds_count{outcome=\"retried\",scheduler=\"jobs\"}");
    }

    @Test
    void aSchedulersDispatchIsPausedAndResumedOverHttpForEveryProcess() throws Exception {
        try {
            assertThat(pause("jobs", true)).isEqualTo("true");
            assertThat(pause("jobs", true)).as("paused already").isEqualTo("false");
            assertThat(pause("no-such-scheduler", true)).isEqualTo("false");
            assertThat(jobs.dispatch().isPaused()).isTrue();
            assertThat(http("GET", "/actuator/cxcjobs/jobs")).contains("\"pausedSince\":\"");
            long id = jobs.submit(2L);
            assertThat(pause("jobs", false)).isEqualTo("true");
            assertThat(result(id)).isEqualTo(4L);
            assertThat(http("GET", "/actuator/cxcjobs/jobs")).contains("\"pausedSince\":null");
        } finally {
            jobs.dispatch().resume();
        }
    }

    private String pause(String scheduler, boolean paused)
            throws IOException, InterruptedException {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(
                                        URI.create(
                                                "http://localhost:"
                                                        + port
                                                        + "/actuator/cxcjobs/"
                                                        + scheduler))
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"paused\":" + paused + "}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    @Test
    @DirtiesContext
    void theSchedulersHealthIsUpWithItsCountsAndDownOnceItsPoolStops() throws Exception {
        String up = http("GET", "/actuator/health/cxcSchedulers/jobs");
        assertThat(up).contains("\"status\":\"UP\"", "\"queued\":", "\"running\":", "\"failed\":");
        workers.stop();
        String down = http("GET", "/actuator/health/cxcSchedulers/jobs");
        assertThat(down)
                .contains("\"status\":\"DOWN\"", "its worker pool in this process has stopped");
    }

    private String http(String method, String path) throws IOException, InterruptedException {
        HttpResponse<String> response =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(
                                                URI.create("http://localhost:" + port + path))
                                        .method(method, HttpRequest.BodyPublishers.noBody())
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
        return response.body();
    }

    private static Path temporaryDirectory() {
        try {
            Path directory = Files.createTempDirectory("cxc-job-runner");
            directory.toFile().deleteOnExit();
            return directory.resolve("cxc");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
