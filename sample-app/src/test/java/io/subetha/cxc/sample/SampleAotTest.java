package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.testing.ChildJvm;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The sample as {@code spring-boot:process-aot} left it (run in this module's build before the
 * tests, with a declared barrier and watchdog), started with {@code -Dspring.aot.enabled=true}: the
 * declared primitives' registrar runs again at startup, so the barrier and the watchdog are beans
 * and show in {@code /actuator/cxc}, and the job runs on the leader.
 */
class SampleAotTest {

    @TempDir Path temp;

    private ChildJvm child;

    @AfterEach
    void stop() {
        if (child != null) {
            child.close();
        }
    }

    @Test
    void theAotProcessedSampleHasItsDeclaredBarrierAndWatchdog() throws Exception {
        assertThat(
                        Path.of(
                                "target/classes/io/subetha/cxc/sample/"
                                        + "SampleApplication__ApplicationContextInitializer.class"))
                .as("process-aot ran before the tests")
                .satisfies(p -> assertThat(Files.exists(p)).isTrue());
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        child =
                ChildJvm.start(
                        "sample-aot",
                        List.of("-Dspring.aot.enabled=true", "-XX:ReservedCodeCacheSize=64m"),
                        System.getProperty("java.class.path"),
                        SampleApplication.class.getName(),
                        List.of(
                                "--server.port=" + port,
                                "--cxc.directory=" + temp.resolve("cxc"),
                                "--spring.main.banner-mode=off",
                                "--sample.bookkeeping.interval=200ms",
                                "--cxc.barriers.phases.capacity=4",
                                "--cxc.watchdogs.jobs.grace-epochs=3"),
                        null);
        child.awaitLine(
                l -> l.contains("Starting AOT-processed SampleApplication"),
                Duration.ofSeconds(60));
        HttpClient http = HttpClient.newHttpClient();
        ObjectMapper json = new ObjectMapper();
        List<String> primitives = new ArrayList<>();
        await("/actuator/cxc of the AOT-processed sample")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .failFast(() -> !child.isAlive())
                .untilAsserted(
                        () -> {
                            HttpResponse<String> response;
                            try {
                                response =
                                        http.send(
                                                HttpRequest.newBuilder(
                                                                URI.create(
                                                                        "http://127.0.0.1:"
                                                                                + port
                                                                                + "/actuator/cxc"))
                                                        .timeout(Duration.ofSeconds(5))
                                                        .build(),
                                                HttpResponse.BodyHandlers.ofString());
                            } catch (IOException notYet) {
                                throw new AssertionError(notYet);
                            }
                            assertThat(response.statusCode()).isEqualTo(200);
                            JsonNode state = json.readTree(response.body());
                            primitives.clear();
                            for (JsonNode p : state.get("primitives")) {
                                primitives.add(
                                        p.get("name").asText() + ":" + p.get("kind").asText());
                            }
                            assertThat(primitives)
                                    .contains(
                                            "phases.barrier:epoch-barrier",
                                            "jobs.watchdog:failover-watchdog");
                            assertThat(state.get("leader").get("self").asBoolean()).isTrue();
                        });
        child.awaitLine(l -> l.contains("bookkeeping run #"), Duration.ofSeconds(30));
        assertThat(Files.exists(temp.resolve("cxc").resolve("phases.barrier"))).isTrue();
    }
}
