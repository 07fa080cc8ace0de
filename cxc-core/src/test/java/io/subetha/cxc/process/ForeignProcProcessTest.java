package io.subetha.cxc.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.testing.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, item 4: a process in a PID namespace of its own whose {@code /proc} still shows the
 * parent namespace ({@code unshare -p -f} without {@code --mount-proc}). Every PID it probes names
 * some other process of the parent namespace, or none: the probe must answer UNKNOWN, never DEAD
 * (which would depose a live leader), and record no start time.
 */
class ForeignProcProcessTest {

    private static final List<String> UNSHARE =
            List.of("unshare", "-p", "-f", "--kill-child", "--");

    @Test
    void thisProcessSeesItsOwnProc() {
        assertThat(ProcessProbe.procMatchesPidNamespace()).isTrue();
    }

    @Test
    void aForeignProcAnswersUnknownNeverDeadAndRecordsNoStartTime() {
        assumeUnsharePermitted();
        long parent = Pids.current();
        try (ChildJvm child =
                ChildJvm.startPrefixed(
                        "foreign-proc", UNSHARE, ForeignProcChild.class, Long.toString(parent))) {
            Map<String, String> report =
                    parse(child.awaitPrefixed("report ", Duration.ofSeconds(60)));

            // The setting is the one of the issue: a namespace PID that /proc/self does not show.
            assertThat(report.get("procSelf")).isNotEqualTo(report.get("pid"));

            // A live process of the parent namespace (this test JVM), the child itself, and a live
            // process of the child's own namespace: none is ever judged dead.
            for (String key : List.of("parent", "self", "selfWithStart", "sibling", "missing")) {
                assertThat(report.get(key))
                        .as("status of %s%s", key, child.diagnostics())
                        .isEqualTo(ProcessStatus.UNKNOWN.name());
            }
            for (String key : List.of("parentStart", "selfStart", "siblingStart")) {
                assertThat(report.get(key))
                        .as("start time of %s", key)
                        .isEqualTo(Long.toString(ProcessProbe.UNKNOWN_START_TIME));
            }
        }
    }

    private static Map<String, String> parse(String line) {
        Map<String, String> fields = new HashMap<>();
        for (String field : line.trim().split(" ")) {
            int eq = field.indexOf('=');
            fields.put(field.substring(0, eq), field.substring(eq + 1));
        }
        return fields;
    }

    private static void assumeUnsharePermitted() {
        String why;
        try {
            Process probe =
                    new ProcessBuilder(UNSHARE.get(0), "-p", "-f", "--kill-child", "--", "true")
                            .redirectErrorStream(true)
                            .start();
            boolean ended = probe.waitFor(30, TimeUnit.SECONDS);
            String output =
                    new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                            .trim();
            if (ended && probe.exitValue() == 0) {
                return;
            }
            if (!ended) {
                probe.destroyForcibly();
            }
            why = ended ? "exit " + probe.exitValue() + ": " + output : "it did not end in 30 s";
        } catch (IOException e) {
            why = e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            why = e.toString();
        }
        Assumptions.abort(
                "this machine does not let the test create a PID namespace (`unshare -p -f` needs"
                        + " CAP_SYS_ADMIN, or unprivileged user namespaces with -r): "
                        + why);
    }

    /**
     * Runs in the new PID namespace: reports what the probe says about a parent-namespace PID
     * (args[0]), its own PID, a child of its own and a PID that no namespace uses.
     */
    public static final class ForeignProcChild {
        public static void main(String[] args) throws Exception {
            long parent = Long.parseLong(args[0]);
            long self = Pids.current();
            Process sleeper = new ProcessBuilder("sleep", "60").start();
            try {
                long sibling = sleeper.pid();
                String procSelf = Files.readSymbolicLink(Path.of("/proc/self")).toString();
                long selfStart = ProcessProbe.startTime(self);
                System.out.println(
                        "report pid="
                                + self
                                + " procSelf="
                                + procSelf
                                + " parent="
                                + ProcessProbe.status(parent, ProcessProbe.UNKNOWN_START_TIME)
                                + " self="
                                + ProcessProbe.status(self, ProcessProbe.UNKNOWN_START_TIME)
                                + " selfWithStart="
                                + ProcessProbe.status(self, selfStart + 1)
                                + " sibling="
                                + ProcessProbe.status(sibling, ProcessProbe.UNKNOWN_START_TIME)
                                + " missing="
                                + ProcessProbe.status(Pids.MAX_PID, ProcessProbe.UNKNOWN_START_TIME)
                                + " parentStart="
                                + ProcessProbe.startTime(parent)
                                + " selfStart="
                                + selfStart
                                + " siblingStart="
                                + ProcessProbe.startTime(sibling));
                System.out.flush();
            } finally {
                sleeper.destroyForcibly();
            }
        }
    }
}
