package io.subetha.cxc.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.JobHandler;
import io.subetha.cxc.boot.eventlog.DeclaredEventLog;
import io.subetha.cxc.boot.eventlog.DeclaredEventLogs;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.eventlog.NamedReaders;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobOptions;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;

/**
 * The jobs view of a declared scheduler run by the starter's pool, and the event logs' readers: a
 * job that always throws is listed failed with its exception, message and attempts, and its runs in
 * the history (filtered by outcome); the timetable lists recurring and delayed entries with their
 * next due time; each reader shows its pending events. With actions on: re-run, delete, pause and
 * resume, each refused with a clear 4xx for an unknown scheduler, a stale job id, a job or a
 * scheduler whose state forbids it (409) and a forged request, and logged with who asked.
 */
@SpringBootTest(
        classes = ConsoleJobsTest.App.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "cxc.console.actions=true",
            "cxc.schedulers.runs.capacity=64",
            "cxc.schedulers.runs.history=32",
            "cxc.schedulers.runs.retry.max-attempts=2",
            "cxc.schedulers.runs.retry.initial-backoff=10ms",
            "cxc.schedulers.runs.recurring.nightly.fixed-rate=1h",
            "cxc.schedulers.runs.recurring.nightly.payload=1",
            "cxc.event-logs.orders.capacity=64"
        })
@ExtendWith(OutputCaptureExtension.class)
class ConsoleJobsTest {

    private static final Path DIRECTORY = temporary();
    private static final String MARK = "X-CXC-Console";

    @DynamicPropertySource
    static void directory(DynamicPropertyRegistry registry) {
        registry.add("cxc.directory", () -> DIRECTORY.resolve("cxc").toString());
    }

    @AfterAll
    static void delete() throws IOException {
        FileSystemUtils.deleteRecursively(DIRECTORY);
    }

    /** Doubles its job; a negative one throws every attempt. */
    static final class Doubler implements JobHandler<Long, Long> {
        @Override
        public String scheduler() {
            return "runs";
        }

        @Override
        public FixedCodec<Long> jobCodec() {
            return FixedCodec.INT64;
        }

        @Override
        public FixedCodec<Long> resultCodec() {
            return FixedCodec.INT64;
        }

        @Override
        public Long handle(Job<Long> job) {
            if (job.payload() < 0) {
                throw new IllegalStateException("broken " + job.payload());
            }
            return job.payload() * 2;
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

    @Autowired
    @Qualifier("runs")
    BackgroundScheduler<Long, Long> runs;

    @Autowired DeclaredEventLogs logs;

    ConsoleClient console;
    String name;

    @BeforeEach
    void client() throws Exception {
        console = new ConsoleClient(port);
        name = console.json("/cxc/api/queues").get("schedulers").get(0).get("name").asText();
        assertThat(name).isEqualTo(runs.name());
    }

    @AfterEach
    void dispatching() {
        runs.dispatch().resume();
    }

    private JsonNode failed() throws Exception {
        return console.json("/cxc/api/jobs?scheduler=" + name + "&state=failed").get("jobs");
    }

    private JsonNode awaitFailed(long id) {
        return await().atMost(Duration.ofSeconds(30))
                .until(() -> find(failed(), id), job -> job != null);
    }

    private static JsonNode find(JsonNode jobs, long id) {
        for (JsonNode job : jobs) {
            if (job.get("id").asLong() == id) {
                return job;
            }
        }
        return null;
    }

    private HttpResponse<String> act(String action, Map<String, String> form) throws Exception {
        return console.post("/cxc/api/actions/" + action, form, MARK, "1");
    }

    private void assertRefused(HttpResponse<String> response, int status, String saying) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(console.parse(response.body()).get("message").asText()).contains(saying);
    }

    @Test
    void aFailedJobShowsItsExceptionAttemptsAndRunsAndIsReRunThenDeleted(CapturedOutput output)
            throws Exception {
        long id = runs.submit(-3L);
        JsonNode job = awaitFailed(id);
        assertThat(job.get("state").asText()).isEqualTo("failed");
        assertThat(job.get("attempt").asLong()).isEqualTo(2);
        assertThat(job.get("exceptionClass").asText())
                .isEqualTo(IllegalStateException.class.getName());
        assertThat(job.get("message").asText()).isEqualTo("broken -3");
        assertThat(console.json("/cxc/api/queues").get("schedulers").get(0).get("failed").asLong())
                .isEqualTo(1);

        JsonNode history =
                await().atMost(Duration.ofSeconds(30))
                        .until(
                                () ->
                                        console.json(
                                                "/cxc/api/history?scheduler="
                                                        + name
                                                        + "&outcome=failed"),
                                h -> find(h.get("runs"), id, "jobId") != null);
        assertThat(history.get("kept").asInt()).isEqualTo(32);
        assertThat(history.get("totals").has("failed")).as("folded totals").isTrue();
        JsonNode run = find(history.get("runs"), id, "jobId");
        assertThat(run.get("attempt").asLong()).isEqualTo(2);
        assertThat(run.get("pid").asLong()).isEqualTo(Pids.current());
        JsonNode retried =
                console.json("/cxc/api/history?scheduler=" + name + "&outcome=retried&size=1");
        assertThat(retried.get("runs")).hasSize(1);
        assertThat(retried.get("runs").get(0).get("outcome").asText()).isEqualTo("retried");

        // Paused, the re-run job stays queued where the page shows it.
        assertThat(act("pause-scheduler", Map.of("scheduler", name)).statusCode()).isEqualTo(200);
        HttpResponse<String> rerun = act("rerun-job", Map.of("scheduler", name, "job", "" + id));
        assertThat(rerun.statusCode()).as(rerun.body()).isEqualTo(200);
        assertThat(find(failed(), id)).isNull();
        JsonNode queued = console.json("/cxc/api/jobs?scheduler=" + name + "&state=queued");
        assertThat(find(queued.get("jobs"), id)).isNotNull();
        assertRefused(
                act("rerun-job", Map.of("scheduler", name, "job", "" + id)),
                409,
                "is queued, not failed");
        assertRefused(
                act("delete-job", Map.of("scheduler", name, "job", "" + id)),
                409,
                "is queued, not failed");
        assertThat(act("resume-scheduler", Map.of("scheduler", name)).statusCode()).isEqualTo(200);

        awaitFailed(id); // its new run fails again
        assertThat(act("delete-job", Map.of("scheduler", name, "job", "" + id)).statusCode())
                .isEqualTo(200);
        assertRefused(
                act("delete-job", Map.of("scheduler", name, "job", "" + id)),
                404,
                "holds no job " + id);
        assertThat(output)
                .contains(
                        "cxc console: anonymous from 127.0.0.1 did rerun-job: job " + id,
                        "cxc console: anonymous from 127.0.0.1 did delete-job: job " + id,
                        "did pause-scheduler",
                        "did resume-scheduler");
    }

    private static JsonNode find(JsonNode rows, long id, String field) {
        for (JsonNode row : rows) {
            if (row.get(field).asLong() == id) {
                return row;
            }
        }
        return null;
    }

    @Test
    void actionsRefuseUnknownNamesStaleIdsForbiddenStatesAndForgeries() throws Exception {
        long id = runs.submit(-4L);
        awaitFailed(id);
        assertRefused(
                act("rerun-job", Map.of("scheduler", "nope", "job", "" + id)),
                404,
                "no scheduler named \"nope\"");
        assertRefused(
                act("rerun-job", Map.of("scheduler", name, "job", "99999")),
                404,
                "holds no job 99999");
        assertRefused(act("rerun-job", Map.of("scheduler", name, "job", "x")), 400, "whole number");
        assertRefused(act("delete-job", Map.of("scheduler", name)), 400, "\"job\" is missing");
        assertRefused(act("pause-scheduler", Map.of("scheduler", "nope")), 404, "nope");
        assertRefused(act("resume-scheduler", Map.of("scheduler", name)), 409, "is not paused");
        assertThat(act("pause-scheduler", Map.of("scheduler", name)).statusCode()).isEqualTo(200);
        assertRefused(act("pause-scheduler", Map.of("scheduler", name)), 409, "is paused already");
        JsonNode summary = console.json("/cxc/api/queues").get("schedulers").get(0);
        assertThat(summary.get("pausedSinceMillis").asLong()).isPositive();

        HttpResponse<String> forged =
                console.post(
                        "/cxc/api/actions/rerun-job", Map.of("scheduler", name, "job", "" + id));
        assertThat(forged.statusCode()).isEqualTo(403);
        HttpResponse<String> forgedResume =
                console.post("/cxc/api/actions/resume-scheduler", Map.of("scheduler", name));
        assertThat(forgedResume.statusCode()).isEqualTo(403);
        assertThat(runs.dispatch().isPaused()).as("unchanged").isTrue();
        assertThat(find(failed(), id)).as("unchanged").isNotNull();
        runs.delete(id);
    }

    @Test
    void theTimetableListsRecurringAndDelayedEntriesByNextDueAPageAtATime() throws Exception {
        assertThat(runs.submit(5L, JobOptions.after(Duration.ofHours(2))))
                .isEqualTo(BackgroundScheduler.DELAYED);
        try {
            JsonNode all = console.json("/cxc/api/timetable?scheduler=" + name);
            assertThat(all.get("total").asLong()).isEqualTo(2);
            JsonNode first = all.get("entries").get(0);
            assertThat(first.get("name").asText()).isEqualTo("nightly");
            assertThat(first.get("kind").asText()).isEqualTo("recurring");
            assertThat(first.get("recurrence").asText()).isEqualTo("fixed-rate:PT1H");
            assertThat(first.get("nextDueMillis").asLong())
                    .isGreaterThan(System.currentTimeMillis());
            JsonNode delayed =
                    console.json("/cxc/api/timetable?scheduler=" + name + "&kind=delayed&size=1");
            assertThat(delayed.get("entries")).hasSize(1);
            assertThat(delayed.get("entries").get(0).get("recurrence").asText()).isEqualTo("once");
            assertThat(
                            console.json("/cxc/api/queues")
                                    .get("schedulers")
                                    .get(0)
                                    .get("scheduled")
                                    .asInt())
                    .isEqualTo(2);
            for (var bad :
                    Map.of(
                                    "/cxc/api/timetable?scheduler=" + name + "&kind=weekly",
                                    400,
                                    "/cxc/api/timetable?scheduler=" + name + "&page=5",
                                    400,
                                    "/cxc/api/timetable?scheduler=nope",
                                    404,
                                    "/cxc/api/history?scheduler=" + name + "&outcome=maybe",
                                    400,
                                    "/cxc/api/history?scheduler=" + name + "&size=0",
                                    400)
                            .entrySet()) {
                assertThat(console.get(bad.getKey()).statusCode())
                        .as(bad.getKey())
                        .isEqualTo(bad.getValue());
            }
        } finally {
            runs.timetable().stream()
                    .filter(e -> e.name().startsWith("@"))
                    .forEach(e -> runs.unschedule(e.name()));
        }
    }

    @Test
    void eachNamedReaderShowsTheEventsItHasYetToHandle() throws Exception {
        DeclaredEventLog<?, ?> orders = logs.find("orders").orElseThrow();
        long before = orders.log().emittedCount();
        try (NamedReaders.Seat seat = orders.readers().claim("copy-b/audit", () -> before)) {
            for (long i = 0; i < 3; i++) {
                orders.publish(i);
            }
            JsonNode log = console.json("/cxc/api/events").get(0);
            assertThat(log.get("name").asText()).isEqualTo("orders");
            assertThat(log.get("published").asLong()).isEqualTo(before + 3);
            JsonNode reader = find(log.get("readers"), "copy-b/audit");
            assertThat(reader.get("pending").asLong()).isEqualTo(3);
            assertThat(reader.get("pid").asLong()).isEqualTo(Pids.current());
            seat.save(before + 2);
            reader = find(console.json("/cxc/api/events").get(0).get("readers"), "copy-b/audit");
            assertThat(reader.get("pending").asLong()).isEqualTo(1);
        }
        JsonNode released =
                find(console.json("/cxc/api/events").get(0).get("readers"), "copy-b/audit");
        assertThat(released.get("pid").isNull()).as("nobody reads under it now").isTrue();
    }

    private static JsonNode find(JsonNode rows, String name) {
        for (JsonNode row : rows) {
            if (row.get("name").asText().equals(name)) {
                return row;
            }
        }
        throw new AssertionError("no reader " + name + " in " + rows);
    }

    private static Path temporary() {
        try {
            return Files.createTempDirectory("cxc-console-jobs");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
