package io.subetha.cxc.boot.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.JobHandler;
import io.subetha.cxc.boot.SchedulerCodecs;
import io.subetha.cxc.boot.autoconfigure.LogLines;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobEntry;
import io.subetha.cxc.scheduling.JobFailure;
import io.subetha.cxc.scheduling.JobResult;
import io.subetha.cxc.scheduling.RetryPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The starter's scheduler side without a context: which codecs bean a scheduler file takes (and
 * what startup says otherwise), who runs a pool, what a pool counts (completed, failed, fenced,
 * held) and logs, the watchdog scan on each tick, and shutdown inside and past the timeout. Real
 * scheduler files in a temp directory; the test drives start, tick and stop.
 */
class SchedulerWorkersTest {

    private static final long ME = ProcessHandle.current().pid();
    private static final FixedCodec<Long> INT64 = FixedCodec.INT64;

    @TempDir Path temp;

    private final List<BackgroundScheduler<?, ?>> opened = new ArrayList<>();
    private final List<SchedulerWorkers> started = new ArrayList<>();
    private LogLines log;

    /** What a test's handler does with a job. */
    interface Body {
        Long handle(Job<Long> job) throws Exception;
    }

    /** The handler of scheduler "jobs": the test's body; keeps the failures of FAILED jobs. */
    static class Handler implements JobHandler<Long, Long> {
        final Body body;
        final List<Exception> failures = new CopyOnWriteArrayList<>();

        Handler(Body body) {
            this.body = body;
        }

        @Override
        public String scheduler() {
            return "jobs";
        }

        @Override
        public FixedCodec<Long> jobCodec() {
            return INT64;
        }

        @Override
        public FixedCodec<Long> resultCodec() {
            return INT64;
        }

        @Override
        public Long handle(Job<Long> job) throws Exception {
            return body.handle(job);
        }

        @Override
        public void onFailed(Job<Long> job, Exception failure) {
            failures.add(failure);
        }
    }

    /** A failure whose message cannot be read, so it cannot be recorded either. */
    static final class Unspeakable extends IllegalStateException {
        @Override
        public String getMessage() {
            throw new IllegalArgumentException("nor this");
        }
    }

    /** Two attempts 10 ms apart: the tests' jobs fail fast. */
    static final RetryPolicy TWICE = RetryPolicy.fixed(2, Duration.ofMillis(10));

    @BeforeEach
    void logs() {
        log = LogLines.of(SchedulerWorkers.class);
    }

    @AfterEach
    void close() {
        started.forEach(SchedulerWorkers::stop);
        opened.forEach(BackgroundScheduler::close);
        log.close();
    }

    @SuppressWarnings("unchecked")
    private BackgroundScheduler<Long, Long> open(
            Duration grace, List<SchedulerCodecs<?, ?>> codecs) {
        BackgroundScheduler<?, ?> scheduler =
                SchedulerWorkers.open(
                        temp.resolve("jobs.scheduler"),
                        new BackgroundScheduler.Settings<>(16, INT64, INT64, grace)
                                .withRetry(TWICE),
                        CxcFileOptions.defaults(),
                        codecs);
        opened.add(scheduler);
        return (BackgroundScheduler<Long, Long>) scheduler;
    }

    private SchedulerWorkers workers(
            BackgroundScheduler<Long, Long> jobs,
            int workers,
            Duration timeout,
            List<SchedulerCodecs<?, ?>> codecs) {
        SchedulerWorkers made =
                new SchedulerWorkers(
                        Map.of("jobs", jobs),
                        Map.of("jobs", new WorkerPoolSettings(workers, timeout)),
                        codecs);
        started.add(made);
        return made;
    }

    private static long poolThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("cxc-scheduler-jobs-") && t.isAlive())
                .count();
    }

    private static List<JobResult<Long>> results(BackgroundScheduler<Long, Long> jobs, int n) {
        List<JobResult<Long>> results = new CopyOnWriteArrayList<>();
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> {
                            results.addAll(jobs.collector().take(16));
                            return results.size() >= n;
                        });
        return results;
    }

    @Test
    void aFileIsOpenedWithTheCodecsOfTheBeanNamingItsScheduler() {
        List<SchedulerCodecs<?, ?>> codecs =
                List.of(
                        SchedulerCodecs.of("reports", FixedCodec.bytes(8), INT64),
                        SchedulerCodecs.of("jobs", INT64, INT64));
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), codecs);
        assertThat(jobs.capacity()).isEqualTo(16);
        assertThat(jobs.grace()).isEqualTo(Duration.ofSeconds(2));
        jobs.submit(21L);
        assertThat(jobs.receive(ME))
                .hasValueSatisfying(j -> assertThat(j.payload()).isEqualTo(21L));
    }

    @Test
    void codecsTooWideForTheFileAreRefusedNamingTheBeanAndTheLimit() {
        SchedulerCodecs<byte[], Long> wide =
                SchedulerCodecs.of("jobs", FixedCodec.bytes(16 * 1024 + 1), INT64);
        assertThatThrownBy(() -> open(Duration.ofSeconds(2), List.of(wide)))
                .isInstanceOfSatisfying(
                        InvalidCxcPropertyException.class,
                        e -> {
                            assertThat(e.property()).isEqualTo("cxc.schedulers.jobs");
                            assertThat(e.value()).isEqualTo("jobs");
                            assertThat(e.reason())
                                    .startsWith(
                                            "the jobCodec of bean SchedulerCodecs[jobs] is refused: ");
                            assertThat(e.action()).isEqualTo("Give codecs of at most 16384 bytes.");
                        });
    }

    @Test
    void aSchedulerNoBeanNamesOrTwoBeansNameFailsNamingWhatIsThere() {
        assertThatThrownBy(() -> SchedulerWorkers.codecsFor("jobs", List.of()))
                .isInstanceOfSatisfying(
                        InvalidCxcPropertyException.class,
                        e -> {
                            assertThat(e.property()).isEqualTo("cxc.schedulers.jobs");
                            assertThat(e.reason())
                                    .isEqualTo(
                                            "no JobHandler or SchedulerCodecs bean names scheduler"
                                                    + " 'jobs', and its file needs the job and"
                                                    + " result codecs");
                            assertThat(e.action())
                                    .contains("SchedulerCodecs.of(\"jobs\", jobCodec, resultCodec)")
                                    .endsWith("or remove cxc.schedulers.jobs.*.");
                        });
        assertThatThrownBy(
                        () ->
                                SchedulerWorkers.codecsFor(
                                        "jobs",
                                        List.of(SchedulerCodecs.of("reports", INT64, INT64))))
                .isInstanceOfSatisfying(
                        InvalidCxcPropertyException.class,
                        e ->
                                assertThat(e.reason())
                                        .endsWith(
                                                "needs the job and result codecs (the beans there"
                                                        + " name [reports])"));
        SchedulerCodecs<Long, Long> one = SchedulerCodecs.of("jobs", INT64, INT64);
        assertThatThrownBy(() -> SchedulerWorkers.codecsFor("jobs", List.of(one, one)))
                .isInstanceOfSatisfying(
                        InvalidCxcPropertyException.class,
                        e -> {
                            assertThat(e.reason())
                                    .isEqualTo(
                                            "2 beans name scheduler 'jobs': [SchedulerCodecs[jobs],"
                                                    + " SchedulerCodecs[jobs]]");
                            assertThat(e.action())
                                    .isEqualTo(
                                            "Keep one JobHandler (or SchedulerCodecs) bean per"
                                                    + " scheduler.");
                        });
        assertThat(SchedulerWorkers.codecsFor("jobs", List.of(one))).isSameAs(one);
    }

    @Test
    void onlyAHandlerWithWorkersMakesAPoolAndWorkersWithoutOneAreSaidToRunNothing() {
        BackgroundScheduler<Long, Long> jobs =
                open(Duration.ofSeconds(2), List.of(SchedulerCodecs.of("jobs", INT64, INT64)));
        assertThat(
                        workers(
                                        jobs,
                                        2,
                                        Duration.ofSeconds(1),
                                        List.of(SchedulerCodecs.of("jobs", INT64, INT64)))
                                .counts())
                .isEmpty();
        assertThat(log.lines())
                .containsExactly(
                        "INFO cxc scheduler jobs: no JobHandler bean names it, so this process runs"
                                + " none of its jobs (it may submit and collect)");
        assertThat(
                        workers(
                                        jobs,
                                        0,
                                        Duration.ofSeconds(1),
                                        List.of(SchedulerCodecs.of("jobs", INT64, INT64)))
                                .counts())
                .isEmpty();
        assertThat(
                        workers(
                                        jobs,
                                        0,
                                        Duration.ofSeconds(1),
                                        List.of(new Handler(j -> j.payload())))
                                .counts())
                .isEmpty();
        assertThat(log.lines()).hasSize(1);
    }

    @Test
    void aPoolRunsItsJobsCountsThemAndAStartAgainAddsNoThreads() {
        Handler doubler = new Handler(j -> j.payload() * 2);
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), List.of(doubler));
        SchedulerWorkers workers = workers(jobs, 2, Duration.ofSeconds(30), List.of(doubler));
        assertThat(workers.toString()).isEqualTo("SchedulerWorkers[jobs]");
        assertThat(workers.isRunning()).isFalse();
        workers.start();
        workers.start();
        assertThat(workers.isRunning()).isTrue();
        assertThat(poolThreads()).isEqualTo(2);
        for (long i = 1; i <= 5; i++) {
            jobs.submit(i);
        }
        assertThat(results(jobs, 5))
                .extracting(JobResult::result)
                .containsExactlyInAnyOrder(2L, 4L, 6L, 8L, 10L);
        assertThat(workers.counts())
                .containsOnlyKeys("jobs")
                .extractingByKey("jobs")
                .isEqualTo(
                        Map.of(
                                "workers",
                                2L,
                                "completed",
                                5L,
                                "failed",
                                0L,
                                "retried",
                                0L,
                                "fenced",
                                0L,
                                "held",
                                0L));
        assertThat(workers.isStopping()).isFalse();
        workers.stop();
        assertThat(workers.isStopping()).isTrue();
        assertThat(workers.isRunning()).isFalse();
        assertThat(poolThreads()).isZero(); // each ended within the timeout
        assertThat(log.lines()).isEmpty();
    }

    @Test
    void anIdlePoolSleepsOnTheDoorbellUntilASubmitOfAnotherHandleWakesIt() {
        Handler doubler = new Handler(j -> j.payload() * 2);
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), List.of(doubler));
        SchedulerWorkers workers = workers(jobs, 2, Duration.ofSeconds(30), List.of(doubler));
        workers.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> sleepingWorkers(jobs) == 2);
        try (BackgroundScheduler<Long, Long> elsewhere =
                BackgroundScheduler.open(
                        temp.resolve("jobs.scheduler"),
                        new BackgroundScheduler.Settings<>(16, INT64, INT64))) {
            elsewhere.submit(21L);
        }
        assertThat(results(jobs, 1)).extracting(JobResult::result).containsExactly(42L);
        workers.stop(); // wakes the sleepers to see it
        assertThat(poolThreads()).isZero();
        assertThat(sleepingWorkers(jobs)).isZero();
    }

    private static int sleepingWorkers(BackgroundScheduler<?, ?> jobs) {
        return (Integer) jobs.describe().get("sleepingWorkers");
    }

    @Test
    void aPoolStartedFromADaemonThreadStillRunsNonDaemonWorkersAndARestartMakesNoExtraOnes()
            throws Exception {
        Handler doubler = new Handler(j -> j.payload() * 2);
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), List.of(doubler));
        SchedulerWorkers workers = workers(jobs, 2, Duration.ofSeconds(30), List.of(doubler));
        Thread starter = new Thread(workers::start, "daemon-starter");
        starter.setDaemon(true);
        starter.start();
        starter.join(30_000);
        List<Thread> pool =
                Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().startsWith("cxc-scheduler-jobs-") && t.isAlive())
                        .toList();
        assertThat(pool).hasSize(2).noneMatch(Thread::isDaemon); // it keeps the JVM up
        workers.stop();
        workers.start();
        assertThat(workers.counts().get("jobs")).containsEntry("workers", 2L);
        assertThat(poolThreads()).isEqualTo(2);
        jobs.submit(4L);
        assertThat(results(jobs, 1)).extracting(JobResult::result).containsExactly(8L);
    }

    @Test
    void aJobThatWrapsItsShutdownInterruptKeepingTheFlagIsNotCountedAsFailed() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        Handler handler =
                new Handler(
                        j -> {
                            running.countDown();
                            try {
                                new CountDownLatch(1).await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                throw new IllegalStateException("cancelled", e);
                            }
                            return j.payload();
                        });
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), List.of(handler));
        SchedulerWorkers workers = workers(jobs, 1, Duration.ZERO, List.of(handler));
        workers.start();
        jobs.submit(6L);
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        workers.stop();
        await().atMost(Duration.ofSeconds(30)).until(() -> poolThreads() == 0);
        assertThat(log.lines())
                .last()
                .asString()
                .endsWith(
                        " interrupted by shutdown; it goes back to the queue as the scheduler"
                                + " closes");
        assertThat(workers.counts().get("jobs"))
                .containsEntry("failed", 0L)
                .containsEntry("held", 0L);
        assertThat(handler.failures).isEmpty();
    }

    @Test
    void aFailureWhoseMessageThrowsIsStillRecordedAndLogged() {
        Handler hopeless =
                new Handler(
                        j -> {
                            throw new Unspeakable();
                        });
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), List.of(hopeless));
        SchedulerWorkers workers = workers(jobs, 1, Duration.ofSeconds(30), List.of(hopeless));
        workers.start();
        jobs.submit(9L);
        await().atMost(Duration.ofSeconds(30)).until(() -> hopeless.failures.size() == 1);
        assertThat(jobs.jobs().get(0).failure().exceptionClass())
                .isEqualTo(Unspeakable.class.getName());
        assertThat(log.lines())
                .singleElement()
                .asString()
                .contains(" FAILED, its attempts spent (class " + Unspeakable.class.getName());
    }

    @Test
    void aThrowingHandlerIsRetriedByThePolicyThenTheJobIsFailedAndOnFailedTold() {
        Handler hopeless =
                new Handler(
                        j -> {
                            throw new IllegalStateException("no " + j.attempt());
                        });
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), List.of(hopeless));
        SchedulerWorkers workers = workers(jobs, 1, Duration.ofSeconds(30), List.of(hopeless));
        workers.start();
        long id = jobs.submit(9L);
        await().atMost(Duration.ofSeconds(30)).until(() -> jobs.counts().failed() == 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> hopeless.failures.size() == 1);
        assertThat(workers.counts().get("jobs"))
                .containsEntry("retried", 1L)
                .containsEntry("failed", 1L)
                .containsEntry("completed", 0L);
        JobEntry failed = jobs.jobs().get(0);
        assertThat(failed.id()).isEqualTo(id);
        assertThat(failed.attempt()).isEqualTo(2);
        assertThat(failed.failure())
                .isEqualTo(new JobFailure(IllegalStateException.class.getName(), "no 2"));
        assertThat(hopeless.failures)
                .singleElement()
                .extracting(Exception::getMessage)
                .isEqualTo("no 2");
    }

    @Test
    void aStopInterruptedWhileItWaitsForTheJobsKeepsTheInterruptAndInterruptsThem()
            throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        Handler handler =
                new Handler(
                        j -> {
                            running.countDown();
                            try {
                                new CountDownLatch(1).await();
                            } catch (InterruptedException e) {
                                interrupted.countDown();
                                throw e;
                            }
                            return j.payload();
                        });
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), List.of(handler));
        SchedulerWorkers workers = workers(jobs, 1, Duration.ofSeconds(60), List.of(handler));
        workers.start();
        jobs.submit(6L);
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        AtomicBoolean kept = new AtomicBoolean();
        Thread stopper =
                new Thread(
                        () -> {
                            workers.stop();
                            kept.set(Thread.currentThread().isInterrupted());
                        });
        stopper.start();
        await().atMost(Duration.ofSeconds(30)).until(workers::isStopping);
        stopper.interrupt();
        stopper.join(30_000);
        assertThat(stopper.isAlive()).isFalse(); // not the 60 s
        assertThat(kept).isTrue();
        assertThat(interrupted.await(30, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> poolThreads() == 0);
    }

    @Test
    void anInterruptedExceptionWhileThePoolStillReceivesIsAFailureLikeAnyOther() {
        Handler handler =
                new Handler(
                        j -> {
                            throw new InterruptedException("the job's own wait");
                        });
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), List.of(handler));
        SchedulerWorkers workers = workers(jobs, 1, Duration.ofSeconds(30), List.of(handler));
        workers.start();
        jobs.submit(3L);
        await().atMost(Duration.ofSeconds(30)).until(() -> handler.failures.size() == 1);
        assertThat(handler.failures).singleElement().isInstanceOf(InterruptedException.class);
        assertThat(workers.counts().get("jobs"))
                .containsEntry("failed", 1L)
                .containsEntry("retried", 1L);
        assertThat(jobs.counts().failed()).isEqualTo(1);
    }

    @Test
    void aNullResultIsHeldByThisProcessAndSaidSo() {
        Handler handler = new Handler(j -> null);
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), List.of(handler));
        SchedulerWorkers workers = workers(jobs, 1, Duration.ofSeconds(30), List.of(handler));
        workers.start();
        jobs.submit(3L);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> workers.counts().get("jobs").get("held") == 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> !log.lines().isEmpty()); // said after
        assertThat(workers.counts().get("jobs"))
                .containsEntry("completed", 0L)
                .containsEntry("failed", 0L);
        assertThat(jobs.counts().running()).isEqualTo(1);
        assertThat(log.lines())
                .singleElement()
                .asString()
                .startsWith("ERROR cxc scheduler jobs: ")
                .endsWith(
                        " is held by this process until it stops: its result could not be recorded"
                                + " [java.lang.IllegalArgumentException]");
    }

    @Test
    void aJobThatEndsWithinTheShutdownTimeoutIsRecordedAndNothingIsInterrupted() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Handler handler =
                new Handler(
                        j -> {
                            running.countDown();
                            release.await();
                            return j.payload();
                        });
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), List.of(handler));
        SchedulerWorkers workers = workers(jobs, 1, Duration.ofSeconds(30), List.of(handler));
        workers.start();
        jobs.submit(5L);
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        Thread releaser =
                new Thread(
                        () -> {
                            await().atMost(Duration.ofSeconds(30)).until(workers::isStopping);
                            release.countDown();
                        });
        releaser.start();
        workers.stop();
        releaser.join(30_000);
        assertThat(poolThreads()).isZero();
        assertThat(workers.counts().get("jobs")).containsEntry("completed", 1L);
        assertThat(log.lines()).isEmpty();
        assertThat(results(jobs, 1)).extracting(JobResult::result).containsExactly(5L);
    }

    @Test
    void aJobStillRunningAtTheTimeoutIsInterruptedAndNotCountedAsFailed() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        Handler handler =
                new Handler(
                        j -> {
                            running.countDown();
                            new CountDownLatch(1).await(); // until interrupted
                            return j.payload();
                        });
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofSeconds(2), List.of(handler));
        SchedulerWorkers workers = workers(jobs, 1, Duration.ZERO, List.of(handler));
        workers.start();
        jobs.submit(6L);
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        workers.stop();
        await().atMost(Duration.ofSeconds(30)).until(() -> poolThreads() == 0);
        assertThat(log.lines())
                .hasSize(2)
                .first()
                .isEqualTo(
                        "WARN cxc scheduler jobs: cxc-scheduler-jobs-0 still runs a job after PT0S"
                                + " (shutdown-timeout): interrupted; its job goes back to the queue"
                                + " as the scheduler closes");
        assertThat(log.lines().get(1))
                .startsWith("INFO cxc scheduler jobs: ")
                .endsWith(
                        " interrupted by shutdown; it goes back to the queue as the scheduler"
                                + " closes");
        assertThat(workers.counts().get("jobs"))
                .containsEntry("failed", 0L)
                .containsEntry("completed", 0L)
                .containsEntry("held", 0L);
        assertThat(handler.failures).isEmpty();
    }

    @Test
    void theResultOfAnAttemptReDispatchedMeanwhileIsFencedOffAndCounted() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Handler handler =
                new Handler(
                        j -> {
                            running.countDown();
                            release.await();
                            return 1L;
                        });
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofMillis(100), List.of(handler));
        SchedulerWorkers workers = workers(jobs, 1, Duration.ofSeconds(30), List.of(handler));
        workers.start();
        jobs.submit(7L);
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        try (BackgroundScheduler<Long, Long> other =
                BackgroundScheduler.open(
                        jobs.file(), new BackgroundScheduler.Settings<>(16, INT64, INT64))) {
            // No tick beats the pool's record: past the grace another handle (as another process
            // would; the pool's own handle beats its record before it judges) sends its running
            // job back to the queue.
            await().atMost(Duration.ofSeconds(30)).until(() -> !other.watchdogScan().isEmpty());
            Job<Long> again = other.receive(ME).orElseThrow();
            assertThat(again.attempt()).isEqualTo(2);
            assertThat(other.complete(again, 2L)).isTrue();
        }
        release.countDown();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> workers.counts().get("jobs").get("fenced") == 1);
        assertThat(workers.counts().get("jobs")).containsEntry("completed", 0L);
        assertThat(results(jobs, 1)).extracting(JobResult::result).containsExactly(2L);
    }

    @Test
    void eachTickScansForASilentWorkersJobsAndSaysWhatItReclaimed() {
        SchedulerCodecs<Long, Long> codecs = SchedulerCodecs.of("jobs", INT64, INT64);
        BackgroundScheduler<Long, Long> jobs = open(Duration.ofMillis(100), List.of(codecs));
        SchedulerWorkers workers = workers(jobs, 0, Duration.ofSeconds(1), List.of(codecs));
        jobs.submit(8L);
        try (BackgroundScheduler<Long, Long> silent =
                BackgroundScheduler.open(
                        jobs.file(), new BackgroundScheduler.Settings<>(16, INT64, INT64))) {
            assertThat(silent.receive(ME)).isPresent(); // and never beats again
            await().atMost(Duration.ofSeconds(30))
                    .until(
                            () -> {
                                workers.onTick();
                                return !log.lines().isEmpty();
                            });
        }
        assertThat(log.lines())
                .singleElement()
                .asString()
                .matches(
                        "INFO cxc scheduler jobs reclaimed: ReclaimReport\\[requeuedJobIds=\\[\\d+\\].*");
        assertThat(jobs.counts().queued()).isEqualTo(1);

        jobs.close();
        workers.onTick(); // a closed scheduler is skipped
        assertThat(log.lines()).hasSize(1);
    }
}
