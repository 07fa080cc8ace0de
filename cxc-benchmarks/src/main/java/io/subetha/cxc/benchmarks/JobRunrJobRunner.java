package io.subetha.cxc.benchmarks;

import java.time.Duration;
import java.util.OptionalDouble;
import javax.sql.DataSource;
import org.jobrunr.configuration.JobRunr;
import org.jobrunr.jobs.filters.RetryFilter;
import org.jobrunr.jobs.states.StateName;
import org.jobrunr.scheduling.JobScheduler;
import org.jobrunr.server.BackgroundJobServerConfiguration;
import org.jobrunr.storage.InMemoryStorageProvider;
import org.jobrunr.storage.StorageProvider;
import org.jobrunr.storage.sql.postgres.PostgresStorageProvider;
import org.jobrunr.utils.mapper.jackson3.Jackson3JsonMapper;

/**
 * JobRunr 8.x configured through its fluent API (jobrunr.io, Documentation → Configuration →
 * Fluent) with its default worker count and its minimum poll interval ({@code
 * BackgroundJobServerConfiguration.andPollInterval}: JobRunr refuses less than 200 ms on its {@code
 * InMemoryStorageProvider} and less than 5 s on a SQL store, "otherwise it will cause to much load
 * on your SQL/noSQL datastore"). Retries by its {@link RetryFilter} (docs: "Retries", the
 * exponential back-off {@code seed^failures} seconds), seed 1 for a 1 s wait. A job is done when
 * the store counts it {@code SUCCEEDED}.
 */
final class JobRunrJobRunner implements JobRunner {

    static final Duration MEMORY_POLL = Duration.ofMillis(200);
    static final Duration SQL_POLL = Duration.ofSeconds(5);

    private final String name;
    private final DataSource ds;
    private final String childUrl;
    private JobScheduler scheduler;
    private StorageProvider storage;

    /** In memory when {@code ds} is null, else on PostgreSQL through {@code ds}. */
    JobRunrJobRunner(String name, DataSource ds, String childUrl) {
        this.name = name;
        this.ds = ds;
        this.childUrl = childUrl;
    }

    static JobScheduler start(DataSource ds) {
        StorageProvider storage =
                ds == null ? new InMemoryStorageProvider() : new PostgresStorageProvider(ds);
        return JobRunr.configure()
                .useStorageProvider(storage)
                .useJsonMapper(new Jackson3JsonMapper())
                .withJobFilter(new RetryFilter(RetryFilter.DEFAULT_NBR_OF_RETRIES, 1))
                .useBackgroundJobServer(
                        BackgroundJobServerConfiguration
                                .usingStandardBackgroundJobServerConfiguration()
                                .andPollInterval(ds == null ? MEMORY_POLL : SQL_POLL))
                .initialize()
                .getJobScheduler();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public OptionalDouble deadWorkerMillis() throws Exception {
        if (ds == null) {
            scheduler = start(null);
            storage = JobRunr.getStorageProvider();
            return OptionalDouble.empty(); // its store lives and dies with one process
        }
        SchedulerVsDbScheduler.Child holder =
                SchedulerVsDbScheduler.Child.start(
                        JobRunnerShootout.class, "child-jobrunr-hold", childUrl);
        try {
            holder.await("holding"); // the child enqueued the job and its server took it
            scheduler = start(ds);
            storage = JobRunr.getStorageProvider();
            long killed = holder.killNow();
            long ran = JobProbe.await(JobProbe.RECOVERED_AT::get, 300, name + "'s dead job");
            return OptionalDouble.of((ran - killed) / 1e6);
        } finally {
            holder.kill();
        }
    }

    /** A child's server that enqueues the held job itself, takes it, holds it until SIGKILLed. */
    static void hold(DataSource ds) {
        JobProbe.holding = true;
        start(ds).enqueue(() -> JobProbe.handle(JobProbe.HOLD));
    }

    @Override
    public double jobsPerSecond(int jobs) {
        long before = storage.countJobs(StateName.SUCCEEDED);
        long target = JobProbe.RAN.get() + jobs;
        long start = System.nanoTime();
        for (int j = 0; j < jobs; j++) {
            scheduler.enqueue(() -> JobProbe.handle(0L));
        }
        JobProbe.awaitRuns(target, name + "'s " + jobs + " jobs");
        JobProbe.await(
                () -> storage.countJobs(StateName.SUCCEEDED) - before >= jobs ? 1 : 0,
                600,
                name + "'s jobs done",
                1_000_000);
        return jobs * 1e9 / (System.nanoTime() - start);
    }

    @Override
    public long loneStartNanos() {
        long before = storage.countJobs(StateName.SUCCEEDED);
        JobProbe.LAST_START.set(0);
        long submitted = System.nanoTime();
        scheduler.enqueue(() -> JobProbe.handle(0L));
        long started = JobProbe.await(JobProbe.LAST_START::get, 60, name + "'s lone job");
        JobProbe.await(
                () -> storage.countJobs(StateName.SUCCEEDED) > before ? 1 : 0,
                60,
                name + "'s lone job done",
                1_000_000);
        return started - submitted;
    }

    @Override
    public double retryMillis() {
        JobProbe.reset();
        scheduler.enqueue(() -> JobProbe.handle(JobProbe.RETRY));
        long failed = JobProbe.await(JobProbe.FAILED_AT::get, 60, name + "'s first attempt");
        long retried = JobProbe.await(JobProbe.RETRIED_AT::get, 60, name + "'s retry");
        return (retried - failed) / 1e6;
    }

    @Override
    public void close() {
        JobRunr.destroy();
    }
}
