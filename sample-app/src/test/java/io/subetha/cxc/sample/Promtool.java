package io.subetha.cxc.sample;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code promtool} (Debian's {@code prometheus} package) as a child process. Missing
 * is a failure, not a skip: the rules in {@code docs/prometheus} are only checked if it runs.
 */
final class Promtool {

    static final String MISSING =
            "promtool is not on the PATH: install Debian's prometheus package (as root: apt-get"
                    + " install --no-install-recommends prometheus, or run .ci/install-promtool,"
                    + " which also makes sure no prometheus daemon is left running)";

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** What one run printed (stdout and stderr together) and how it exited. */
    record Result(List<String> command, int exitCode, String output) {
        @Override
        public String toString() {
            return String.join(" ", command) + " exited " + exitCode + ":\n" + output;
        }
    }

    private Promtool() {}

    /** The promtool on the PATH, or an {@link AssertionError} saying how to install it. */
    static Path executable() {
        return find().orElseThrow(() -> new AssertionError(MISSING));
    }

    static Optional<Path> find() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String directory : path.split(File.pathSeparator)) {
            if (directory.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(directory, "promtool");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Runs {@code promtool args...} in {@code workingDirectory}; killed if it outlives the run. */
    static Result run(Path workingDirectory, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(executable().toString());
        command.addAll(List.of(args));
        // Output to a file, not a pipe: a full pipe can never block the child, and waitFor's
        // timeout bounds the run even if promtool hangs.
        Path output = Files.createTempFile("promtool", ".out");
        Process process = null;
        try {
            process =
                    new ProcessBuilder(command)
                            .directory(workingDirectory.toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(output.toFile())
                            .start();
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(
                        String.join(" ", command)
                                + " did not finish within "
                                + TIMEOUT
                                + ":\n"
                                + Files.readString(output, StandardCharsets.UTF_8));
            }
            return new Result(
                    command, process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } finally {
            if (process != null && process.isAlive()) {
                process.destroyForcibly().waitFor();
            }
            Files.deleteIfExists(output);
        }
    }
}
