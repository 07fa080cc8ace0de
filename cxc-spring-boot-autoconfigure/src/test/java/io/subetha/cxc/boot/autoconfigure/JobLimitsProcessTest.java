package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.JobEntry;
import io.subetha.cxc.scheduling.JobResult;
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
 * Two real Boot applications ({@link SchedulerWorkerApp}, two workers each) share a scheduler whose
 * jobs' type ({@code Long}) is limited to 1: while one app runs a job that hangs, a second job is
 * only handed back by both apps' free workers, never run; once the hanging app is SIGKILLed its
 * lease is free at once and the other app runs both, one after the other.
 */
class JobLimitsProcessTest {

    @TempDir Path dir;
    private final ChildJvmGroup children = new ChildJvmGroup();
    private final List<ChildJvm> apps = new ArrayList<>();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void aLimitOfOneHoldsAcrossProcessesAndADeadHoldersLeaseIsFreedAtOnce() throws Exception {
        try {
            run();
        } catch (AssertionError | RuntimeException e) {
            StringBuilder diagnostics = new StringBuilder();
            apps.forEach(app -> diagnostics.append(app.diagnostics()));
            throw new AssertionError(e.getMessage() + diagnostics, e);
        }
    }

    private void run() throws Exception {
        Path cxc = Files.createDirectory(dir.resolve("cxc"));
        Files.setPosixFilePermissions(cxc, PosixFilePermissions.fromString("rwx------"));
        Path hangFile = dir.resolve("hanging");
        for (int i = 0; i < 2; i++) {
            apps.add(
                    children.add(
                            SchedulerWorkerApp.start(
                                    "limited-app-" + i,
                                    hangFile,
                                    cxc,
                                    "--cxc.schedulers.jobs.capacity=16",
                                    "--cxc.schedulers.jobs.workers=2",
                                    "--cxc.schedulers.jobs.limits.Long=1")));
        }
        for (ChildJvm app : apps) {
            app.awaitPrefixed("started ", Duration.ofSeconds(90));
        }
        try (BackgroundScheduler<Long, Long> jobs =
                BackgroundScheduler.open(
                        cxc.resolve("jobs.scheduler"),
                        new BackgroundScheduler.Settings<>(
                                16, FixedCodec.INT64, FixedCodec.INT64))) {
            long hung = jobs.submit(-1L);
            ChildJvm holder = HangFile.awaitHolder(hangFile, apps);
            ChildJvm survivor = apps.get(0) == holder ? apps.get(1) : apps.get(0);
            long waiting = jobs.submit(5L);
            // Three free workers in two processes receive it in turn, and each hands it back.
            await().atMost(Duration.ofSeconds(60)).until(() -> attempt(jobs, waiting) >= 4);
            // Never run (it would have answered at once): each worker that received it handed it
            // back. (It may show RUNNING for the instant between a receive and its hand-back.)
            assertThat(jobs.collector().result(waiting)).isEmpty();

            holder.kill();
            List<JobResult<Long>> results = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60))
                    .until(
                            () -> {
                                results.addAll(jobs.collector().take(16));
                                return results.size() == 2;
                            });
            assertThat(results).extracting(JobResult::result).containsOnly(survivor.pid());
            assertThat(results)
                    .extracting(JobResult::jobId)
                    .containsExactlyInAnyOrder(hung, waiting);
        }
    }

    private static long attempt(BackgroundScheduler<Long, Long> jobs, long id) {
        return jobs.jobs().stream()
                .filter(job -> job.id() == id)
                .mapToLong(JobEntry::attempt)
                .findFirst()
                .orElse(0);
    }
}
