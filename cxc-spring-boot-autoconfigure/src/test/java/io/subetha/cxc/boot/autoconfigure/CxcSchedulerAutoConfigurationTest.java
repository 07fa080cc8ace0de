package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.LongJobHandler;
import io.subetha.cxc.boot.SchedulerCodecs;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

/** {@code cxc.schedulers.<name>.*}: the scheduler bean, its worker pool, tick task and shutdown. */
class CxcSchedulerAutoConfigurationTest {

    @TempDir Path temp;

    /** Doubles a job; 13 fails every attempt, so it ends FAILED. */
    static final class Doubler extends LongJobHandler {
        Doubler() {
            super("jobs");
        }

        @Override
        public Long handle(Job<Long> job) {
            if (job.payload() == 13) {
                throw new IllegalStateException("unlucky");
            }
            return job.payload() * 2;
        }
    }

    /** An application bean that submits: the declared scheduler injected by name, typed. */
    record Submitter(BackgroundScheduler<Long, Long> jobs) {}

    @Configuration(proxyBeanMethods = false)
    static class Handler {
        @Bean
        Doubler doubler() {
            return new Doubler();
        }

        @Bean
        Submitter submitter(@Qualifier("jobs") BackgroundScheduler<Long, Long> jobs) {
            return new Submitter(jobs);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CodecsOnly {
        @Bean
        SchedulerCodecs<Long, Long> jobsCodecs() {
            return SchedulerCodecs.of("jobs", FixedCodec.INT64, FixedCodec.INT64);
        }
    }

    /** Holds every job until released. */
    static final class Blocking extends LongJobHandler {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        Blocking() {
            super("jobs");
        }

        @Override
        public Long handle(Job<Long> job) throws InterruptedException {
            started.countDown();
            release.await();
            return job.payload();
        }
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcEndpointAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "management.endpoints.web.exposure.include=cxc");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aDeclaredSchedulerRunsItsHandlerOnThePoolAndShowsInTheEndpointAndCxcOps() {
        runner().withUserConfiguration(Handler.class)
                .withBean(SimpleMeterRegistry.class)
                .withPropertyValues(
                        "cxc.schedulers.jobs.capacity=64",
                        "cxc.schedulers.jobs.timetable-entries=200",
                        "cxc.schedulers.jobs.workers=3",
                        "cxc.schedulers.jobs.retry.initial-backoff=10ms")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            BackgroundScheduler<Long, Long> jobs =
                                    context.getBean(Submitter.class).jobs();
                            assertThat(jobs).isSameAs(context.getBean("jobs"));
                            assertThat(jobs.capacity()).isEqualTo(64);
                            SchedulerWorkers workers = context.getBean(SchedulerWorkers.class);
                            assertThat(context.getBeansOfType(TickTask.class))
                                    .containsValue(workers);
                            assertThat(workers.counts().get("jobs")).containsEntry("workers", 3L);
                            for (long i = 1; i <= 20; i++) {
                                jobs.submit(i);
                            }
                            List<JobResult<Long>> results = new ArrayList<>();
                            await().atMost(Duration.ofSeconds(60))
                                    .until(
                                            () -> {
                                                results.addAll(jobs.collector().take(64));
                                                return results.size() == 19;
                                            });
                            assertThat(results)
                                    .extracting(JobResult::result)
                                    .contains(2L, 4L, 40L)
                                    .doesNotContain(26L);
                            await().atMost(Duration.ofSeconds(60))
                                    .until(() -> jobs.counts().failed() == 1);
                            assertThat(workers.counts().get("jobs"))
                                    .containsEntry("completed", 19L)
                                    .containsEntry("retried", 2L)
                                    .containsEntry("failed", 1L);
                            workers.onTick(); // beats and scans; nothing to reclaim
                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);
                            assertThat(
                                            meters.get("cxc.ops")
                                                    .tags(
                                                            "primitive", "jobs.scheduler",
                                                            "kind", "background-scheduler",
                                                            "op", "complete")
                                                    .functionCounter()
                                                    .count())
                                    .isEqualTo(19);
                            assertThat(context.getBean(CxcEndpoint.class).cxc().primitives())
                                    .anySatisfy(
                                            p -> {
                                                assertThat(p.name()).isEqualTo("jobs.scheduler");
                                                assertThat(p.kind())
                                                        .isEqualTo("background-scheduler");
                                                assertThat(p.state())
                                                        .containsEntry("capacity", 64)
                                                        .containsEntry("timetableCapacity", 200)
                                                        .containsEntry("collected", 19L);
                                            });
                        });
    }

    @Test
    void aBadPropertyFailsStartupNamingIt() {
        runner().withUserConfiguration(Handler.class)
                .withPropertyValues("cxc.schedulers.jobs.capacity=0")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining("'cxc.schedulers.jobs.capacity'")
                                        .hasMessageContaining("1048576"));
        runner().withUserConfiguration(Handler.class)
                .withPropertyValues("cxc.schedulers.jobs.timetable-entries=4097")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining(
                                                "'cxc.schedulers.jobs.timetable-entries'")
                                        .hasMessageContaining("4096"));
        runner().withUserConfiguration(Handler.class)
                .withPropertyValues("cxc.schedulers.jobs.workers=-1")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining("'cxc.schedulers.jobs.workers'")
                                        .hasMessageContaining("0..256"));
        runner().withUserConfiguration(Handler.class)
                .withPropertyValues("cxc.schedulers.jobs.job-codec=int64")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining("'cxc.schedulers.jobs.job-codec'")
                                        .hasMessageContaining("the starter sets it itself"));
    }

    @Test
    void aBadRetryPropertyFailsStartupNamingItAndItsRange() {
        runner().withUserConfiguration(Handler.class)
                .withPropertyValues("cxc.schedulers.jobs.retry.max-attempts=0")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining(
                                                "'cxc.schedulers.jobs.retry.max-attempts'")
                                        .hasMessageContaining("retry.max-attempts must be 1.."));
        runner().withUserConfiguration(Handler.class)
                .withPropertyValues("cxc.schedulers.jobs.retry.multiplier=0.5")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining(
                                                "'cxc.schedulers.jobs.retry.multiplier'")
                                        .hasMessageContaining("1.0..1000"));
        runner().withUserConfiguration(Handler.class)
                .withPropertyValues(
                        "cxc.schedulers.jobs.retry.initial-backoff=10m",
                        "cxc.schedulers.jobs.retry.max-backoff=1m")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining(
                                                "'cxc.schedulers.jobs.retry.max-backoff'"));
        runner().withUserConfiguration(Handler.class)
                .withPropertyValues("cxc.schedulers.jobs.history=-1")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining("'cxc.schedulers.jobs.history'")
                                        .hasMessageContaining("0 (no history)"));
    }

    @Test
    void noHandlerNorCodecsFailsStartupNamingTheSchedulerAndTheFix() {
        runner().withPropertyValues("cxc.schedulers.jobs.capacity=64")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining("'cxc.schedulers.jobs'")
                                        .hasMessageContaining("no JobHandler or SchedulerCodecs"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void codecsAloneSubmitAndCollectButRunNothingHere() {
        runner().withUserConfiguration(CodecsOnly.class)
                .withPropertyValues("cxc.schedulers.jobs.capacity=64")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            BackgroundScheduler<Long, Long> jobs =
                                    context.getBean("jobs", BackgroundScheduler.class);
                            jobs.submit(7L);
                            assertThat(context.getBean(SchedulerWorkers.class).counts()).isEmpty();
                            assertThat(jobs.counts().queued()).isEqualTo(1);
                        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void shutdownLetsAJobFinishWithinTheTimeoutAndReleasesOneThatDoesNot() throws Exception {
        Path directory = temp.resolve("cxc");
        // Within the timeout: the running job finishes and its result is recorded.
        Blocking finishing = new Blocking();
        runner().withBean(Blocking.class, () -> finishing)
                .withPropertyValues(
                        "cxc.schedulers.jobs.capacity=64",
                        "cxc.schedulers.jobs.workers=1",
                        "cxc.schedulers.jobs.shutdown-timeout=60s")
                .run(
                        context -> {
                            context.getBean("jobs", BackgroundScheduler.class).submit(5L);
                            assertThat(finishing.started.await(60, TimeUnit.SECONDS)).isTrue();
                            SchedulerWorkers workers = context.getBean(SchedulerWorkers.class);
                            Thread releaser =
                                    new Thread(
                                            () -> {
                                                // Released once the pools are told to stop.
                                                long deadline = System.nanoTime() + 60_000_000_000L;
                                                while (!workers.isStopping()
                                                        && System.nanoTime() < deadline) {
                                                    LockSupport.parkNanos(1_000_000);
                                                }
                                                finishing.release.countDown();
                                            });
                            releaser.start();
                            workers.stop();
                            releaser.join();
                        });
        try (BackgroundScheduler<Long, Long> file =
                BackgroundScheduler.open(
                        directory.resolve("jobs.scheduler"),
                        new BackgroundScheduler.Settings<>(
                                64, FixedCodec.INT64, FixedCodec.INT64))) {
            assertThat(file.collector().take(8)).extracting(JobResult::result).containsExactly(5L);
        }
        // Past the timeout: the job goes back to the queue as the context closes, at once.
        Blocking stuck = new Blocking();
        runner().withBean(Blocking.class, () -> stuck)
                .withPropertyValues(
                        "cxc.schedulers.jobs.capacity=64",
                        "cxc.schedulers.jobs.workers=1",
                        "cxc.schedulers.jobs.shutdown-timeout=0s")
                .run(
                        context -> {
                            context.getBean("jobs", BackgroundScheduler.class).submit(6L);
                            assertThat(stuck.started.await(60, TimeUnit.SECONDS)).isTrue();
                        });
        try (BackgroundScheduler<Long, Long> file =
                BackgroundScheduler.open(
                        directory.resolve("jobs.scheduler"),
                        new BackgroundScheduler.Settings<>(
                                64, FixedCodec.INT64, FixedCodec.INT64))) {
            assertThat(file.counts().running()).isZero();
            assertThat(file.counts().done()).isZero(); // not recorded as failed
            Job<Long> again = file.receive(ProcessHandle.current().pid()).orElseThrow();
            assertThat(again.payload()).isEqualTo(6L);
            assertThat(again.attempt()).isEqualTo(2);
            assertThat(file.complete(again, 60L)).isTrue();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theTickerBeatsSoAJobMayRunLongerThanTheGrace() throws Exception {
        Blocking slow = new Blocking();
        runner().withBean(Blocking.class, () -> slow)
                .withPropertyValues(
                        "cxc.schedulers.jobs.capacity=64",
                        "cxc.schedulers.jobs.workers=1",
                        "cxc.schedulers.jobs.grace=200ms")
                .run(
                        context -> {
                            BackgroundScheduler<Long, Long> jobs =
                                    context.getBean("jobs", BackgroundScheduler.class);
                            jobs.submit(4L);
                            assertThat(slow.started.await(60, TimeUnit.SECONDS)).isTrue();
                            // Five graces pass while the job runs: the ticker's beats keep it.
                            long from = System.nanoTime();
                            await().pollInterval(Duration.ofMillis(50))
                                    .atMost(Duration.ofSeconds(60))
                                    .until(() -> System.nanoTime() - from > 1_000_000_000L);
                            assertThat(jobs.counts().reclaimed()).isZero();
                            slow.release.countDown();
                            List<JobResult<Long>> results = new ArrayList<>();
                            await().atMost(Duration.ofSeconds(60))
                                    .until(
                                            () -> {
                                                results.addAll(jobs.collector().take(8));
                                                return !results.isEmpty();
                                            });
                            assertThat(results.get(0).attempt()).isEqualTo(1);
                            assertThat(results.get(0).result()).isEqualTo(4L);
                        });
    }
}
