package io.subetha.cxc.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;

/**
 * A program from the system's packages that some tests drive (promtool, headless Chromium), and
 * what a test does when it is absent. As root it runs the script in {@code .ci} that installs it
 * (Debian's packages); otherwise the test is skipped, saying how to enable it, so the README's test
 * command passes on a machine with only a JDK and Maven. Where {@value #REQUIRED} is {@code true}
 * (.ci/run sets it) a missing tool is a failure instead: CI never skips these checks.
 */
record SystemTool(String name, String installScript, String packages, BooleanSupplier present) {

    static final String REQUIRED = "CXC_REQUIRE_SYSTEM_TOOLS";

    private static final long INSTALL_TIMEOUT_MINUTES = 15;

    /** Returns when the tool is present (installed now if this is root); else skips or fails. */
    void require() {
        require(isRoot(), Boolean.parseBoolean(System.getenv(REQUIRED)));
    }

    void require(boolean root, boolean required) {
        if (present.getAsBoolean() || (root && install() && present.getAsBoolean())) {
            return;
        }
        String how =
                name
                        + " is missing: install Debian's "
                        + packages
                        + " (as root: `bash .ci/"
                        + installScript
                        + "`, or run the build as root and this test installs it)";
        if (required) {
            throw new AssertionError(how + "; " + REQUIRED + "=true makes it required");
        }
        Assumptions.abort("skipped: " + how + ". .ci/run installs it and runs this test.");
    }

    private static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    private boolean install() {
        Path script = OperatorFiles.docs().resolveSibling(".ci").resolve(installScript);
        if (!Files.isRegularFile(script)) {
            return false;
        }
        try {
            Process process = new ProcessBuilder("bash", script.toString()).inheritIO().start();
            try {
                if (!process.waitFor(INSTALL_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                    return false;
                }
                return process.exitValue() == 0;
            } finally {
                if (process.isAlive()) {
                    process.destroyForcibly().waitFor();
                }
            }
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
