package io.subetha.cxc.boot.eventlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two copies of one service, each a JVM with the same {@code @CxcEventListener}, over one declared
 * log that a third process publishes to: both handle every event, in order. One copy is SIGKILLed
 * half-way and started again under its copy name: it goes on from its saved position, repeating at
 * most the one event it was handling when it was killed, and skipping none.
 */
class EventListenerProcessTest {

    private static final Duration START = Duration.ofSeconds(120);
    private static final int EVENTS = 200;

    @TempDir Path dir;
    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    private ChildJvm copy(Path cxc, String name) {
        ChildJvm copy =
                children.add(
                        ChildJvm.start(
                                name,
                                EventListenerApp.class,
                                "--cxc.directory=" + cxc,
                                "--cxc.event-logs.orders.capacity=1024",
                                "--cxc.listeners.copy-name=" + name,
                                "--spring.main.banner-mode=off",
                                "--spring.main.web-application-type=none",
                                "--spring.main.keep-alive=true",
                                "--logging.level.root=WARN"));
        copy.awaitPrefixed("started ", START);
        return copy;
    }

    @Test
    void twoCopiesHandleEveryEventInOrderAndAKilledOneResumesWithoutAGap() throws Exception {
        Path cxc = Files.createDirectory(dir.resolve("cxc"));
        Files.setPosixFilePermissions(cxc, PosixFilePermissions.fromString("rwx------"));
        ChildJvm a = copy(cxc, "copy-a");
        ChildJvm b = copy(cxc, "copy-b");
        try (EventStateLog<Long, Long> orders =
                EventStateLog.open(
                        cxc.resolve("orders.events"),
                        new EventStateLog.Settings<>(
                                1024, FixedCodec.INT64, FixedCodec.INT64, 0L))) {
            for (long i = 0; i < EVENTS / 2; i++) {
                orders.emit(1000 + i);
            }
            List<Long> seenByB = handled(b, 0, EVENTS / 2);
            b.kill();
            for (long i = EVENTS / 2; i < EVENTS; i++) {
                orders.emit(1000 + i);
            }
            assertThat(handled(a, 0, EVENTS)).hasSize(EVENTS);

            ChildJvm again = copy(cxc, "copy-b");
            long first = Long.parseLong(again.awaitPrefixed("handled ", START).split(" ")[0]);
            // At least once: the event in hand at the kill may come again, none is skipped.
            assertThat(first).isBetween((long) EVENTS / 2 - 1, (long) EVENTS / 2);
            if (first == EVENTS / 2) {
                seenByB.add(first);
            }
            seenByB.addAll(handled(again, first + 1, EVENTS));
            assertThat(seenByB).hasSize(EVENTS).isSorted().doesNotHaveDuplicates();
        }
    }

    /**
     * Awaits {@code handled <s> <1000 + s>} for every {@code s} from {@code from} to {@code to -
     * 1}, in that order, as the oldest such lines the copy printed.
     */
    private static List<Long> handled(ChildJvm copy, long from, long to) {
        List<Long> seen = new ArrayList<>();
        for (long s = from; s < to; s++) {
            String line = copy.awaitPrefixed("handled ", START);
            assertThat(line).as(copy.name()).isEqualTo(s + " " + (1000 + s));
            seen.add(s);
        }
        return seen;
    }
}
