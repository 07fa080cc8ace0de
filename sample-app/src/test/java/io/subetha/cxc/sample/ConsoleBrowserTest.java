package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The console in a real browser (headless Chromium, Debian's packages): three copies of the sample
 * share one directory, one with actions on; a job that always throws is listed failed with its
 * exception, re-run by a click on the page with actions on (it leaves the failed list), and listed
 * failed again without a button on a page with actions off; a survivor's console shows one leader
 * and three live participants; the leader is SIGKILLed and the same page, never reloaded, shows the
 * new leader under a later term and the killed one not alive; the browser logged no JavaScript
 * error; once the page's own server is killed too, the page calls its data stale. The screenshot in
 * the README (docs/console.png) is taken here: {@code -Dcxc.console.screenshot=docs} refreshes it.
 */
class ConsoleBrowserTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration STARTUP = Duration.ofSeconds(100);

    @TempDir Path temp;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void theConsoleFollowsAKilledLeadersSuccessorWithoutAReload() throws Exception {
        requireChromium();
        ChildJvmGroup children = new ChildJvmGroup();
        ChromeDriver browser = null;
        try {
            Map<ChildJvm, Integer> ports = startCopies(children, temp.resolve("cxc"));
            ChildJvm leader = awaitOneLeader(ports);
            ChildJvm operator = List.copyOf(ports.keySet()).get(2); // the one with actions on
            ChildJvm watcher =
                    ports.keySet().stream()
                            .filter(c -> c != leader && c != operator)
                            .findFirst()
                            .orElseThrow();
            String submitted = SampleCopies.post(ports.get(watcher), "/reports/broken");
            long broken = Long.parseLong(submitted.replaceAll("\\D", ""));

            browser = chromium();
            ChromeDriver page = browser;
            // Actions on: the failed job is re-run from the page and leaves the failed list.
            browser.get("http://127.0.0.1:" + ports.get(operator) + "/cxc");
            tab(page, "jobs");
            WebElement failed = awaitFailed(page, broken);
            assertThat(failed.getText())
                    .contains("java.lang.IllegalStateException", "report service unavailable");
            await("the re-run button clicked")
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptions() // the row is redrawn at each poll: find it again
                    .until(
                            () -> {
                                page.findElement(By.id("rerun-" + broken)).click();
                                return true;
                            });
            await("the re-run job leaves the failed list")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> failedRow(page, broken) == null);
            assertThat(page.findElement(By.id("message")).getText())
                    .contains("job " + broken, "queued again");

            // Actions off: the same job, failed again after its new run, and no button for it.
            browser.get("http://127.0.0.1:" + ports.get(watcher) + "/cxc");
            tab(page, "jobs");
            await("the re-run job failed again, its attempts counted on")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions() // the row is redrawn at each poll: find it again
                    .until(
                            () -> {
                                WebElement row = failedRow(page, broken);
                                return row != null && row.getText().contains(" 6 ");
                            });
            assertThat(browser.findElements(By.id("rerun-" + broken))).as("actions off").isEmpty();
            assertThat(browser.findElements(By.cssSelector("#schedulers button"))).isEmpty();
            saveScreenshot(browser, "console-jobs.png");
            tab(page, "overview");

            long firstTerm =
                    await("the page shows the leader and three live participants")
                            .atMost(Duration.ofSeconds(60))
                            .pollInterval(Duration.ofMillis(100))
                            .until(
                                    () -> shown(page),
                                    s ->
                                            s.leaderPid() == leader.pid()
                                                    && s.alive() == 3
                                                    && s.participants() == 3)
                            .term();
            // A mark a reload would wipe out.
            ((JavascriptExecutor) browser)
                    .executeScript("document.body.dataset.notReloaded = 'yes'");

            long killed = System.nanoTime();
            leader.process().destroyForcibly(); // SIGKILL
            Shown after =
                    await("the page shows a survivor leading under a later term")
                            .atMost(Duration.ofSeconds(60))
                            .pollInterval(Duration.ofMillis(100))
                            .until(
                                    () -> shown(page),
                                    s ->
                                            s.leaderPid() != leader.pid()
                                                    && s.leaderPid() > 0
                                                    && s.term() > firstTerm
                                                    && s.alive() == 2
                                                    && s.participants() == 3);
            System.out.printf(
                    "MEASURED console failover: %.0f ms from SIGKILL of the leader to the page"
                            + " showing its successor (page polled every 250 ms, checked every"
                            + " 100 ms)%n",
                    (System.nanoTime() - killed) / 1e6);
            assertThat(ports.keySet().stream().map(ChildJvm::pid)).contains(after.leaderPid());
            assertThat(browser.findElement(By.tagName("body")).getDomAttribute("data-not-reloaded"))
                    .isEqualTo("yes");
            assertThat(browser.findElement(By.id("freshness")).getText()).startsWith("live");
            assertThat(browser.findElements(By.id("step-down"))).as("actions are off").isEmpty();

            saveScreenshot(browser, "console.png");
            List<String> errors = new ArrayList<>();
            for (LogEntry entry : browser.manage().logs().get(LogType.BROWSER)) {
                if (entry.getLevel().intValue() >= Level.SEVERE.intValue()) {
                    errors.add(entry.getMessage());
                }
            }
            assertThat(errors).as("the browser's console errors").isEmpty();

            // The page's own server gone, the page says its data is stale.
            watcher.process().destroyForcibly();
            await("the page calls its data stale")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(
                            () ->
                                    page.findElement(By.id("freshness"))
                                            .getText()
                                            .startsWith("stale"));
        } finally {
            if (browser != null) {
                browser.quit();
            }
            children.close();
        }
    }

    private static void tab(ChromeDriver browser, String name) {
        browser.findElement(By.cssSelector("nav button[data-tab='" + name + "']")).click();
    }

    /** The failed-jobs row of job {@code id}, or null while the page lists it not failed. */
    private static WebElement failedRow(ChromeDriver browser, long id) {
        List<WebElement> rows =
                browser.findElements(By.cssSelector("#failed-rows tr[data-job='" + id + "']"));
        return rows.isEmpty() ? null : rows.get(0);
    }

    private static WebElement awaitFailed(ChromeDriver browser, long id) {
        return await("job " + id + " listed failed")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> failedRow(browser, id), row -> row != null);
    }

    /** What the page shows now. */
    private record Shown(long leaderPid, long term, int participants, int alive) {}

    private static Shown shown(ChromeDriver browser) {
        String pid = browser.findElement(By.id("leader-pid")).getText().split(" ")[0];
        String term = browser.findElement(By.id("leader-term")).getText();
        List<WebElement> rows = browser.findElements(By.cssSelector("#participants tr"));
        int alive = browser.findElements(By.cssSelector("#participants td.alive")).size();
        return new Shown(number(pid), number(term), rows.size(), alive);
    }

    private static long number(String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException notYet) {
            return -1;
        }
    }

    private static void requireChromium() {
        new SystemTool(
                        "headless Chromium and its driver at " + CHROMIUM + " and " + CHROMEDRIVER,
                        "install-chromium",
                        "chromium and chromium-driver packages",
                        () -> Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER))
                .require();
    }

    private ChromeDriver chromium() throws IOException {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                // This machine's network is closed: without these Chromium's own connections are
                // refused, many at a time.
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + Files.createDirectories(temp.resolve("chromium")));
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service =
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(CHROMEDRIVER.toFile())
                        .usingAnyFreePort()
                        .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().window().setSize(new Dimension(1280, 900));
        return driver;
    }

    /**
     * Saves the page as {@code target/<name>}; with {@code -Dcxc.console.screenshot=docs} it also
     * replaces the README's {@code docs/<name>} if there is one, so an ordinary build leaves the
     * checkout as it found it.
     */
    private static void saveScreenshot(ChromeDriver browser, String name) throws IOException {
        File shot = browser.getScreenshotAs(OutputType.FILE);
        Path module = Path.of(System.getProperty("basedir", "."));
        Path target = module.resolve("target");
        Files.createDirectories(target);
        Files.copy(shot.toPath(), target.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        Path docs = module.resolve("../docs").normalize();
        if ("docs".equals(System.getProperty("cxc.console.screenshot"))
                && Files.exists(docs.resolve(name))) {
            Files.copy(shot.toPath(), docs.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private Map<ChildJvm, Integer> startCopies(ChildJvmGroup children, Path directory)
            throws IOException {
        Map<ChildJvm, Integer> ports = new LinkedHashMap<>();
        for (int i = 1; i <= 3; i++) {
            int port = SampleCopies.freePort();
            // The third copy offers actions; the others are read-only, as by default.
            ChildJvm child =
                    SampleCopies.start(
                            children,
                            "sample-console-" + i,
                            port,
                            directory,
                            "--cxc.console.actions=" + (i == 3));
            ports.put(child, port);
        }
        for (Map.Entry<ChildJvm, Integer> entry : ports.entrySet()) {
            ChildJvm child = entry.getKey();
            await("/actuator/cxc of " + child)
                    .atMost(STARTUP)
                    .pollInterval(Duration.ofMillis(250))
                    .failFast(() -> !child.isAlive())
                    .until(() -> cxc(entry.getValue()) != null);
        }
        return ports;
    }

    private ChildJvm awaitOneLeader(Map<ChildJvm, Integer> ports) {
        return await("exactly one leader among " + ports.keySet())
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> {
                            List<ChildJvm> selves = new ArrayList<>();
                            for (Map.Entry<ChildJvm, Integer> entry : ports.entrySet()) {
                                JsonNode state = cxc(entry.getValue());
                                if (state != null && state.get("leader").get("self").asBoolean()) {
                                    selves.add(entry.getKey());
                                }
                            }
                            return selves.size() == 1 ? selves.get(0) : null;
                        },
                        leader -> leader != null);
    }

    /** GET /actuator/cxc, or null if the instance does not answer (yet). */
    private JsonNode cxc(int port) throws InterruptedException {
        try {
            HttpResponse<String> response =
                    http.send(
                            HttpRequest.newBuilder(
                                            URI.create(
                                                    "http://127.0.0.1:" + port + "/actuator/cxc"))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? json.readTree(response.body()) : null;
        } catch (IOException notUp) {
            return null;
        }
    }
}
