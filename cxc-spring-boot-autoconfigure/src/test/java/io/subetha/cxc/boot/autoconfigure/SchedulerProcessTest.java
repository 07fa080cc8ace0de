package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.scheduling.SchedulerHistory;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.JobResult;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real Boot applications run the jobs of one declared scheduler ({@code cxc.schedulers.jobs}
 * and a {@code JobHandler} bean, {@link SchedulerWorkerApp}); the one running a job is SIGKILLed
 * mid-job, and the job's result is recorded, once, by the other, on its second attempt.
 */
class SchedulerProcessTest {

    /** Jobs streamed through the two apps before the kill, for a throughput figure. */
    private static final int STREAM_JOBS = Integer.getInteger("cxc.scheduler.boot-jobs", 5_000);

    @TempDir Path dir;
    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void aWorkerKilledMidJobHasItsJobCompletedByTheOtherApp() throws Exception {
        try {
            run();
        } catch (AssertionError | RuntimeException e) {
            StringBuilder children = new StringBuilder();
            apps.forEach(app -> children.append(app.diagnostics()));
            throw new AssertionError(e.getMessage() + children, e);
        }
    }

    private final List<ChildJvm> apps = new ArrayList<>();

    private void run() throws Exception {
        Path cxc = Files.createDirectory(dir.resolve("cxc"));
        Files.setPosixFilePermissions(cxc, PosixFilePermissions.fromString("rwx------"));
        Path hangFile = dir.resolve("hanging");
        for (int i = 0; i < 2; i++) {
            apps.add(
                    children.add(
                            SchedulerWorkerApp.start(
                                    "scheduler-app-" + i,
                                    hangFile,
                                    cxc,
                                    "--cxc.schedulers.jobs.capacity=1024",
                                    "--cxc.schedulers.jobs.workers=1")));
        }
        for (ChildJvm app : apps) {
            app.awaitPrefixed("started ", Duration.ofSeconds(90));
        }
        try (BackgroundScheduler<Long, Long> jobs =
                BackgroundScheduler.open(
                        cxc.resolve("jobs.scheduler"),
                        new BackgroundScheduler.Settings<>(
                                1024, FixedCodec.INT64, FixedCodec.INT64))) {
            for (long i = 1; i <= 8; i++) {
                jobs.submit(i);
            }
            Map<Long, JobResult<Long>> results = new HashMap<>();
            collect(jobs, results, 8);
            assertThat(results.values())
                    .extracting(JobResult::result)
                    .allMatch(pid -> pid == apps.get(0).pid() || pid == apps.get(1).pid());
            // The apps' runs are in the history file, which this process reads too.
            try (SchedulerHistory history =
                    SchedulerHistory.open("jobs", cxc.resolve("jobs.scheduler"), 100)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> history.last(100).size() == 8);
                assertThat(history.last(100))
                        .allSatisfy(
                                run -> {
                                    assertThat(results.get(run.jobId()).result())
                                            .isEqualTo(run.pid());
                                    assertThat(run.outcome()).isEqualTo("succeeded");
                                    assertThat(run.type()).isEqualTo("Long");
                                });
            }

            // A stream of jobs through both apps' pools (one worker thread each): a figure.
            long started = System.nanoTime();
            int submitted = 0;
            int streamed = 0;
            while (streamed < STREAM_JOBS) {
                while (submitted < STREAM_JOBS && jobs.trySubmit((long) submitted) >= 0) {
                    submitted++;
                }
                for (JobResult<Long> r : jobs.collector().take(1024)) {
                    assertThat(results.put(r.jobId(), r)).as("job %d", r.jobId()).isNull();
                    streamed++;
                }
                assertThat(System.nanoTime() - started).isLessThan(120_000_000_000L);
            }
            double perSecond = STREAM_JOBS * 1e9 / (System.nanoTime() - started);

            long hung = jobs.submit(-1L);
            ChildJvm holder = HangFile.awaitHolder(hangFile, apps);
            ChildJvm survivor = apps.get(0) == holder ? apps.get(1) : apps.get(0);
            holder.kill();
            long killedAt = System.nanoTime();
            collect(jobs, results, 9 + STREAM_JOBS);
            long recoveryMillis = (System.nanoTime() - killedAt) / 1_000_000;
            JobResult<Long> recovered = results.get(hung);
            assertThat(recovered.result()).isEqualTo(survivor.pid());
            assertThat(recovered.attempt()).isEqualTo(2);
            assertThat(jobs.counts().running()).isZero();
            assertThat(jobs.counts().reclaimed()).isEqualTo(1);
            assertThat(survivor.isAlive()).isTrue();
            System.out.printf(
                    "scheduler (Boot): the SIGKILLed worker's job completed in the other app"
                            + " %d ms after the kill (attempt %d); %d jobs streamed through the two"
                            + " pools at %.0f jobs/s%n",
                    recoveryMillis, recovered.attempt(), STREAM_JOBS, perSecond);
        }
    }

    /** Polls until {@code count} results in all, each recorded once. */
    private static void collect(
            BackgroundScheduler<Long, Long> jobs, Map<Long, JobResult<Long>> results, int count) {
        await().pollInterval(Duration.ofMillis(5))
                .atMost(Duration.ofSeconds(60))
                .until(
                        () -> {
                            for (JobResult<Long> r : jobs.collector().take(1024)) {
                                assertThat(results.put(r.jobId(), r))
                                        .as("job %d", r.jobId())
                                        .isNull();
                            }
                            return results.size() >= count;
                        });
        assertThat(results).hasSize(count);
    }
}
