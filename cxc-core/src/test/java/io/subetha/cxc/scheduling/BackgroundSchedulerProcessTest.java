package io.subetha.cxc.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler across real JVMs: jobs submitted here run in worker JVMs and are collected here; a
 * SIGKILLed worker's job is re-run elsewhere; a submitter SIGSTOPped between its two CASes holds up
 * no dispatch past the grace, and its job, submitted again once it resumes, is delivered once; and
 * the chaos run: 3 worker JVMs, 5,000 jobs ({@code -Dcxc.scheduler.jobs}), workers SIGKILLed and
 * SIGSTOPped mid-job at random, every job's result recorded exactly once; and a job that fails in
 * one JVM is retried in another, not before its backoff, and a failed job's failure is read by the
 * JVM that submitted it.
 */
class BackgroundSchedulerProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final int JOBS = Integer.getInteger("cxc.scheduler.jobs", 5_000);
    static final int CHAOS = Integer.getInteger("cxc.scheduler.chaos", 4);
    static final long PID = ProcessHandle.current().pid();

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void aSigkilledWorkersJobIsRunElsewhereAsTheNextAttempt() {
        Path path = dir.resolve("jobs.cxc");
        try (BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                16, FixedCodec.INT64, FixedCodec.INT64))) {
            long id = s.submit(6L);
            ChildJvm holder =
                    children.add(
                            ChildJvm.start(
                                    "holder", SchedulerChild.class, "hold", path.toString(), "16"));
            assertThat(holder.awaitPrefixed("holding ", STEP)).isEqualTo(id + " 1");
            holder.kill();
            holder.waitForExit(STEP);
            ReclaimReport report = s.watchdogScan();
            assertThat(report.requeuedJobIds()).containsExactly(id);
            assertThat(report.deadParticipants()).isEqualTo(1);
            Job<Long> again = s.receive(PID).orElseThrow();
            assertThat(again.id()).isEqualTo(id);
            assertThat(again.attempt()).isEqualTo(2);
            assertThat(s.complete(again, 43L)).isTrue();
            assertThat(s.collector().take(4)).extracting(JobResult::result).containsExactly(43L);
        }
    }

    @Test
    void aJobFailedInOneJvmIsRetriedInAnotherNotBeforeItsBackoff() {
        Path path = dir.resolve("jobs.cxc");
        Duration backoff = Duration.ofMillis(300);
        try (BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                16, FixedCodec.INT64, FixedCodec.INT64))) {
            // The failing one first: the child then meets no retry of the other before its second.
            long failed = s.submit(7L, JobOptions.DEFAULT.withRetry(RetryPolicy.NONE));
            long retried =
                    s.submit(6L, JobOptions.DEFAULT.withRetry(RetryPolicy.fixed(3, backoff)));
            ChildJvm worker =
                    children.add(
                            ChildJvm.start(
                                    "worker",
                                    SchedulerChild.class,
                                    "fail",
                                    path.toString(),
                                    "16",
                                    "2"));
            String[] first = worker.awaitPrefixed("failed ", STEP).split(" ");
            String[] second = worker.awaitPrefixed("failed ", STEP).split(" ");
            assertThat(first).startsWith(String.valueOf(failed), "1", "FAILED");
            assertThat(second).startsWith(String.valueOf(retried), "1", "RETRYING");

            Job<Long>[] again = receiveUntilDue(s);
            long receivedAt = System.nanoTime();
            assertThat(again[0].id()).isEqualTo(retried);
            assertThat(again[0].attempt()).isEqualTo(2);
            // CLOCK_MONOTONIC is the host's: the child's clock reading is comparable with ours.
            assertThat(receivedAt - Long.parseLong(second[3]))
                    .isGreaterThanOrEqualTo(backoff.toNanos());
            assertThat(s.complete(again[0], 43L)).isTrue();

            assertThat(s.jobs())
                    .filteredOn(job -> job.state() == JobEntry.State.FAILED)
                    .containsExactly(
                            new JobEntry(
                                    failed,
                                    JobEntry.State.FAILED,
                                    0,
                                    1,
                                    new JobFailure(
                                            IllegalStateException.class.getName(), "job 7 broke")));
        }
    }

    @SuppressWarnings("unchecked")
    private static Job<Long>[] receiveUntilDue(BackgroundScheduler<Long, Long> s) {
        Job<Long>[] received = new Job[1];
        await().atMost(STEP)
                .pollInterval(Duration.ofMillis(5))
                .until(() -> (received[0] = s.receive(PID).orElse(null)) != null);
        return received;
    }

    @Test
    void aSubmitterStoppedBetweenItsTwoCasesHoldsUpNoDispatchAndItsJobIsDeliveredOnce() {
        Path path = dir.resolve("jobs.cxc");
        try (BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                16,
                                FixedCodec.INT64,
                                FixedCodec.INT64,
                                // Long enough that this process's own pauses between receives
                                // (a loaded machine) never make its running jobs look silent.
                                Duration.ofSeconds(1)),
                        CxcFileOptions.defaults())) {
            ChildJvm writer =
                    children.add(
                            ChildJvm.start(
                                    "writer",
                                    SchedulerChild.class,
                                    "submit-held",
                                    path.toString(),
                                    "16",
                                    "99"));
            try {
                writer.awaitPrefixed("writing", STEP); // job 0's slot WRITING, the head
                writer.suspend();
                for (long j = 0; j < 10; j++) {
                    s.submit(100 + j);
                }
                List<Long> received = new ArrayList<>();
                await().atMost(STEP)
                        .pollInterval(Duration.ofMillis(5))
                        .until(() -> receiveInto(s, received) && received.size() == 10);
                assertThat(received)
                        .containsExactly(
                                100L, 101L, 102L, 103L, 104L, 105L, 106L, 107L, 108L, 109L);

                writer.resume();
                writer.send("go");
                long lateId = Long.parseLong(writer.awaitPrefixed("submitted ", STEP));
                // The stepped-over slot was never queued: its submit went again under a new id.
                await().atMost(STEP)
                        .pollInterval(Duration.ofMillis(5))
                        .until(() -> receiveInto(s, received) && received.size() == 11);
                assertThat(received.get(10)).isEqualTo(99L);
                assertThat(lateId).isGreaterThan(10);
                assertThat(s.receive(PID)).isEmpty();
                assertThat(s.counts().running()).isEqualTo(11);
            } finally {
                writer.kill();
            }
        }
    }

    /** Receives one job if one is queued, adds its payload; true to let a wait re-check. */
    private static boolean receiveInto(BackgroundScheduler<Long, Long> s, List<Long> received) {
        s.receive(PID).ifPresent(job -> received.add(job.payload()));
        return true;
    }

    @Test
    void threeWorkerJvmsKilledAndStoppedAtRandomRecordEveryResultExactlyOnce() {
        Path path = dir.resolve("jobs.cxc");
        int capacity = 512;
        BackgroundScheduler.Settings<Long, Long> settings =
                new BackgroundScheduler.Settings<>(
                        capacity, FixedCodec.INT64, FixedCodec.INT64, Duration.ofMillis(300));
        Random random = new Random(Long.getLong("cxc.scheduler.seed", System.nanoTime()));
        try (BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(path, settings, CxcFileOptions.defaults())) {
            List<ChildJvm> workers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                workers.add(worker(path, capacity, "worker-" + w));
            }
            Map<Long, Long> jobOf = new HashMap<>();
            Map<Long, Long> results = new HashMap<>();
            int duplicates = 0;
            long next = 0;
            int kills = 0;
            int stops = 0;
            ChildJvm stopped = null;
            long resumeAt = 0;
            long nextChaos = System.nanoTime() + Duration.ofMillis(20).toNanos();
            long deadline = System.nanoTime() + STEP.toNanos() * 2;
            while (results.size() < JOBS) {
                assertThat(System.nanoTime()).as("all results within 120 s").isLessThan(deadline);
                // Jobs are released in CHAOS + 1 batches, the next one only after the next
                // chaos event: every event lands while jobs remain, however fast the machine.
                long released = (long) JOBS * (kills + stops + 1) / (CHAOS + 1);
                while (next < released) {
                    long id = s.trySubmit(next);
                    if (id < 0) {
                        break;
                    }
                    jobOf.put(id, next++);
                }
                for (JobResult<Long> r : s.collector().take(capacity)) {
                    if (results.put(r.jobId(), r.result()) != null) {
                        duplicates++;
                    }
                }
                long now = System.nanoTime();
                if (stopped != null && now > resumeAt) {
                    stopped.resume();
                    stopped = null;
                }
                if (kills + stops < CHAOS && now > nextChaos && stopped == null) {
                    int victim = random.nextInt(workers.size());
                    if (random.nextBoolean()) {
                        workers.get(victim).kill();
                        workers.set(victim, worker(path, capacity, "worker-r" + kills));
                        kills++;
                    } else {
                        stopped = workers.get(victim);
                        stopped.suspend(); // past the grace: its job runs elsewhere
                        resumeAt = now + Duration.ofMillis(600).toNanos();
                        stops++;
                    }
                    // Soon after the next batch is released: mid-job, for some worker.
                    nextChaos = now + Duration.ofMillis(5 + random.nextInt(25)).toNanos();
                }
                LockSupport.parkNanos(200_000);
            }
            if (stopped != null) {
                stopped.resume();
            }
            assertThat(duplicates).isZero();
            assertThat(results).hasSize(JOBS);
            results.forEach(
                    (id, result) ->
                            assertThat(result).isEqualTo(SchedulerChild.resultOf(jobOf.get(id))));
            assertThat(kills + stops).isEqualTo(CHAOS);
            for (ChildJvm w : workers) {
                w.send("stop");
                w.awaitPrefixed("stopped", STEP);
            }
            assertThat(s.collector().take(capacity)).as("no result recorded twice").isEmpty();
        }
    }

    private ChildJvm worker(Path path, int capacity, String name) {
        ChildJvm child =
                children.add(
                        ChildJvm.start(
                                name,
                                SchedulerChild.class,
                                "work",
                                path.toString(),
                                "" + capacity,
                                "100"));
        child.awaitPrefixed("working", STEP);
        return child;
    }
}
