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
 * The scheduler's doorbell across real JVMs: a worker asleep in another JVM's receive is woken by a
 * submit here, and wakes by itself for a delayed job falling due that nobody else fires; a worker
 * SIGKILLed while announced leaves nothing that hangs a submit or the next worker; a pause made by
 * a JVM SIGKILLed since holds a sleeper's dispatch (it still fires the timetable), and a resume
 * here wakes it.
 */
class SchedulerDoorbellProcessTest {

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

    int sleepingWorkers() {
        return (Integer) here.describe().get("sleepingWorkers");
    }

    /** A worker JVM asleep in its receive: announced on the doorbell. */
    ChildJvm sleepingWorker(String name, int sleepersThen) {
        ChildJvm worker =
                children.add(
                        ChildJvm.start(
                                        name,
                                        SchedulerChild.class,
                                        "await",
                                        path.toString(),
                                        String.valueOf(CAPACITY))
                                .eventsAre(line -> line.startsWith("received")));
        worker.awaitLine("waiting"::equals, STEP);
        await().atMost(STEP).until(() -> sleepingWorkers() == sleepersThen);
        return worker;
    }

    @Test
    void aWorkerAsleepInAnotherJvmIsWokenByASubmit() {
        ChildJvm worker = sleepingWorker("worker", 1);

        here.submit(42L);

        assertThat(worker.awaitPrefixed("received ", STEP)).isEqualTo("42");
        assertThat(here.collector().take(1))
                .extracting(JobResult::result)
                .containsExactly(SchedulerChild.resultOf(42));
        await().atMost(STEP).until(() -> sleepingWorkers() == 1); // asleep again
    }

    @Test
    void aWorkerAsleepInAnotherJvmWakesForADelayedJobFallingDue() {
        ChildJvm worker = sleepingWorker("worker", 1);

        // Nobody here polls the timetable: the sleeper fires the job itself once it is due.
        long id = here.submit(9L, JobOptions.at(Instant.now().plusMillis(300)));

        assertThat(id).isEqualTo(BackgroundScheduler.DELAYED);
        assertThat(worker.awaitPrefixed("received ", STEP)).isEqualTo("9");
        assertThat(here.timetable()).isEmpty();
    }

    @Test
    void aWorkerKilledWhileAsleepLeavesNoHang() {
        // A sleeper wakes now and then by itself (its scan): killed then, it was not announced.
        for (int tries = 0; tries < 10 && sleepingWorkers() == 0; tries++) {
            sleepingWorker("killed-" + tries, 1).kill();
        }
        assertThat(sleepingWorkers())
                .as("the dead one's announcement, until a ring takes it")
                .isOne();
        ChildJvm next = sleepingWorker("next", 2);

        here.submit(5L); // takes both announcements: the dead one's ring is dropped

        assertThat(next.awaitPrefixed("received ", STEP)).isEqualTo("5");
        here.submit(6L);
        assertThat(next.awaitPrefixed("received ", STEP)).isEqualTo("6");
    }

    @Test
    void aPauseOutlivesItsKilledMakerAndAResumeElsewhereWakesTheWorkers() {
        ChildJvm worker = sleepingWorker("worker", 1);
        ChildJvm pauser =
                children.add(
                        ChildJvm.start(
                                "pauser",
                                SchedulerChild.class,
                                "pause",
                                path.toString(),
                                String.valueOf(CAPACITY)));
        assertThat(pauser.awaitPrefixed("paused ", STEP)).isEqualTo("true");
        pauser.kill(); // SIGKILL: the pause is the file's setting, not its maker's
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

        assertThat(here.dispatch().resume()).isTrue(); // rings the sleeper

        assertThat(worker.awaitPrefixed("received ", STEP)).isEqualTo("42");
        assertThat(worker.awaitPrefixed("received ", STEP)).isEqualTo("7");
    }
}
