package io.subetha.cxc.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;

/**
 * ShedLock's and Spring Integration's lease tables are listed beside the application's own: a lock
 * taken through either API shows as a held name with this process as holder.
 */
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"cxc.shedlock.enabled=true", "cxc.lock-registry.enabled=true"})
class ConsoleLeaseTablesTest {

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
    @Autowired LockProvider shedLock;
    @Autowired LockRegistry lockRegistry;

    @Test
    void shedLockAndSpringIntegrationLocksAreListedWithTheirHolder() throws Exception {
        SimpleLock report =
                shedLock.lock(
                                new LockConfiguration(
                                        Instant.now(),
                                        "nightly-report",
                                        Duration.ofMinutes(5),
                                        Duration.ZERO))
                        .orElseThrow();
        Lock orders = lockRegistry.obtain("orders");
        orders.lock();
        try {
            Map<String, JsonNode> tables = new HashMap<>();
            new ConsoleClient(port)
                    .json("/cxc/api/leases")
                    .forEach(t -> tables.put(t.get("name").asText(), t));
            assertThat(tables).containsKeys("shedlock.cxc", "locks.cxc", "app-leases.cxc");
            JsonNode shedLockHeld = tables.get("shedlock.cxc").get("held");
            assertThat(shedLockHeld).hasSize(1);
            assertThat(shedLockHeld.get(0).get("name").asText()).isEqualTo("nightly-report");
            assertThat(shedLockHeld.get(0).get("pid").asLong())
                    .isEqualTo(ProcessHandle.current().pid());
            JsonNode registryHeld = tables.get("locks.cxc").get("held");
            assertThat(registryHeld).hasSize(1);
            assertThat(registryHeld.get(0).get("name").asText()).contains("orders");
            assertThat(tables.get("app-leases.cxc").get("held")).isEmpty();
        } finally {
            orders.unlock();
            report.unlock();
        }
    }

    private static Path temporary() {
        try {
            return Files.createTempDirectory("cxc-console");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
