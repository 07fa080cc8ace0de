package io.subetha.cxc.benchmarks;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.FailureHandler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * db-scheduler 16.x as its README's "Consider tuning" section recommends
 * (https://github.com/kagkarlsson/db-scheduler#consider-tuning): its default 10 threads ({@code
 * .threads(int)}, "Default 10"), {@code .enableImmediateExecution()} so a job scheduled for now
 * starts without waiting for a poll, and on PostgreSQL the {@code lock-and-fetch} polling strategy
 * at the README's high-throughput setting ({@code .pollUsingLockAndFetch(1.0, 4.0)}: "For high
 * throughput (i.e. keep threads busy), set to for example 1.0, 4.0"; "Currently supported by
 * postgres", so H2 keeps the default {@code fetch-and-lock-on-execute}). The polling interval
 * (default 10 s) and the heartbeat (default 5 min, 6 missed before a job is dead: a dead worker's
 * job waits 30 min) are set to the tightest the builder takes ({@link
 * SchedulerVsDbScheduler#tight}), since at the defaults the latency and dead-worker rows would
 * measure the defaults, not the library. A one-time job is done when its row is gone (db-scheduler
 * deletes it after the handler returns).
 */
final class DbSchedulerJobRunner implements JobRunner {

    private final String name;
    private final DataSource ds;
    private final String childUrl;
    private final String user;
    private final boolean lockAndFetch;
    private final OneTimeTask<Long> task = task();
    private final AtomicLong ids = new AtomicLong();
    private Scheduler scheduler;

    /**
     * @param ds this process's store
     * @param childUrl the same store as a child JVM reaches it
     */
    DbSchedulerJobRunner(String name, DataSource ds, String childUrl, String user, boolean postgres)
            throws SQLException {
        this.name = name;
        this.ds = ds;
        this.childUrl = childUrl;
        this.user = user;
        this.lockAndFetch = postgres;
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            // db-scheduler's own table definitions (db-scheduler/src/test/resources/*_tables.sql).
            st.execute(
                    "create table scheduled_tasks (task_name text not null, task_instance text not"
                            + " null, task_data "
                            + (postgres ? "bytea" : "blob")
                            + ", execution_time timestamp with time zone not null, picked boolean"
                            + " not null, picked_by text, last_success timestamp with time zone,"
                            + " last_failure timestamp with time zone, consecutive_failures int,"
                            + " last_heartbeat timestamp with time zone, version bigint not null,"
                            + " priority smallint, primary key (task_name, task_instance))");
            st.execute("create index execution_time_idx on scheduled_tasks (execution_time)");
            st.execute("create index last_heartbeat_idx on scheduled_tasks (last_heartbeat)");
        }
    }

    static OneTimeTask<Long> task() {
        return Tasks.oneTime("job", Long.class)
                // README "Task configuration": .onFailure(FailureHandler); a fixed backoff.
                .onFailure(new FailureHandler.OnFailureRetryLater<>(BACKOFF))
                .onDeadExecutionRevive()
                .execute((instance, context) -> JobProbe.handle(instance.getData()));
    }

    static SchedulerBuilder configured(
            SchedulerBuilder builder, String name, boolean lockAndFetch) {
        SchedulerVsDbScheduler.tight(builder, name).enableImmediateExecution();
        return lockAndFetch ? builder.pollUsingLockAndFetch(1.0, 4.0) : builder;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public OptionalDouble deadWorkerMillis() throws Exception {
        SchedulerVsDbScheduler.Child holder =
                SchedulerVsDbScheduler.Child.start(
                        JobRunnerShootout.class,
                        "child-db-hold",
                        childUrl,
                        user,
                        Boolean.toString(lockAndFetch));
        try {
            holder.await("ready");
            SchedulerClient.Builder.create(ds, task)
                    .build()
                    .schedule(task.instance("held", JobProbe.HOLD), Instant.now());
            holder.await("holding");
            scheduler = configured(Scheduler.create(ds, task), "survivor", lockAndFetch).build();
            scheduler.start();
            long killed = holder.killNow();
            long ran = JobProbe.await(JobProbe.RECOVERED_AT::get, 120, name + "'s dead job");
            return OptionalDouble.of((ran - killed) / 1e6);
        } finally {
            holder.kill();
        }
    }

    /** A child's scheduler that takes the held job and holds it until SIGKILLed. */
    static void hold(DataSource ds, boolean lockAndFetch) {
        JobProbe.holding = true;
        configured(Scheduler.create(ds, task()), "holder", lockAndFetch).build().start();
    }

    @Override
    public double jobsPerSecond(int jobs) throws Exception {
        long target = JobProbe.RAN.get() + jobs;
        long start = System.nanoTime();
        for (int j = 0; j < jobs; j++) {
            scheduler.schedule(task.instance("j" + ids.incrementAndGet(), 0L), Instant.now());
        }
        JobProbe.awaitRuns(target, name + "'s " + jobs + " jobs");
        JobProbe.await(() -> rows() == 0 ? 1 : 0, 600, name + "'s jobs done", 1_000_000);
        return jobs * 1e9 / (System.nanoTime() - start);
    }

    private long rows() {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select count(*) from scheduled_tasks")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long loneStartNanos() {
        JobProbe.LAST_START.set(0);
        long submitted = System.nanoTime();
        scheduler.schedule(task.instance("j" + ids.incrementAndGet(), 0L), Instant.now());
        long started = JobProbe.await(JobProbe.LAST_START::get, 60, name + "'s lone job");
        JobProbe.await(() -> rows() == 0 ? 1 : 0, 60, name + "'s lone job done", 1_000_000);
        return started - submitted;
    }

    @Override
    public double retryMillis() {
        JobProbe.reset();
        scheduler.schedule(task.instance("retry", JobProbe.RETRY), Instant.now());
        long failed = JobProbe.await(JobProbe.FAILED_AT::get, 60, name + "'s first attempt");
        long retried = JobProbe.await(JobProbe.RETRIED_AT::get, 60, name + "'s retry");
        return (retried - failed) / 1e6;
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.stop();
        }
    }
}
