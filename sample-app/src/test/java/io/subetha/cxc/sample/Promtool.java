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
 * Runs the real {@code promtool} (Debian's {@code prometheus} package) as a child process. Missing,
 * it is installed as root, else its tests are skipped saying how to enable them, or fail where
 * {@link SystemTool#REQUIRED} is set (CI): see {@link SystemTool}.
 */
final class Promtool {

    static final SystemTool TOOL =
            new SystemTool(
                    "promtool",
                    "install-promtool",
                    "prometheus package (apt-get install --no-install-recommends prometheus)",
                    () -> find().isPresent());

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** What one run printed (stdout and stderr together) and how it exited. */
    record Result(List<String> command, int exitCode, String output) {
        @Override
        public String toString() {
            return String.join(" ", command) + " exited " + exitCode + ":\n" + output;
        }
    }

    private Promtool() {}

    /** The promtool on the PATH; absent, the test is skipped or fails (see {@link SystemTool}). */
    static Path executable() {
        TOOL.require();
        return find().orElseThrow();
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
