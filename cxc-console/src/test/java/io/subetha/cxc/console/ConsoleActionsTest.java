package io.subetha.cxc.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.process.Pids;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;

/**
 * Actions on, without Spring Security: the overview offers step-down; a POST without the page's
 * mark (a forged form post) is refused and changes nothing; an unknown action is a 404; step-down
 * makes the leader step down (a later term follows) and is logged with who asked.
 */
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "cxc.console.actions=true")
@ExtendWith(OutputCaptureExtension.class)
class ConsoleActionsTest {

    private static final Path DIRECTORY = temporary();

    @DynamicPropertySource
    static void directory(DynamicPropertyRegistry registry) {
        registry.add("cxc.directory", () -> DIRECTORY.resolve("cxc").toString());
    }

    @AfterAll
    static void delete() throws IOException {
        FileSystemUtils.deleteRecursively(DIRECTORY);
    }

    @LocalServerPort int port;

    @Test
    void stepDownIsOfferedRefusedWhenForgedAndDoneAndLoggedWhenAsked(CapturedOutput output)
            throws Exception {
        ConsoleClient console = new ConsoleClient(port);
        JsonNode leader = awaitLeading(console);
        long term = leader.get("term").asLong();
        assertThat(console.json("/cxc/api/overview").get("actions").get(0).asText())
                .isEqualTo("step-down");

        HttpResponse<String> forged = console.post("/cxc/api/actions/step-down", Map.of());
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(console.parse(forged.body()).get("message").asText()).contains("X-CXC-Console");
        HttpResponse<String> unknown =
                console.post("/cxc/api/actions/purge-everything", Map.of(), "X-CXC-Console", "1");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(console.parse(unknown.body()).get("message").asText()).contains("step-down");
        JsonNode unchanged = console.json("/cxc/api/overview").get("cxc").get("leader");
        assertThat(unchanged.get("term").asLong()).isEqualTo(term);
        assertThat(unchanged.get("self").asBoolean()).isTrue();

        HttpResponse<String> done =
                console.post("/cxc/api/actions/step-down", Map.of(), "X-CXC-Console", "1");
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(console.parse(done.body()).get("done").asText())
                .isEqualTo("pid " + Pids.current() + " stepped down from term " + term);
        assertThat(output).contains("cxc console: anonymous from 127.0.0.1 did step-down");
        // Alone, this process claims again after its hold-off, under a later term.
        await().atMost(Duration.ofSeconds(30))
                .until(() -> awaitLeading(console).get("term").asLong() > term);
        assertThat(console.json("/cxc/api/overview").get("terms").size()).isGreaterThan(1);
    }

    private static JsonNode awaitLeading(ConsoleClient console) {
        return await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> console.json("/cxc/api/overview").get("cxc").get("leader"),
                        l -> l.get("self").asBoolean());
    }

    private static Path temporary() {
        try {
            return Files.createTempDirectory("cxc-console");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
