package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.scheduling.CronRecurrence;
import io.subetha.cxc.boot.scheduling.RecurringJobs;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.JobResult;
import io.subetha.cxc.scheduling.Recurrence;
import io.subetha.cxc.scheduling.TimetableEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;

/**
 * {@code cxc.schedulers.<name>.recurring.<job>.*}: a declared recurring job is registered at start
 * (again by every copy: one entry), fired from the worker pool's polls and the ticker, its payload
 * converted to the handler's job type (the scheduler test's doubling handler); cron comes from
 * Spring's {@code CronExpression}; a bad declaration fails startup naming the property.
 */
class CxcRecurringJobsTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcRecurringJobsAutoConfiguration.class))
                .withUserConfiguration(CxcSchedulerAutoConfigurationTest.Handler.class)
                .withPropertyValues("cxc.directory=" + temp.resolve("cxc"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aDeclaredRecurringJobIsRegisteredOnceAndRunsOnThePool() {
        runner().withPropertyValues(
                        "cxc.schedulers.jobs.recurring.beat.fixed-rate=50ms",
                        "cxc.schedulers.jobs.recurring.beat.payload=21",
                        "cxc.schedulers.jobs.recurring.beat.keep-result=true",
                        "cxc.schedulers.jobs.recurring.nightly.cron=0 0 2 * * *",
                        "cxc.schedulers.jobs.recurring.nightly.zone=Europe/Paris",
                        "cxc.schedulers.jobs.recurring.nightly.payload=5")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            BackgroundScheduler<Long, Long> jobs =
                                    (BackgroundScheduler<Long, Long>) context.getBean("jobs");
                            RecurringJobs recurring = context.getBean(RecurringJobs.class);
                            assertThat(context.getBeansOfType(TickTask.class))
                                    .containsValue(recurring);
                            recurring.afterSingletonsInstantiated(); // a second copy's start
                            assertThat(jobs.timetable())
                                    .extracting(TimetableEntry::name, TimetableEntry::recurrence)
                                    .containsExactlyInAnyOrder(
                                            org.assertj.core.groups.Tuple.tuple(
                                                    "beat", "fixed-rate:PT0.05S"),
                                            org.assertj.core.groups.Tuple.tuple(
                                                    "nightly", "cron:0 0 2 * * *|Europe/Paris"));
                            List<JobResult<Long>> results = new ArrayList<>();
                            await().atMost(Duration.ofSeconds(60))
                                    .until(
                                            () -> {
                                                recurring.onTick();
                                                results.addAll(jobs.collector().take(64));
                                                return results.size() >= 3;
                                            });
                            assertThat(results).extracting(JobResult::result).containsOnly(42L);
                        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRecurringJobsResultsAreDiscardedSoNoCollectorIsNeeded() {
        runner().withPropertyValues(
                        "cxc.schedulers.jobs.capacity=2",
                        "cxc.schedulers.jobs.recurring.beat.fixed-rate=20ms",
                        "cxc.schedulers.jobs.recurring.beat.payload=21")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            BackgroundScheduler<Long, Long> jobs =
                                    (BackgroundScheduler<Long, Long>) context.getBean("jobs");
                            RecurringJobs recurring = context.getBean(RecurringJobs.class);
                            // Five times the capacity: kept results would have filled it.
                            await().atMost(Duration.ofSeconds(60))
                                    .until(
                                            () -> {
                                                recurring.onTick();
                                                return jobs.timetable().get(0).fires() >= 10;
                                            });
                            assertThat(jobs.collector().take(64)).isEmpty();
                        });
    }

    @Test
    void cronIsReadInItsZoneAndReadBackFromItsSpec() {
        Recurrence nightly = CronRecurrence.of("0 0 2 * * *", "Europe/Paris");
        Instant noon = Instant.parse("2026-01-15T12:00:00Z");
        assertThat(nightly.next(noon)).isEqualTo(Instant.parse("2026-01-16T01:00:00Z"));
        assertThat(Recurrence.parse(nightly.spec()).next(noon)).isEqualTo(nightly.next(noon));
        assertThatThrownBy(() -> CronRecurrence.of("0 0 25 * * *", "UTC"))
                .hasMessageContaining("is not one Spring reads");
        assertThatThrownBy(() -> CronRecurrence.of("0 0 2 * * *", "Mars/Olympus"))
                .hasMessageContaining("not a zone id");
    }

    @Test
    void aBadDeclarationFailsStartupNamingTheProperty() {
        failsNaming(
                "'cxc.schedulers.jobs.recurring.beat'",
                "it gives [cron, fixed-rate], which say different things",
                "cxc.schedulers.jobs.recurring.beat.fixed-rate=1s",
                "cxc.schedulers.jobs.recurring.beat.cron=0 0 2 * * *",
                "cxc.schedulers.jobs.recurring.beat.payload=1");
        failsNaming(
                "'cxc.schedulers.jobs.recurring.beat.cron'",
                "is not one Spring reads",
                "cxc.schedulers.jobs.recurring.beat.cron=every day",
                "cxc.schedulers.jobs.recurring.beat.payload=1");
        failsNaming(
                "'cxc.schedulers.jobs.recurring.beat.fixed-delay'",
                "1 ms",
                "cxc.schedulers.jobs.recurring.beat.fixed-delay=0s",
                "cxc.schedulers.jobs.recurring.beat.payload=1");
        failsNaming(
                "'cxc.schedulers.jobs.recurring.beat.payload'",
                "it is missing: each fire submits this job",
                "cxc.schedulers.jobs.recurring.beat.fixed-rate=1s");
        failsNaming(
                "'cxc.schedulers.jobs.recurring.beat.payload'",
                "does not convert to the scheduler's job type java.lang.Long",
                "cxc.schedulers.jobs.recurring.beat.fixed-rate=1s",
                "cxc.schedulers.jobs.recurring.beat.payload=lots");
        failsNaming(
                "'cxc.schedulers.jobs.recurring." + "x".repeat(65) + "'",
                "1..64 UTF-8 bytes",
                "cxc.schedulers.jobs.recurring." + "x".repeat(65) + ".fixed-rate=1s",
                "cxc.schedulers.jobs.recurring." + "x".repeat(65) + ".payload=1");
    }

    private void failsNaming(String property, String reason, String... properties) {
        runner().withPropertyValues(properties)
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .extracting(NestedExceptionUtils::getMostSpecificCause)
                                        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                                        .hasMessageContaining(property)
                                        .hasMessageContaining(reason));
    }
}
