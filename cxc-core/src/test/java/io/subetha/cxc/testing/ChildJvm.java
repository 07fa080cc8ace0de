package io.subetha.cxc.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM for multi-process tests: started on the test classpath behind {@link OrphanGuard},
 * talked to through stdin/stdout lines, killed for real ({@code SIGKILL}), paused ({@code
 * SIGSTOP}/{@code SIGCONT}).
 *
 * <p>Always close it ({@code try}-with-resources, or {@link ChildJvmGroup} in {@code @AfterEach}):
 * {@link #close()} kills the process and waits for it. As a second line of defence, a shutdown hook
 * kills every child still running when the test JVM exits, and {@link OrphanGuard} halts a child
 * whose parent died.
 */
public final class ChildJvm implements AutoCloseable {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> LIVE.forEach(Process::destroyForcibly), "child-jvm-reaper"));
    }

    /** How long {@link #ask} waits for a reply: generous, as several JVMs share two cores. */
    public static final Duration ASK_TIMEOUT = Duration.ofSeconds(60);

    private final String name;
    private final Process process;
    private volatile Predicate<String> events = line -> false;
    private final PrintWriter stdin;

    /** Stdout lines not yet matched by an await, oldest first. */
    private final List<String> pending = new ArrayList<>();

    private final Deque<String> stderrTail = new ArrayDeque<>();
    private final List<String> transcript = new ArrayList<>();

    private ChildJvm(String name, Process process) {
        this.name = name;
        this.process = process;
        this.stdin =
                new PrintWriter(
                        new java.io.OutputStreamWriter(
                                process.getOutputStream(), StandardCharsets.UTF_8),
                        true);
        pump(process.getInputStream(), true);
        pump(process.getErrorStream(), false);
    }

    /** Starts {@code mainClass} on this JVM's classpath. */
    public static ChildJvm start(String name, Class<?> mainClass, String... args) {
        return start(
                name,
                List.of(),
                System.getProperty("java.class.path"),
                mainClass.getName(),
                List.of(args),
                null);
    }

    /**
     * Starts {@code mainClass} on this JVM's classpath behind a command prefix, for example {@code
     * List.of("unshare", "-p", "-f", "--kill-child", "--")}: the prefix is run with the {@code
     * java} command line as its arguments. {@link #pid()} is then the prefix's process, not the
     * JVM's; a prefix should end the JVM when it is killed (as {@code --kill-child} does).
     */
    public static ChildJvm startPrefixed(
            String name, List<String> commandPrefix, Class<?> mainClass, String... args) {
        return start(
                name,
                commandPrefix,
                List.of(),
                System.getProperty("java.class.path"),
                mainClass.getName(),
                List.of(args),
                null);
    }

    /**
     * Starts {@code mainClass} with JVM options on a given classpath.
     *
     * @param workingDirectory the child's working directory, or null to inherit
     */
    public static ChildJvm start(
            String name,
            List<String> jvmOptions,
            String classpath,
            String mainClass,
            List<String> args,
            Path workingDirectory) {
        return start(name, List.of(), jvmOptions, classpath, mainClass, args, workingDirectory);
    }

    private static ChildJvm start(
            String name,
            List<String> commandPrefix,
            List<String> jvmOptions,
            String classpath,
            String mainClass,
            List<String> args,
            Path workingDirectory) {
        List<String> command = new ArrayList<>(commandPrefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Small, quick-starting children: several share two cores with the test JVM.
        command.add("-Xshare:auto");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-Xmx128m");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(OrphanGuard.class.getName());
        command.add(Long.toString(ProcessHandle.current().pid()));
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        if (workingDirectory != null) {
            builder.directory(workingDirectory.toFile());
        }
        try {
            Process process = builder.start();
            LIVE.add(process);
            process.onExit().thenRun(() -> LIVE.remove(process));
            return new ChildJvm(name, process);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start child JVM " + name + ": " + command, e);
        }
    }

    private void pump(InputStream stream, boolean isStdout) {
        Thread thread =
                new Thread(
                        () -> {
                            try (BufferedReader reader =
                                    new BufferedReader(
                                            new InputStreamReader(
                                                    stream, StandardCharsets.UTF_8))) {
                                String line;
                                while ((line = reader.readLine()) != null) {
                                    if (isStdout) {
                                        synchronized (pending) {
                                            pending.add(line);
                                            pending.notifyAll();
                                        }
                                    } else {
                                        synchronized (stderrTail) {
                                            stderrTail.addLast(line);
                                            if (stderrTail.size() > 60) {
                                                stderrTail.removeFirst();
                                            }
                                        }
                                    }
                                }
                            } catch (IOException ignored) {
                                // the process ended
                            }
                        },
                        name + (isStdout ? "-stdout" : "-stderr"));
        thread.setDaemon(true);
        thread.start();
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Process process() {
        return process;
    }

    /** Sends one line to the child's stdin. */
    public void send(String line) {
        stdin.println(line);
        if (stdin.checkError()) {
            throw new IllegalStateException(
                    name + " (pid " + pid() + ") no longer reads its stdin" + diagnostics());
        }
    }

    /** The next stdout line, waiting at most {@code timeout}. */
    public String readLine(Duration timeout) {
        return awaitLine(line -> true, timeout);
    }

    /**
     * Takes the oldest stdout line that matches, waiting at most {@code timeout} for one to arrive.
     * Lines that do not match stay for later awaits, so interleaved replies and events are never
     * lost.
     *
     * @throws AssertionError on timeout, with the child's recent output
     */
    public String awaitLine(Predicate<String> matching, Duration timeout) {
        return awaitLine(matching, timeout, "a line");
    }

    /**
     * Sends {@code command} to a {@link ChildServer} and returns its reply: the oldest stdout line
     * that is not one of this child's events (see {@link #eventsAre}), waiting at most {@link
     * #ASK_TIMEOUT}.
     *
     * @throws AssertionError on timeout, naming the child and the command, or when the reply is an
     *     {@code error}
     */
    public String ask(String command) {
        return ask(command, ASK_TIMEOUT);
    }

    /**
     * Sends {@code command}, which should fail, and returns the child's {@code error} reply.
     *
     * @throws AssertionError on timeout or when the command succeeded
     */
    public String askFailing(String command) {
        send(command);
        Predicate<String> isEvent = events;
        String reply =
                awaitLine(
                        line -> !isEvent.test(line), ASK_TIMEOUT, "the reply to '" + command + "'");
        if (!reply.startsWith("error")) {
            throw new AssertionError(
                    name + " did not refuse '" + command + "': " + reply + diagnostics());
        }
        return reply;
    }

    /** {@link #ask(String)} with its own timeout. */
    public String ask(String command, Duration timeout) {
        send(command);
        Predicate<String> isEvent = events;
        String reply =
                awaitLine(line -> !isEvent.test(line), timeout, "the reply to '" + command + "'");
        if (reply.startsWith("error")) {
            throw new AssertionError(
                    name + " answered '" + command + "' with: " + reply + diagnostics());
        }
        return reply;
    }

    /**
     * Declares which stdout lines the child prints on its own (progress, acknowledgements), so
     * {@link #ask} passes over them; they stay for {@link #awaitLine}.
     */
    public ChildJvm eventsAre(Predicate<String> events) {
        this.events = events;
        return this;
    }

    private String awaitLine(Predicate<String> matching, Duration timeout, String awaited) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (pending) {
            while (true) {
                for (var it = pending.iterator(); it.hasNext(); ) {
                    String line = it.next();
                    if (matching.test(line)) {
                        it.remove();
                        synchronized (transcript) {
                            transcript.add(line);
                        }
                        return line;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(
                            "timed out after "
                                    + timeout
                                    + " waiting for "
                                    + awaited
                                    + " from "
                                    + name
                                    + " (pid "
                                    + pid()
                                    + ", alive="
                                    + isAlive()
                                    + ")"
                                    + diagnostics());
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(pending, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted waiting for " + name, e);
                }
            }
        }
    }

    /** Awaits a line starting with {@code prefix} and returns the rest of it. */
    public String awaitPrefixed(String prefix, Duration timeout) {
        return awaitLine(line -> line.startsWith(prefix), timeout).substring(prefix.length());
    }

    /** SIGKILL, then waits until the process is gone (and reaped). */
    public void kill() {
        process.destroyForcibly();
        waitForExit(Duration.ofSeconds(30));
    }

    /** SIGTERM (shutdown hooks run), waiting up to {@code timeout} before killing. */
    public int stop(Duration timeout) {
        process.destroy();
        if (!waitForExit(timeout)) {
            kill();
        }
        return process.exitValue();
    }

    /** SIGSTOP: the process freezes, as in a long GC pause. */
    public void suspend() {
        signal("STOP");
    }

    /** SIGCONT after {@link #suspend()}. */
    public void resume() {
        signal("CONT");
    }

    private void signal(String signal) {
        try {
            Process kill =
                    new ProcessBuilder("kill", "-" + signal, Long.toString(pid()))
                            .redirectErrorStream(true)
                            .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill -" + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public boolean waitForExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The child's recent stderr and the stdout lines read so far, for assertion messages. */
    public String diagnostics() {
        StringBuilder text = new StringBuilder();
        synchronized (transcript) {
            int from = Math.max(0, transcript.size() - 20);
            text.append("\n--- last stdout lines matched from ").append(name).append(" ---\n");
            transcript.subList(from, transcript.size()).forEach(l -> text.append(l).append('\n'));
        }
        synchronized (pending) {
            int from = Math.max(0, pending.size() - 20);
            text.append("--- unmatched stdout lines of ").append(name).append(" ---\n");
            pending.subList(from, pending.size()).forEach(l -> text.append(l).append('\n'));
        }
        synchronized (stderrTail) {
            text.append("--- stderr tail of ").append(name).append(" ---\n");
            stderrTail.forEach(l -> text.append(l).append('\n'));
        }
        return text.toString();
    }

    /** Kills the process (if still running) and waits for it. */
    @Override
    public void close() {
        if (process.isAlive()) {
            // A suspended process ignores nothing but SIGKILL; SIGKILL works on it directly.
            kill();
        }
        stdin.close();
    }

    @Override
    public String toString() {
        return name + "(pid " + pid() + ")";
    }
}
