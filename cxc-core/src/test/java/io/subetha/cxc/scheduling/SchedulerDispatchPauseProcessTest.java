package io.subetha.cxc.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pause across real JVMs: one JVM pauses the scheduler and is SIGKILLed; a worker asleep in a
 * third JVM keeps firing the timetable but receives nothing, the pause being the file's setting and
 * not its dead maker's; a resume here wakes that worker, which takes the oldest job first.
 */
class SchedulerDispatchPauseProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final int CAPACITY = 16;

    @TempDir Path dir;
    Path path;
    BackgroundScheduler<Long, Long> here;
    final ChildJvmGroup children = new ChildJvmGroup();

    @BeforeEach
    void create() {
        path = dir.resolve("jobs.cxc");
        here =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                CAPACITY, FixedCodec.INT64, FixedCodec.INT64));
    }

    @AfterEach
    void closeAll() {
        children.close();
        here.close();
    }

    ChildJvm child(String role) {
        return children.add(
                ChildJvm.start(
                        role,
                        SchedulerChild.class,
                        role,
                        path.toString(),
                        String.valueOf(CAPACITY)));
    }

    @Test
    void aPauseOutlivesItsKilledMakerAndAResumeElsewhereWakesTheWorkers() {
        ChildJvm worker = child("await").eventsAre(line -> line.startsWith("received"));
        worker.awaitLine("waiting"::equals, STEP);
        ChildJvm pauser = child("pause");
        assertThat(pauser.awaitPrefixed("paused ", STEP)).isEqualTo("true");
        pauser.kill(); // SIGKILL
        assertThat(pauser.waitForExit(STEP)).isTrue();

        here.submit(42L);
        here.schedule(
                "tick",
                Recurrence.fixedRate(Duration.ofMillis(100)),
                7L,
                JobOptions.at(Instant.now()));
        // Only the worker polls the timetable: its fires show it looks, and takes nothing.
        await().atMost(STEP).until(() -> here.timetable().get(0).fires() >= 3);
        BackgroundScheduler.Counts counts = here.counts();
        assertThat(counts.running() + counts.done()).as("dispatched while paused").isZero();
        assertThat(counts.queued()).isGreaterThanOrEqualTo(4);
        assertThat(here.dispatch().isPaused()).isTrue();

        assertThat(here.dispatch().resume()).isTrue();

        assertThat(worker.awaitPrefixed("received ", STEP)).isEqualTo("42");
        assertThat(worker.awaitPrefixed("received ", STEP)).isEqualTo("7");
    }
}
