package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.LongJobHandler;
import io.subetha.cxc.boot.actuate.endpoint.SchedulerJobsEndpoint;
import io.subetha.cxc.boot.actuate.metrics.SchedulerMeters;
import io.subetha.cxc.boot.scheduling.JobLimits;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

/**
 * {@code cxc.schedulers.<name>.limits.<type>=N}: at most N jobs of a type run at once (a lease of
 * the scheduler's limits table each), the pool's other workers hand such a job back to the queue
 * unrun and go on with other types; a bad limit fails startup naming the property.
 */
class CxcJobLimitsTest {

    @TempDir Path temp;

    /** "heavy" jobs (payload below 100) wait at a gate, counting how many run at once. */
    static final class Gated extends LongJobHandler {
        final CountDownLatch gate = new CountDownLatch(1);
        final AtomicInteger heavyRunning = new AtomicInteger();
        final AtomicInteger heavyMost = new AtomicInteger();

        Gated() {
            super("jobs");
        }

        @Override
        public String type(Job<Long> job) {
            return job.payload() < 100 ? "heavy" : "light";
        }

        @Override
        public Long handle(Job<Long> job) throws InterruptedException {
            if (!type(job).equals("heavy")) {
                return job.payload();
            }
            heavyMost.accumulateAndGet(heavyRunning.incrementAndGet(), Math::max);
            try {
                if (!gate.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never opened the gate");
                }
                return job.payload();
            } finally {
                heavyRunning.decrementAndGet();
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean
        Gated gated() {
            return new Gated();
        }
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class))
                .withUserConfiguration(App.class)
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "cxc.schedulers.jobs.capacity=16",
                        "cxc.schedulers.jobs.workers=4");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aLimitOfOneRunsOneHeavyJobAtOnceWhileOtherTypesRunBeside() {
        runner().withPropertyValues("cxc.schedulers.jobs.limits.heavy=1")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            Gated handler = context.getBean(Gated.class);
                            BackgroundScheduler<Long, Long> jobs =
                                    (BackgroundScheduler<Long, Long>) context.getBean("jobs");
                            SchedulerWorkers workers = context.getBean(SchedulerWorkers.class);
                            MeterRegistry meters = new SimpleMeterRegistry();
                            new SchedulerMeters(workers).bindTo(meters);
                            for (long heavy = 1; heavy <= 4; heavy++) {
                                jobs.submit(heavy);
                            }
                            for (long light = 101; light <= 103; light++) {
                                jobs.submit(light);
                            }
                            List<JobResult<Long>> results = new ArrayList<>();
                            // The light jobs were queued behind the heavy ones: once they are done,
                            // every heavy job was received, and all but one handed back.
                            await().atMost(Duration.ofSeconds(60))
                                    .until(
                                            () -> {
                                                results.addAll(jobs.collector().take(16));
                                                return results.size() == 3;
                                            });
                            assertThat(results)
                                    .extracting(JobResult::result)
                                    .containsExactlyInAnyOrder(101L, 102L, 103L);
                            assertThat(handler.heavyRunning).hasValue(1);
                            // The limit and its use, as /actuator/cxcjobs shows them; the waiting
                            // jobs' hand-backs, counted apart from runs.
                            assertThat(
                                            new SchedulerJobsEndpoint(workers)
                                                    .scheduler("jobs")
                                                    .limits())
                                    .containsExactly(Map.entry("heavy", new JobLimits.Use(1, 1)));
                            await().atMost(Duration.ofSeconds(60))
                                    .until(() -> handedBack(meters) >= 3);
                            handler.gate.countDown();
                            await().atMost(Duration.ofSeconds(60))
                                    .until(
                                            () -> {
                                                results.addAll(jobs.collector().take(16));
                                                return results.size() == 7;
                                            });
                            assertThat(handler.heavyMost).hasValue(1);
                            assertThat(jobs.counts().failed()).isZero();
                        });
    }

    private static double handedBack(MeterRegistry meters) {
        Counter counter =
                meters.find("cxc.scheduler.executions")
                        .tags("scheduler", "jobs", "outcome", "handed-back")
                        .counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void limitsBeyondTheDefaultTableGetATableWithRoomAndOnesThatOutgrowItAreRefusedSayingSo() {
        runner().withPropertyValues("cxc.schedulers.jobs.limits.heavy=300")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(
                                            context.getBean(SchedulerWorkers.class)
                                                    .limits("jobs")
                                                    .orElseThrow()
                                                    .use())
                                    .containsExactly(Map.entry("heavy", new JobLimits.Use(300, 0)));
                        });
        runner().withPropertyValues("cxc.schedulers.jobs.limits.heavy=301")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(
                                                InstanceOfAssertFactories.type(
                                                        InvalidCxcPropertyException.class))
                                        .satisfies(
                                                e -> {
                                                    assertThat(e.property())
                                                            .isEqualTo(
                                                                    "cxc.schedulers.jobs.limits");
                                                    assertThat(e.reason())
                                                            .contains("more than the 300 leases");
                                                    assertThat(e.action())
                                                            .contains("stop every copy and remove");
                                                }));
        runner().withPropertyValues("cxc.schedulers.jobs.limits.heavy=65537")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining("'cxc.schedulers.jobs.limits'")
                                        .hasMessageContaining("65536"));
    }

    @Test
    void aLimitBelowOneFailsStartupNamingTheProperty() {
        runner().withPropertyValues("cxc.schedulers.jobs.limits.heavy=0")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining("'cxc.schedulers.jobs.limits.heavy'")
                                        .hasMessageContaining("at least 1"));
    }
}
