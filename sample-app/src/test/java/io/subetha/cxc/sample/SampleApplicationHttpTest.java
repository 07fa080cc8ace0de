package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The sample over real HTTP: the cxc endpoint, the health contributor and the meters, and the
 * operator files in docs/ checked against its real scrape.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "sample.bookkeeping.interval=100ms")
class SampleApplicationHttpTest {

    private static final Path DIRECTORY = temporaryDirectory();

    @DynamicPropertySource
    static void cxcDirectory(DynamicPropertyRegistry registry) {
        registry.add("cxc.directory", () -> DIRECTORY.resolve("cxc").toString());
    }

    @AfterAll
    static void deleteDirectory() throws IOException {
        FileSystemUtils.deleteRecursively(DIRECTORY);
    }

    @LocalServerPort int port;

    @Autowired BookkeepingJob job;

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void cxcEndpointDescribesTheLeaderAndThePrimitives() throws Exception {
        JsonNode cxc = json.readTree(get("/actuator/cxc"));
        long pid = ProcessHandle.current().pid();
        assertThat(cxc.get("pid").asLong()).isEqualTo(pid);
        assertThat(cxc.get("directory").asString()).isEqualTo(DIRECTORY.resolve("cxc").toString());

        JsonNode leader = cxc.get("leader");
        assertThat(leader.get("pid").asLong()).isEqualTo(pid);
        assertThat(leader.get("self").asBoolean()).isTrue();
        assertThat(leader.get("term").asLong()).isPositive();
        assertThat(leader.get("globalEpoch").isNumber()).isTrue();
        assertThat(leader.get("heartbeat").isNumber()).isTrue();
        assertThat(leader.get("heartbeatLagEpochs").asLong()).isBetween(0L, 3L);
        assertThat(leader.get("graceEpochs").asLong()).isEqualTo(3);
        assertThat(leader.get("file").asString())
                .isEqualTo(DIRECTORY.resolve("cxc").resolve("leader.cxc").toString());

        JsonNode primitives = cxc.get("primitives");
        assertThat(primitives.isArray()).isTrue();
        JsonNode election = null;
        for (JsonNode primitive : primitives) {
            if (primitive.get("file").asString().equals(leader.get("file").asString())) {
                election = primitive;
            }
        }
        assertThat(election).as("the election among %s", primitives).isNotNull();
        assertThat(election.get("name").asString()).isEqualTo("leader.cxc");
        assertThat(election.get("kind").asString()).isEqualTo("leader-election");
        assertThat(election.get("ops").get("beat").asLong()).isPositive();
        assertThat(election.get("ops").get("try_claim").asLong()).isPositive();

        // The only participant in the heartbeat table: this one, alive and leading.
        JsonNode participants = cxc.get("participants");
        assertThat(participants).hasSize(1);
        JsonNode self = participants.get(0);
        assertThat(self.get("pid").asLong()).isEqualTo(pid);
        assertThat(self.get("alive").asBoolean()).isTrue();
        assertThat(self.get("leader").asBoolean()).isTrue();
        assertThat(self.get("slot").asInt()).isNotNegative();
        assertThat(self.get("lastBeat").isNumber()).isTrue();
        assertThat(self.get("lagEpochs").isNumber()).isTrue();

        // The bookkeeping job runs here: this process leads; each run advances the task.
        await().atMost(Duration.ofSeconds(10)).until(() -> job.runs() >= 2);
        JsonNode task = null;
        for (JsonNode primitive : json.readTree(get("/actuator/cxc")).get("primitives")) {
            if (primitive.get("name").asString().equals("bookkeeping.progress")) {
                task = primitive;
            }
        }
        assertThat(task).as("the bookkeeping progress task").isNotNull();
        assertThat(task.get("kind").asString()).isEqualTo("progress-task");
        assertThat(task.get("state").get("done").asLong()).isPositive();
        assertThat(task.get("state").get("percent").isNumber()).isTrue();
        assertThat(get("/actuator/prometheus"))
                .contains("cxc_progress{application=\"cxc-sample\",task=\"bookkeeping.progress\"}");
    }

    @Test
    void healthHasTheCxcContributor() throws Exception {
        JsonNode health = json.readTree(get("/actuator/health"));
        JsonNode cxc = health.get("components").get("cxc");
        assertThat(cxc.get("status").asString()).isEqualTo("UP");
        assertThat(cxc.get("details").get("self").asBoolean()).isTrue();
        assertThat(cxc.get("details").get("term").asLong()).isPositive();
    }

    @Test
    void prometheusHasTheCxcMetrics() throws Exception {
        String scrape = get("/actuator/prometheus");
        // Every meter carries the application tag (management.metrics.tags.application).
        assertThat(scrape)
                .contains(
                        "\ncxc_leader_term{application=\"cxc-sample\"} ",
                        "\ncxc_leader_self{application=\"cxc-sample\"} 1.0",
                        "\ncxc_leader_heartbeat_lag_epochs{application=\"cxc-sample\"} ",
                        "\ncxc_leader_grace_epochs{application=\"cxc-sample\"} 3.0",
                        "\ncxc_epoch{application=\"cxc-sample\"} ",
                        "\ncxc_participants_live{application=\"cxc-sample\"} 1.0",
                        "cxc_ops_total{application=\"cxc-sample\",kind=\"heartbeat-table\","
                                + "op=\"beat\",primitive=\"participants.heartbeat\"}",
                        "cxc_ops_total{application=\"cxc-sample\",kind=\"leader-election\","
                                + "op=\"beat\",primitive=\"leader.cxc\"}");
    }

    /**
     * Every meter the README's "Meters:" list names in Prometheus is in a real scrape, once the
     * bookkeeping job (a {@code @LeaderOnly} method) has run: the list is read from the README, so
     * a meter added there is checked here.
     */
    @Test
    void prometheusHasEveryMeterTheReadmeLists() throws Exception {
        Matcher list =
                Pattern.compile("in Prometheus ((?:`cxc_[a-z_]+`,?\\s*)+)")
                        .matcher(
                                Files.readString(OperatorFiles.docs().resolveSibling("README.md")));
        assertThat(list.find()).as("the README's list of Prometheus names").isTrue();
        Set<String> listed = new TreeSet<>();
        Matcher name = Pattern.compile("`(cxc_[a-z_]+)`").matcher(list.group(1));
        while (name.find()) {
            listed.add(name.group(1));
        }
        assertThat(listed).contains("cxc_leader_term", "cxc_leader_only_total");
        await().atMost(Duration.ofSeconds(10)).until(() -> job.runs() >= 1);
        assertThat(OperatorFiles.sampleNames(get("/actuator/prometheus"))).containsAll(listed);
    }

    /**
     * Every cxc metric the Grafana dashboard, the alert rules and the rules' unit tests name is one
     * this scrape has a sample of (a counter as {@code _total}, a timer as {@code _seconds_count}
     * and so on; see {@link OperatorFiles#sampleNames}), and every recording rule they use is one
     * the rules file records.
     */
    @Test
    void theDashboardAndTheAlertRulesUseOnlyMetricsTheStarterExports() throws Exception {
        Set<String> exported = OperatorFiles.sampleNames(get("/actuator/prometheus"));
        Map<String, List<String>> sources = new LinkedHashMap<>();
        sources.put(
                "docs/grafana/cxc-dashboard.json targets",
                OperatorFiles.dashboardTargetExpressions());
        sources.put(
                "docs/grafana/cxc-dashboard.json variables",
                OperatorFiles.dashboardVariableQueries());
        sources.put("docs/prometheus/cxc-alerts.yml", OperatorFiles.ruleExpressions());
        sources.put(
                "docs/prometheus/cxc-alerts.test.yml input series", OperatorFiles.ruleTestSeries());
        Set<String> used = new TreeSet<>();
        for (Map.Entry<String, List<String>> source : sources.entrySet()) {
            assertThat(source.getValue()).as(source.getKey()).isNotEmpty();
            for (String promql : source.getValue()) {
                Set<String> names = OperatorFiles.metricNames(promql);
                used.addAll(names);
                assertThat(exported)
                        .as("cxc metrics of %s: %s, in the scrape", source.getKey(), promql)
                        .containsAll(names);
                assertThat(OperatorFiles.recordedNames())
                        .as("recording rules of %s: %s", source.getKey(), promql)
                        .containsAll(OperatorFiles.recordingRuleNames(promql));
            }
        }
        // The extraction found what the files are about: a broken pattern cannot pass by finding
        // nothing.
        assertThat(used)
                .contains(
                        "cxc_leader_self",
                        "cxc_leader_term",
                        "cxc_leader_heartbeat_lag_epochs",
                        "cxc_leader_grace_epochs",
                        "cxc_epoch",
                        "cxc_participants_live",
                        "cxc_ops_total");
    }

    @Test
    void postStepsDownAndTheOnlyParticipantClaimsAgainAfterTheHoldOff() throws Exception {
        long term = json.readTree(get("/actuator/cxc")).get("leader").get("term").asLong();
        HttpResponse<String> response =
                http.send(
                        HttpRequest.newBuilder(
                                        URI.create("http://localhost:" + port + "/actuator/cxc"))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode after = json.readTree(response.body()).get("leader");
        assertThat(after.get("self").asBoolean()).isFalse();
        assertThat(after.get("pid").isNull()).isTrue();

        // Alone, this process is the lowest live PID: it claims again, under a new term.
        await().atMost(Duration.ofSeconds(10))
                .until(
                        () ->
                                json.readTree(get("/actuator/cxc"))
                                        .get("leader")
                                        .get("self")
                                        .asBoolean());
        assertThat(json.readTree(get("/actuator/cxc")).get("leader").get("term").asLong())
                .isGreaterThan(term);
    }

    @Test
    void requestsToHelloArePublishedFoldedByTheLeaderAndHandledByTheTally() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(get("/hello")).startsWith("hello from pid");
        }
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> {
                            JsonNode requests = null;
                            JsonNode readers = null;
                            for (JsonNode p :
                                    json.readTree(get("/actuator/cxc")).get("primitives")) {
                                if (p.get("name").asString().equals("requests.events")) {
                                    requests = p;
                                }
                                if (p.get("name").asString().equals("requests.readers")) {
                                    readers = p;
                                }
                            }
                            assertThat(requests).as("requests.events in /actuator/cxc").isNotNull();
                            // The request tally's saved position, past every request.
                            assertThat(readers).as("requests.readers").isNotNull();
                            assertThat(readers.get("kind").asString())
                                    .isEqualTo("event-log-readers");
                            assertThat(readers.get("state").get("readers").properties())
                                    .singleElement()
                                    .satisfies(
                                            reader -> {
                                                assertThat(reader.getKey()).endsWith("/tally");
                                                assertThat(
                                                                reader.getValue()
                                                                        .get("position")
                                                                        .asLong())
                                                        .isGreaterThanOrEqualTo(3);
                                            });
                            assertThat(requests.get("kind").asString())
                                    .isEqualTo("event-state-log");
                            JsonNode state = requests.get("state");
                            assertThat(state.get("emitted").asLong()).isGreaterThanOrEqualTo(3);
                            assertThat(state.get("folded").asLong())
                                    .isEqualTo(state.get("emitted").asLong());
                            assertThat(state.get("pending").asLong()).isZero();
                        });
    }

    private String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response =
                http.send(
                        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
        return response.body();
    }

    private static Path temporaryDirectory() {
        try {
            return Files.createTempDirectory("cxc-sample-test");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
