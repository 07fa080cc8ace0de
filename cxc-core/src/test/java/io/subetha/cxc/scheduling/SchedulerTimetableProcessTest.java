package io.subetha.cxc.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The timetable across real JVMs: three worker JVMs polling one recurring job fire it exactly once
 * per due time over many periods; a firer SIGKILLed after it claimed a fire and before it
 * submitted, or after it submitted and before it re-armed, leaves the fire made exactly once; a
 * timetable written by a process that is gone fires in the next one; a firer stopped mid-fire holds
 * up no other entry, and its own until it dies (an unschedule of it times out naming it).
 */
class SchedulerTimetableProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final int CAPACITY = 256;

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    BackgroundScheduler<Long, Long> create(Path path) {
        return BackgroundScheduler.TYPE.create(
                path,
                new BackgroundScheduler.Settings<>(CAPACITY, FixedCodec.INT64, FixedCodec.INT64));
    }

    static TimetableEntry entry(BackgroundScheduler<?, ?> s, String name) {
        return SchedulerTimetableTest.entry(s, name);
    }

    /** A child JVM firing the timetable's due entries, parked for good at {@code point}. */
    ChildJvm firerParkedAt(Path path, Point point) {
        return parkedAt(path, point, "fire-at");
    }

    ChildJvm parkedAt(Path path, Point point, String mode, String... more) {
        List<String> args = new ArrayList<>(List.of(mode, path.toString(), "" + CAPACITY));
        args.add(point.name());
        args.addAll(List.of(more));
        ChildJvm child =
                children.add(
                        ChildJvm.start(mode, SchedulerChild.class, args.toArray(String[]::new)));
        child.awaitLine(("parked " + point)::equals, STEP);
        return child;
    }

    @Test
    void threeWorkerJvmsFireARecurringJobExactlyOncePerDueTime() {
        Path path = dir.resolve("jobs.cxc");
        try (BackgroundScheduler<Long, Long> s = create(path)) {
            s.schedule("beat", Recurrence.fixedRate(Duration.ofMillis(40)), 5L);
            List<ChildJvm> workers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ChildJvm worker =
                        children.add(
                                ChildJvm.start(
                                        "worker-" + i,
                                        SchedulerChild.class,
                                        "work",
                                        path.toString(),
                                        String.valueOf(CAPACITY),
                                        "0"));
                worker.awaitLine("working"::equals, STEP);
                workers.add(worker);
            }
            List<JobResult<Long>> results = new ArrayList<>();
            await().atMost(STEP)
                    .until(
                            () -> {
                                results.addAll(s.collector().take(CAPACITY));
                                return entry(s, "beat").fires() >= 30;
                            });
            for (ChildJvm worker : workers) {
                assertThat(worker.ask("stop")).startsWith("stopped ");
            }
            // Nobody polls now: the fire count stands; each fire is one job, run or still queued.
            long fires = entry(s, "beat").fires();
            results.addAll(s.collector().take(CAPACITY));
            assertThat(results).extracting(JobResult::result).containsOnly(36L);
            assertThat(results.size() + s.counts().queued()).isEqualTo(fires);
            assertThat(s.counts().running()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Point.class,
            names = {"TIMETABLE_FIRING", "TIMETABLE_SUBMITTED"})
    void aFirerKilledMidFireLeavesTheFireMadeExactlyOnce(Point killedAt) {
        Path path = dir.resolve("jobs.cxc");
        try (BackgroundScheduler<Long, Long> s = create(path)) {
            Instant due = Instant.ofEpochMilli(System.currentTimeMillis() - 1_000);
            s.schedule("daily", Recurrence.fixedRate(Duration.ofDays(1)), 8L, JobOptions.at(due));
            ChildJvm firer = firerParkedAt(path, killedAt);
            assertThat(entry(s, "daily").firing()).isTrue();
            firer.kill();
            firer.waitForExit(STEP);
            s.watchdogScan(); // judges the firer dead: its fire is repaired
            s.fireDue(); // fires it again only if it was not queued; re-arms it either way
            assertThat(s.fireDue()).isZero();
            assertThat(s.counts().queued()).isEqualTo(1);
            TimetableEntry daily = entry(s, "daily");
            assertThat(daily.firing()).isFalse();
            assertThat(daily.nextDue()).isEqualTo(due.plus(Duration.ofDays(1)));
            Job<Long> job = s.receive(ProcessHandle.current().pid()).orElseThrow();
            assertThat(job.payload()).isEqualTo(8L);
            assertThat(s.receive(ProcessHandle.current().pid())).isEmpty();
        }
    }

    @Test
    void aTimetableWrittenByAProcessThatIsGoneFiresInTheNext() {
        Path path = dir.resolve("jobs.cxc");
        Instant due = Instant.now().minusSeconds(1);
        try (BackgroundScheduler<Long, Long> s = create(path)) {
            s.schedule("nightly", Recurrence.fixedRate(Duration.ofDays(1)), 3L, JobOptions.at(due));
        }
        ChildJvm worker =
                children.add(
                        ChildJvm.start(
                                "worker",
                                SchedulerChild.class,
                                "hold",
                                path.toString(),
                                String.valueOf(CAPACITY)));
        assertThat(worker.awaitPrefixed("holding ", STEP)).isEqualTo("0 1");
    }

    @Test
    void aFirerStoppedMidFireHoldsUpNoOtherEntryAndItsOwnOnlyUntilItDies() {
        Path path = dir.resolve("jobs.cxc");
        try (BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                CAPACITY,
                                FixedCodec.INT64,
                                FixedCodec.INT64,
                                Duration.ofMillis(100)))) {
            Instant due = Instant.now().minusSeconds(1);
            s.schedule("stuck", Recurrence.fixedRate(Duration.ofDays(1)), 1L, JobOptions.at(due));
            ChildJvm firer = firerParkedAt(path, Point.TIMETABLE_FIRING);
            // Stopped mid-look: the next-due hint it took is lowered again by a scan.
            s.schedule("other", Recurrence.fixedRate(Duration.ofDays(1)), 2L, JobOptions.at(due));
            s.watchdogScan();
            assertThat(s.fireDue()).isEqualTo(1);
            Job<Long> other = s.receive(ProcessHandle.current().pid()).orElseThrow();
            assertThat(other.payload()).isEqualTo(2L);
            assertThat(s.complete(other, 3L)).isTrue(); // before the waits below outlast the grace
            assertThatThrownBy(() -> s.unschedule("stuck"))
                    .isInstanceOf(CxcTimeoutException.class)
                    .hasMessageContaining("is still being fired by PID " + firer.pid());
            firer.kill();
            firer.waitForExit(STEP);
            s.watchdogScan();
            assertThat(s.fireDue()).isEqualTo(1);
            assertThat(s.receive(ProcessHandle.current().pid()).orElseThrow().payload())
                    .isEqualTo(1L);
        }
    }

    @Test
    void aSchedulerKilledHoldingTheTimetableLockLeavesNoEntryAndNoLockHeld() {
        Path path = dir.resolve("jobs.cxc");
        try (BackgroundScheduler<Long, Long> s = create(path)) {
            ChildJvm scheduler =
                    parkedAt(path, Point.TIMETABLE_ENTRY_WRITTEN, "schedule-at", "half-written");
            scheduler.kill();
            scheduler.waitForExit(STEP);
            // The lock is the dead holder's until a scan, which the next schedule runs itself.
            assertThat(s.schedule("next", Recurrence.fixedRate(Duration.ofDays(1)), 2L)).isTrue();
            assertThat(s.timetable()).extracting(TimetableEntry::name).containsExactly("next");
            assertThat(s.schedule("half-written", Recurrence.fixedRate(Duration.ofDays(1)), 3L))
                    .isTrue();
            assertThat(s.timetable()).hasSize(2);
        }
    }
}
