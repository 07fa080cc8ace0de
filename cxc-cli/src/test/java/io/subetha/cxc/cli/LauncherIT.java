package io.subetha.cxc.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.subetha.cxc.election.LeaderChild;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

/**
 * The real thing: {@code bin/cxc} running the packaged jar as its own process (after {@code
 * package}, so a failsafe test). It inspects a leader in a child JVM, verifies a damaged file, ends
 * {@code watch} cleanly on SIGHUP, SIGINT and SIGTERM and when its output is closed, and reads
 * another user's files read-only. Every process started here is killed in {@code finally}.
 */
class LauncherIT {

    private static final Path LAUNCHER = Path.of(System.getProperty("cxc.launcher", "../bin/cxc"));
    private static final Duration STARTUP = Duration.ofSeconds(60);

    @TempDir Path temp;

    private final ChildJvmGroup children = new ChildJvmGroup();
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killEverything() {
        processes.forEach(Process::destroyForcibly);
        for (Process process : processes) {
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        children.close();
    }

    record Result(int exitCode, String out, String err) {}

    private Path launcher = LAUNCHER.toAbsolutePath();
    private Path jar = Path.of(System.getProperty("cxc.jar", "target/cxc.jar")).toAbsolutePath();

    private Process start(List<String> prefix, String... args) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(launcher.toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("CXC_JAR", jar.toString());
        Process process = builder.start();
        processes.add(process);
        return process;
    }

    private Result run(List<String> prefix, String... args) throws Exception {
        Process process = start(prefix, args);
        process.getOutputStream().close();
        CompletableFuture<String> out = read(process.getInputStream());
        CompletableFuture<String> err = read(process.getErrorStream());
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("cxc finished").isTrue();
        return new Result(process.exitValue(), out.get(), err.get());
    }

    private Result run(String... args) throws Exception {
        return run(List.of(), args);
    }

    private static CompletableFuture<String> read(java.io.InputStream stream) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
                    } catch (IOException e) {
                        return "";
                    }
                });
    }

    @Test
    void helpAndUsageErrorsThroughTheLauncher() throws Exception {
        Result help = run("--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("Usage: cxc", "inspect", "watch", "verify", "Exit codes:");
        Result usage = run("inspect", temp.resolve("missing").toString());
        assertThat(usage.exitCode()).isEqualTo(Cxc.USAGE);
        assertThat(usage.err()).contains("cxc inspect: no such file or directory");
        Result version = run("--version");
        assertThat(version.out()).startsWith("cxc (SubEtha CXC) 0.");
    }

    @Test
    void inspectShowsTheLeaderRunningInAChildJvm() throws Exception {
        Path dir = temp.resolve("app");
        ChildJvm leader = children.add(ChildJvm.start("leader", LeaderChild.class));
        leader.awaitPrefixed("ready ", STARTUP);
        leader.send("open " + dir.resolve("leader.cxc"));
        leader.awaitPrefixed("opened ", STARTUP);
        leader.send("participate 50 3");
        leader.awaitPrefixed("gained ", STARTUP);

        Result table = run("inspect", dir.toString());
        Result json = run("inspect", "--json", dir.toString());

        assertThat(table.exitCode()).as(table.err()).isZero();
        assertThat(table.out())
                .containsPattern("(?m)^  leaderPid +" + leader.pid() + "$")
                .containsPattern("(?m)^  leaderStatus +ALIVE$");
        JsonNode state =
                InspectCommandTest.JSON.readTree(json.out()).get("files").get(0).get("state");
        assertThat(state.get("leaderPid").asLong()).isEqualTo(leader.pid());
        assertThat(state.get("leaderStatus").asString()).isEqualTo("ALIVE");
    }

    @Test
    void verifyReportsADamagedFileAndLeavesItAlone() throws Exception {
        Path dir = temp.resolve("app");
        Path file = dir.resolve("leader.cxc");
        SharedLeaderElection.TYPE.create(file, SharedLeaderElection.Settings.DEFAULTS).close();
        Fixtures.Damage.CORRUPT_CHECKSUM.applyTo(file);
        Map<String, String> before = CxcRun.tree(dir);

        Result result = run("verify", dir.toString());

        assertThat(result.exitCode()).isEqualTo(Cxc.PROBLEMS);
        assertThat(result.out())
                .isEqualTo(Fixtures.openMessage(file, PrimitiveKinds.LEADER_ELECTION) + "\n");
        assertThat(CxcRun.tree(dir)).isEqualTo(before);
    }

    @ParameterizedTest
    @CsvSource({"HUP, 1, 129", "INT, 2, 130", "TERM, 15, 143"})
    void watchEndsCleanlyOnASignal(String signal, int number, int exitCode) throws Exception {
        assumeTrue(
                !ignored(number),
                "SIG" + signal + " is ignored by this test's process, and so by its children");
        Path dir = temp.resolve("app");
        SharedLeaderElection.TYPE
                .create(dir.resolve("leader.cxc"), SharedLeaderElection.Settings.DEFAULTS)
                .close();
        Process watch = start(List.of(), "watch", "--interval", "50ms", dir.toString());
        CompletableFuture<String> err = read(watch.getErrorStream());
        Lines out = new Lines(watch.getInputStream());
        out.await("cxc watch ", 2); // the second frame has begun: it is running

        kill(signal, watch.pid());

        assertThat(watch.waitFor(10, TimeUnit.SECONDS)).as("watch ended").isTrue();
        assertThat(watch.exitValue()).isEqualTo(exitCode);
        assertThat(err.get()).isEmpty(); // no stack trace
        // Every frame that began was finished.
        List<String> lines = out.all();
        assertThat(lines.stream().filter(l -> l.startsWith("1 file: ")).count())
                .isEqualTo(lines.stream().filter(l -> l.startsWith("cxc watch ")).count());
    }

    @Test
    void watchEndsWhenItsOutputIsClosed() throws Exception {
        Path dir = temp.resolve("app");
        SharedLeaderElection.TYPE
                .create(dir.resolve("leader.cxc"), SharedLeaderElection.Settings.DEFAULTS)
                .close();
        Process watch = start(List.of(), "watch", "--interval", "20ms", dir.toString());
        CompletableFuture<String> err = read(watch.getErrorStream());
        BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).startsWith("cxc watch ");

        out.close(); // as `cxc watch DIR | head` does once it has read enough

        assertThat(watch.waitFor(10, TimeUnit.SECONDS)).as("watch ended").isTrue();
        assertThat(watch.exitValue()).isZero();
        assertThat(err.get()).isEmpty();
    }

    @Test
    void anotherUsersFilesAreReadReadOnly() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to switch user");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv");
        Path dir = temp.resolve("app");
        Fixtures.oneOfEveryKind(dir);
        // The tool itself from where the other user can surely reach it.
        Path tool = Files.createDirectory(temp.resolve("tool"));
        launcher = Files.copy(launcher, tool.resolve("cxc"));
        jar = Files.copy(jar, tool.resolve("cxc.jar"));
        try (Stream<Path> paths = Files.walk(temp)) {
            for (Path path : paths.toList()) {
                Files.setPosixFilePermissions(
                        path,
                        PosixFilePermissions.fromString(
                                Files.isDirectory(path) || path.equals(launcher)
                                        ? "rwxr-xr-x"
                                        : "rw-r--r--"));
            }
        }
        Map<String, String> before = CxcRun.tree(dir);
        List<String> asNobody =
                List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups");

        Result inspect = run(asNobody, "inspect", dir.toString());
        Result verify = run(asNobody, "verify", dir.toString());

        assertThat(inspect.exitCode()).as(inspect.out() + inspect.err()).isZero();
        assertThat(inspect.out()).contains("leader-election", "heartbeat-table", "epoch-barrier");
        assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
        assertThat(verify.out()).endsWith(" files sound\n");
        assertThat(CxcRun.tree(dir)).isEqualTo(before);
    }

    /** A process's stdout lines, read as they come, awaited with a deadline. */
    private static final class Lines {
        private final List<String> lines = new ArrayList<>();
        private boolean ended;

        Lines(java.io.InputStream stream) {
            Thread pump =
                    new Thread(
                            () -> {
                                try (BufferedReader reader =
                                        new BufferedReader(
                                                new InputStreamReader(
                                                        stream, StandardCharsets.UTF_8))) {
                                    String line;
                                    while ((line = reader.readLine()) != null) {
                                        add(line);
                                    }
                                } catch (IOException ignored) {
                                    // the process ended
                                }
                                end();
                            },
                            "cxc-stdout");
            pump.setDaemon(true);
            pump.start();
        }

        private synchronized void add(String line) {
            lines.add(line);
            notifyAll();
        }

        private synchronized void end() {
            ended = true;
            notifyAll();
        }

        /** Waits until {@code count} lines start with {@code prefix}. */
        synchronized void await(String prefix, int count) throws InterruptedException {
            long deadline = System.nanoTime() + STARTUP.toNanos();
            while (lines.stream().filter(l -> l.startsWith(prefix)).count() < count) {
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    throw new AssertionError(
                            "no " + count + " lines starting with " + prefix + " in " + lines);
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        /** Every line, once the output has ended. */
        synchronized List<String> all() throws InterruptedException {
            long deadline = System.nanoTime() + STARTUP.toNanos();
            while (!ended && deadline - System.nanoTime() > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, deadline - System.nanoTime());
            }
            return List.copyOf(lines);
        }
    }

    private static void kill(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).isZero();
    }

    /** Whether this process ignores signal {@code number} (inherited by children across exec). */
    private static boolean ignored(int number) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("SigIgn:")) {
                long mask = Long.parseUnsignedLong(line.substring(7).trim(), 16);
                return (mask & (1L << (number - 1))) != 0;
            }
        }
        return false;
    }
}
