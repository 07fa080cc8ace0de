package io.subetha.cxc.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;

/**
 * With a management port of its own, the console is served there (page, JSON, refusals), under its
 * configured path, and not on the application's port.
 */
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"management.server.port=0", "cxc.console.path=/ops/cxc"})
class ConsoleOnManagementPortTest {

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
    @LocalManagementPort int managementPort;

    @Test
    void theConsoleIsOnTheManagementPortAlone() throws Exception {
        assertThat(managementPort).isNotEqualTo(port);
        ConsoleClient management = new ConsoleClient(managementPort);
        HttpResponse<String> page = management.get("/ops/cxc");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<meta name=\"cxc-base\" content=\"/ops/cxc\">");
        assertThat(management.get("/ops/cxc/console.js").statusCode()).isEqualTo(200);
        JsonNode overview = management.json("/ops/cxc/api/overview");
        assertThat(overview.get("cxc").get("pid").asLong())
                .isEqualTo(ProcessHandle.current().pid());
        HttpResponse<String> unknown = management.get("/ops/cxc/api/jobs?scheduler=nope");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(management.parse(unknown.body()).get("message").asText()).contains("nope");
        assertThat(management.get("/ops/cxc/api/jobs?scheduler=reports.cxc&page=x").statusCode())
                .isEqualTo(400);

        assertThat(new ConsoleClient(port).get("/ops/cxc/api/overview").statusCode())
                .isEqualTo(404);
    }

    private static Path temporary() {
        try {
            return Files.createTempDirectory("cxc-console");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
