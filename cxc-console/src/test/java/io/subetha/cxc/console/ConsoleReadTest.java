package io.subetha.cxc.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;

/**
 * The console read-only, over real HTTP: the page and its assets; the overview (leader, terms,
 * participants, primitives); every held lease; a scheduler's jobs a page at a time, filtered by
 * state; fan-out depths; and every bad request a clear 4xx in JSON, with no stack trace and no
 * action offered.
 */
@SpringBootTest(classes = ConsoleTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
class ConsoleReadTest {

    private static final Path DIRECTORY = temporary();
    private static final long PID = Pids.current();

    @DynamicPropertySource
    static void directory(DynamicPropertyRegistry registry) {
        registry.add("cxc.directory", () -> DIRECTORY.resolve("cxc").toString());
    }

    @AfterAll
    static void delete() throws IOException {
        FileSystemUtils.deleteRecursively(DIRECTORY);
    }

    @LocalServerPort int port;
    @Autowired OwnerLease appLeases;
    @Autowired BackgroundScheduler<Long, Long> reports;
    @Autowired PriorityFanout<Long> work;

    private ConsoleClient console;

    @BeforeEach
    void client() {
        console = new ConsoleClient(port);
    }

    @Test
    void thePageAndItsAssetsComeFromTheJar() throws Exception {
        HttpResponse<String> page = console.get("/cxc");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.body())
                .contains("<meta name=\"cxc-base\" content=\"/cxc\">")
                .contains("<meta name=\"cxc-csrf-token\" content=\"\">")
                .contains("src=\"/cxc/console.js\"")
                .doesNotContain("{{");
        assertThat(console.get("/cxc/").statusCode()).isEqualTo(200);
        HttpResponse<String> script = console.get("/cxc/console.js");
        assertThat(script.statusCode()).isEqualTo(200);
        assertThat(script.body()).contains("/api/overview");
        assertThat(console.get("/cxc/console.css").statusCode()).isEqualTo(200);
    }

    @Test
    void theOverviewShowsTheLeaderItsTermsAndTheParticipants() throws Exception {
        JsonNode overview =
                await().atMost(Duration.ofSeconds(30))
                        .until(
                                () -> console.json("/cxc/api/overview"),
                                o -> o.get("cxc").get("leader").get("self").asBoolean());
        JsonNode leader = overview.get("cxc").get("leader");
        assertThat(leader.get("pid").asLong()).isEqualTo(PID);
        assertThat(leader.get("term").asLong()).isPositive();
        assertThat(overview.get("cxc").get("directory").asText())
                .isEqualTo(DIRECTORY.resolve("cxc").toString());
        JsonNode current = overview.get("terms").get(0);
        assertThat(current.get("term").asLong()).isEqualTo(leader.get("term").asLong());
        assertThat(current.get("leaderPid").asLong()).isEqualTo(PID);
        assertThat(current.get("sinceMillis").asLong()).isPositive();
        JsonNode participants = overview.get("cxc").get("participants");
        assertThat(participants).hasSize(1);
        assertThat(participants.get(0).get("alive").asBoolean()).isTrue();
        assertThat(overview.get("pollIntervalMillis").asLong()).isEqualTo(250);
        assertThat(overview.get("actions")).isEmpty();
        List<String> names = new ArrayList<>();
        overview.get("cxc").get("primitives").forEach(p -> names.add(p.get("name").asText()));
        assertThat(names).contains("app-leases.cxc", "reports.cxc", "work.cxc");
    }

    @Test
    void everyHeldLeaseIsListedWithItsHolder() throws Exception {
        OwnerLease.Lease lease =
                appLeases.tryAcquire("nightly-report", PID, Duration.ofMinutes(5)).orElseThrow();
        try {
            JsonNode tables = console.json("/cxc/api/leases");
            JsonNode table = tables.get(0);
            assertThat(table.get("name").asText()).isEqualTo("app-leases.cxc");
            assertThat(table.get("capacity").asInt()).isEqualTo(16);
            JsonNode held = table.get("held").get(0);
            assertThat(held.get("name").asText()).isEqualTo("nightly-report");
            assertThat(held.get("pid").asLong()).isEqualTo(PID);
            assertThat(held.get("token").asLong()).isEqualTo(lease.token());
            assertThat(held.get("expiresAtMillis").asLong())
                    .isGreaterThan(held.get("acquiredAtMillis").asLong());
        } finally {
            appLeases.release(lease);
        }
        assertThat(console.json("/cxc/api/leases").get(0).get("held")).isEmpty();
    }

    @Test
    void jobsComeAPageAtATimeFilteredByStateAndFanoutsByPriority() throws Exception {
        for (long i = 0; i < 120; i++) {
            reports.submit(i);
        }
        long running = reports.receive(PID).orElseThrow().id();
        work.submit(2, 7L);

        JsonNode queued =
                console.json("/cxc/api/jobs?scheduler=reports.cxc&state=queued&size=50&page=2");
        assertThat(queued.get("total").asLong()).isEqualTo(119);
        assertThat(queued.get("pages").asInt()).isEqualTo(3);
        assertThat(queued.get("jobs")).hasSize(19);
        assertThat(queued.get("jobs").get(0).get("state").asText()).isEqualTo("queued");

        JsonNode runningPage = console.json("/cxc/api/jobs?scheduler=reports.cxc&state=running");
        JsonNode job = runningPage.get("jobs").get(0);
        assertThat(job.get("id").asLong()).isEqualTo(running);
        assertThat(job.get("pid").asLong()).isEqualTo(PID);
        assertThat(job.get("attempt").asLong()).isEqualTo(1);
        assertThat(job.get("runningForMillis").asLong()).isNotNegative();

        JsonNode all = console.json("/cxc/api/jobs?scheduler=reports.cxc");
        assertThat(all.get("total").asLong()).isEqualTo(120);
        assertThat(all.get("jobs")).hasSize(50);

        JsonNode queues = console.json("/cxc/api/queues");
        assertThat(queues.get("schedulers").get(0).get("queued").asLong()).isEqualTo(119);
        assertThat(queues.get("fanouts").get(0).get("depthByPriority").get(2).asLong())
                .isEqualTo(1);
    }

    @Test
    void badRequestsAreAClearFourHundredInJsonAndChangeNothing() throws Exception {
        Map<String, Integer> refusals =
                Map.of(
                        "/cxc/api/jobs?scheduler=nope", 404,
                        "/cxc/api/jobs?scheduler=reports.cxc&state=failed-ish", 400,
                        "/cxc/api/jobs?scheduler=reports.cxc&page=-1", 400,
                        "/cxc/api/jobs?scheduler=reports.cxc&page=99", 400,
                        "/cxc/api/jobs?scheduler=reports.cxc&page=abc", 400,
                        "/cxc/api/jobs?scheduler=reports.cxc&size=0", 400,
                        "/cxc/api/jobs?scheduler=reports.cxc&size=100000", 400,
                        "/cxc/api/jobs", 400);
        for (Map.Entry<String, Integer> refusal : refusals.entrySet()) {
            HttpResponse<String> response = console.get(refusal.getKey());
            assertThat(response.statusCode()).as(refusal.getKey()).isEqualTo(refusal.getValue());
            JsonNode problem = console.parse(response.body());
            assertThat(problem.get("status").asInt()).isEqualTo(refusal.getValue());
            assertThat(problem.get("message").asText()).as(refusal.getKey()).isNotBlank();
            assertThat(response.body()).doesNotContain("Exception").doesNotContain("\tat ");
        }
        assertThat(
                        console.parse(console.get("/cxc/api/jobs?scheduler=nope").body())
                                .get("message")
                                .asText())
                .contains("\"reports.cxc\"");

        // Actions are off: no endpoint, whatever the request carries; the leader is unchanged.
        long term = console.json("/cxc/api/overview").get("cxc").get("leader").get("term").asLong();
        HttpResponse<String> stepDown =
                console.post("/cxc/api/actions/step-down", Map.of(), "X-CXC-Console", "1");
        assertThat(stepDown.statusCode()).isEqualTo(404);
        assertThat(stepDown.body()).doesNotContain("\tat ");
        JsonNode after = console.json("/cxc/api/overview").get("cxc").get("leader");
        assertThat(after.get("term").asLong()).isEqualTo(term);
        assertThat(after.get("self").asBoolean()).isTrue();
    }

    private static Path temporary() {
        try {
            return Files.createTempDirectory("cxc-console");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
