package io.subetha.cxc.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.OptionalDouble;
import org.HdrHistogram.Histogram;
import org.h2.tools.Server;

/**
 * cxc's BackgroundScheduler beside the job runners users pick instead, each at its own docs' best
 * (issue 31, part 3): db-scheduler 16.x on PostgreSQL (lock-and-fetch) and on H2, JobRunr 8.x in
 * memory and on PostgreSQL at its minimum poll interval. Every runner runs the same {@link
 * JobProbe} body and is measured by the same {@link JobRunner} rows: jobs/s end to end (submit →
 * run → recorded done), submit-to-start latency of a lone job on an idle runner (p50/p99 over
 * {@code samples}, HdrHistogram), a SIGKILLed child JVM's held job started in this process, and a
 * failed job's retry after its 1 s backoff.
 *
 * <p>PostgreSQL is Debian's server, started by the harness ({@link PostgresServer}: initdb and
 * pg_ctl into a temporary directory on a free port, stopped and deleted at the end); if it is not
 * installed, {@code apt-get install -y postgresql} (as root). Child JVMs are SIGKILLed and
 * PostgreSQL stopped in {@code finally}.
 *
 * <p>Run (on demand, not by {@code mvn verify}): {@code java -cp
 * cxc-benchmarks/target/benchmarks.jar io.subetha.cxc.benchmarks.JobRunnerShootout [cxcJobs
 * anchorJobs samples]}.
 */
public final class JobRunnerShootout {

    private JobRunnerShootout() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].startsWith("child-")) {
            child(args);
            return;
        }
        int cxcJobs = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int anchorJobs = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        int samples = args.length > 2 ? Integer.parseInt(args[2]) : 50;
        System.out.println(
                "| runner | jobs/s end to end | lone job start p50 | p99 | SIGKILLed worker's job"
                        + " elsewhere | retry after its 1 s backoff |");
        System.out.println("|---|---|---|---|---|---|");
        try (ScratchDirectory dir = ScratchDirectory.create();
                PostgresServer pg = PostgresServer.start()) {
            try (JobRunner cxc = new CxcJobRunner(dir)) {
                measure(cxc, cxcJobs, samples);
            }
            String dbUrl = pg.createDatabase("dbscheduler");
            try (HikariDataSource ds = PostgresServer.pool(dbUrl, PostgresServer.USER, 20);
                    JobRunner db =
                            new DbSchedulerJobRunner(
                                    "db-scheduler 16.7.1 on PostgreSQL (lock-and-fetch 1.0/4.0,"
                                            + " 10 threads)",
                                    ds,
                                    dbUrl,
                                    PostgresServer.USER,
                                    true)) {
                measure(db, anchorJobs, samples);
            }
            measureH2(anchorJobs, samples);
            try (JobRunner memory =
                    new JobRunrJobRunner(
                            "JobRunr 8.7.0, InMemoryStorageProvider (poll 200 ms)", null, null)) {
                measure(memory, anchorJobs, samples);
            }
            String jrUrl = pg.createDatabase("jobrunr");
            try (HikariDataSource ds = PostgresServer.pool(jrUrl, PostgresServer.USER, 20);
                    JobRunner sql =
                            new JobRunrJobRunner(
                                    "JobRunr 8.7.0 on PostgreSQL (poll 5 s)", ds, jrUrl)) {
                // A lone job waits for the next 5 s poll: 10 samples are enough to see it.
                measure(sql, anchorJobs, Math.min(samples, 10));
            }
        }
    }

    private static void measureH2(int jobs, int samples) throws Exception {
        // In memory in this JVM, served over TCP to the child that holds the dead worker's job.
        Server server = Server.createTcpServer("-tcpPort", "" + freePort(), "-ifNotExists").start();
        try (HikariDataSource ds =
                        PostgresServer.pool("jdbc:h2:mem:dbscheduler;DB_CLOSE_DELAY=-1", "sa", 20);
                JobRunner h2 =
                        new DbSchedulerJobRunner(
                                "db-scheduler 16.7.1 on H2 in memory (fetch-and-lock, 10 threads)",
                                ds,
                                "jdbc:h2:tcp://localhost:" + server.getPort() + "/mem:dbscheduler",
                                "sa",
                                false)) {
            measure(h2, jobs, samples);
        } finally {
            server.stop();
        }
    }

    private static void measure(JobRunner runner, int jobs, int samples) throws Exception {
        OptionalDouble dead = runner.deadWorkerMillis();
        runner.jobsPerSecond(Math.max(1, jobs / 10)); // warm-up
        double perSecond = runner.jobsPerSecond(jobs);
        Histogram lone = new Histogram(3_600_000_000_000L, 3);
        for (int i = 0; i < samples; i++) {
            lone.recordValue(runner.loneStartNanos());
        }
        double retry = runner.retryMillis();
        System.out.printf(
                "| %s | %,.0f (%,d jobs) | %s | %s (n=%d) | %s | %,.0f ms |%n",
                runner.name(),
                perSecond,
                jobs,
                micros(lone.getValueAtPercentile(50)),
                micros(lone.getValueAtPercentile(99)),
                samples,
                dead.isPresent()
                        ? String.format("%,.0f ms", dead.getAsDouble())
                        : "n/a (store in one process)",
                retry);
        System.out.flush();
    }

    private static String micros(long nanos) {
        return nanos < 10_000_000
                ? String.format("%,.0f µs", nanos / 1e3)
                : String.format("%,.0f ms", nanos / 1e6);
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    // ------------------------------------------------------------------------------ children

    private static void child(String[] args) throws Exception {
        ProcessHandle.current()
                .parent()
                .ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(97)));
        switch (args[0]) {
            case "child-db-hold" -> {
                DbSchedulerJobRunner.hold(
                        PostgresServer.pool(args[1], args[2], 12), Boolean.parseBoolean(args[3]));
                say("ready");
            }
            case "child-jobrunr-hold" -> {
                JobRunrJobRunner.hold(PostgresServer.pool(args[1], PostgresServer.USER, 12));
                say("ready");
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (in.readLine() != null) {
            // until the parent closes stdin or kills us
        }
        Runtime.getRuntime().halt(0);
    }

    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
