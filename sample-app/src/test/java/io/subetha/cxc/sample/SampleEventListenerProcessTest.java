package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three sample JVMs share the event log {@code requests}, and each runs the same event-log listener
 * ({@link RequestTally}): every request served by any of them is handled by all three, in order.
 * One copy is SIGKILLed and started again on its port (so under its copy name, {@code
 * cxc-sample-<port>}): it goes on from its saved position, handling the requests served while it
 * was down, repeating at most the one it was handling when it was killed, skipping none.
 */
class SampleEventListenerProcessTest {

    private static final Duration STARTUP = Duration.ofSeconds(100);
    private static final int REQUESTS = 30;

    @TempDir Path temp;

    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void stopChildren() {
        children.close();
    }

    private ChildJvm copy(Path directory, int port) {
        return SampleCopies.startAnswering(
                children,
                port,
                directory,
                "--logging.level.io.subetha.cxc.sample.RequestTally=DEBUG");
    }

    @Test
    void everyCopyHandlesEveryRequestInOrderAndARestartedOneResumesWithoutAGap() throws Exception {
        Path directory = temp.resolve("cxc");
        int[] ports = {SampleCopies.freePort(), SampleCopies.freePort(), SampleCopies.freePort()};
        List<ChildJvm> copies = new ArrayList<>();
        for (int port : ports) {
            copies.add(copy(directory, port));
        }
        for (int i = 0; i < REQUESTS; i++) {
            assertThat(SampleCopies.get(ports[i % 3], "/hello")).startsWith("hello from pid");
        }
        for (ChildJvm copy : copies) {
            assertThat(handled(copy, REQUESTS)).containsExactlyElementsOf(sequences(0, REQUESTS));
        }

        copies.get(2).kill();
        for (int i = REQUESTS; i < 2 * REQUESTS; i++) {
            assertThat(SampleCopies.get(ports[i % 2], "/hello")).startsWith("hello from pid");
        }
        for (ChildJvm copy : copies.subList(0, 2)) {
            assertThat(handled(copy, REQUESTS))
                    .containsExactlyElementsOf(sequences(REQUESTS, 2 * REQUESTS));
        }
        ChildJvm restarted = copy(directory, ports[2]);
        List<Long> resumed = handled(restarted, REQUESTS);
        if (resumed.get(0) == REQUESTS - 1) {
            // At least once: the request in hand at the kill came again; then the rest.
            resumed.addAll(handled(restarted, 1));
            resumed.remove(0);
        }
        assertThat(resumed).containsExactlyElementsOf(sequences(REQUESTS, 2 * REQUESTS));
        assertThat(SampleCopies.get(ports[2], "/requests"))
                .contains("handled " + REQUESTS + " requests");
    }

    /** The sequences of the next {@code count} requests {@code copy} logged handling. */
    private static List<Long> handled(ChildJvm copy, int count) {
        String marker = "handled request ";
        List<Long> sequences = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String line = copy.awaitLine(l -> l.contains(marker), STARTUP);
            String rest = line.substring(line.indexOf(marker) + marker.length());
            sequences.add(Long.parseLong(rest.substring(0, rest.indexOf(' '))));
        }
        return sequences;
    }

    private static List<Long> sequences(long from, long to) {
        List<Long> all = new ArrayList<>();
        for (long s = from; s < to; s++) {
            all.add(s);
        }
        return all;
    }
}
