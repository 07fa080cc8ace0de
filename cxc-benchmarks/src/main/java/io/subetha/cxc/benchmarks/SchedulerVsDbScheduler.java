package io.subetha.cxc.benchmarks;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import org.h2.tools.Server;

/**
 * BackgroundScheduler against db-scheduler (16.x on H2 in memory, its documented setup for tests),
 * in one harness on this machine: throughput of jobs submitted → executed → result recorded, in 1
 * process and with 3 worker processes; and dead-worker recovery, the time from SIGKILLing a worker
 * that holds a job until another worker runs it. db-scheduler's workers record a result as a row
 * ({@code MERGE} into a results table), ours through {@code complete}.
 *
 * <p>Run: {@code java -cp cxc-benchmarks/target/benchmarks.jar
 * io.subetha.cxc.benchmarks.SchedulerVsDbScheduler [cxcJobs dbJobs recoveries]}.
 */
public final class SchedulerVsDbScheduler {

    private static final long PID = ProcessHandle.current().pid();

    /** db-scheduler's tightest failover: no lower bound on the heartbeat, at least 4 missed. */
    static final Duration DB_TIGHT_HEARTBEAT = Duration.ofMillis(50);

    static final int DB_TIGHT_MISSED = 4;
    static final Duration DB_POLL = Duration.ofMillis(10);

    private SchedulerVsDbScheduler() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].startsWith("child-")) {
            child(args);
            return;
        }
        int cxcJobs = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int dbJobs = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        int recoveries = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        try (ScratchDirectory dir = ScratchDirectory.create()) {
            double cxc1 = cxcOneProcess(dir.resolve("one.sched"), cxcJobs);
            report("cxc BackgroundScheduler, 1 process (2 worker threads)", cxcJobs, cxc1);
            double db1 = dbOneProcess(dbJobs);
            report("db-scheduler on H2 mem, 1 process (10 threads, poll 10 ms)", dbJobs, db1);
            double cxc3 = cxcThreeProcesses(dir.resolve("three.sched"), cxcJobs);
            report("cxc BackgroundScheduler, 3 worker processes", cxcJobs, cxc3);
            double db3 = dbThreeProcesses(dbJobs);
            report(
                    "db-scheduler on H2 mem (TCP), 3 worker processes (10 threads each)",
                    dbJobs,
                    db3);
            System.out.printf(
                    "ratio 1 process: %.0fx; 3 processes: %.0fx%n", cxc1 / db1, cxc3 / db3);
            List<Double> ours = new ArrayList<>();
            for (int i = 0; i < recoveries; i++) {
                ours.add(cxcRecovery(dir.resolve("recovery-" + i + ".sched")));
            }
            System.out.println("cxc recovery after SIGKILL, ms: " + ours);
            List<Double> theirs = new ArrayList<>();
            for (int i = 0; i < recoveries; i++) {
                theirs.add(dbRecovery(i));
            }
            System.out.println(
                    "db-scheduler recovery after SIGKILL (heartbeat 50 ms, 4 missed, poll 10 ms),"
                            + " ms: "
                            + theirs);
            System.out.println(
                    "db-scheduler defaults (heartbeat 5 min, 6 missed): a dead worker's job waits"
                            + " >= 30 min (not run)");
        }
    }

    private static void report(String what, int jobs, double perSecond) {
        System.out.printf("%-62s %,10d jobs %,12.0f jobs/s%n", what, jobs, perSecond);
    }

    // ------------------------------------------------------------------------------- cxc

    static long resultOf(long job) {
        return job * 7 + 1;
    }

    private static double cxcOneProcess(Path path, int jobs) throws Exception {
        try (BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                4096, FixedCodec.INT64, FixedCodec.INT64))) {
            AtomicBoolean done = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                threads.add(new Thread(() -> work(s, done)));
            }
            long start = System.nanoTime();
            threads.forEach(Thread::start);
            submitAndCollect(s, jobs);
            long elapsed = System.nanoTime() - start;
            done.set(true);
            for (Thread t : threads) {
                t.join();
            }
            return jobs * 1e9 / elapsed;
        }
    }

    private static void work(BackgroundScheduler<Long, Long> s, AtomicBoolean done) {
        while (!done.get()) {
            Optional<Job<Long>> job = s.receive(PID);
            if (job.isPresent()) {
                s.complete(job.get(), resultOf(job.get().payload()));
            } else {
                Thread.yield();
            }
        }
    }

    /** Submits {@code jobs} jobs as room allows and collects every result; checks each once. */
    private static void submitAndCollect(BackgroundScheduler<Long, Long> s, int jobs) {
        long next = 0;
        int collected = 0;
        boolean[] seen = new boolean[jobs];
        while (collected < jobs) {
            while (next < jobs && s.trySubmit(next) >= 0) {
                next++;
            }
            List<JobResult<Long>> results = s.collector().take(4096);
            for (JobResult<Long> r : results) {
                // Ids are positions: job n is id n here, since this is the only submitter.
                if (seen[(int) r.jobId()] || r.result() != resultOf(r.jobId())) {
                    throw new IllegalStateException("result of job " + r.jobId() + " is wrong");
                }
                seen[(int) r.jobId()] = true;
                collected++;
            }
            if (results.isEmpty()) {
                Thread.yield();
            }
        }
    }

    private static double cxcThreeProcesses(Path path, int jobs) throws Exception {
        BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                4096, FixedCodec.INT64, FixedCodec.INT64));
        List<Child> workers = new ArrayList<>();
        try {
            for (int w = 0; w < 3; w++) {
                workers.add(Child.start("child-cxc-worker", path.toString()));
            }
            for (Child w : workers) {
                w.await("ready");
            }
            long start = System.nanoTime();
            submitAndCollect(s, jobs);
            return jobs * 1e9 / (System.nanoTime() - start);
        } finally {
            workers.forEach(Child::kill);
            s.close();
        }
    }

    static double cxcRecovery(Path path) throws Exception {
        try (BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                16, FixedCodec.INT64, FixedCodec.INT64))) {
            Child holder = Child.start("child-cxc-hold", path.toString());
            try {
                holder.await("ready");
                long id = s.submit(1L);
                holder.await("holding");
                s.receive(PID); // registered and scanned before the kill, as a running worker is
                long start = holder.killNow();
                while (true) {
                    Optional<Job<Long>> job = s.receive(PID);
                    if (job.isPresent() && job.get().id() == id) {
                        return (System.nanoTime() - start) / 1e6;
                    }
                    Thread.onSpinWait();
                }
            } finally {
                holder.kill();
            }
        }
    }

    // ------------------------------------------------------------------------- db-scheduler

    private static final String TABLES =
            "create table scheduled_tasks (task_name varchar(100), task_instance varchar(100),"
                    + " task_data blob, execution_time timestamp with time zone, picked bit,"
                    + " picked_by varchar(50), last_success timestamp with time zone,"
                    + " last_failure timestamp with time zone, consecutive_failures int,"
                    + " last_heartbeat timestamp with time zone, version bigint, priority"
                    + " smallint, primary key (task_name, task_instance));"
                    + " create table results (id bigint primary key, result bigint)";

    static OneTimeTask<Long> recordingTask(DataSource ds) {
        return Tasks.oneTime("job", Long.class)
                .onDeadExecutionRevive()
                .execute(
                        (instance, context) -> {
                            try (Connection c = ds.getConnection();
                                    PreparedStatement st =
                                            c.prepareStatement(
                                                    "merge into results key(id) values (?, ?)")) {
                                st.setLong(1, instance.getData());
                                st.setLong(2, resultOf(instance.getData()));
                                st.executeUpdate();
                            } catch (SQLException e) {
                                throw new IllegalStateException(e);
                            }
                        });
    }

    private static JdbcConnectionPool pool(String url) {
        JdbcConnectionPool pool = JdbcConnectionPool.create(url, "sa", "");
        pool.setMaxConnections(32);
        return pool;
    }

    private static void createTables(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            for (String sql : TABLES.split(";")) {
                st.execute(sql);
            }
        }
    }

    private static long results(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select count(*) from results")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static double dbOneProcess(int jobs) throws Exception {
        JdbcConnectionPool ds = pool("jdbc:h2:mem:dbone;DB_CLOSE_DELAY=-1");
        createTables(ds);
        OneTimeTask<Long> task = recordingTask(ds);
        Scheduler scheduler =
                Scheduler.create(ds, task)
                        .threads(10)
                        .pollingInterval(DB_POLL)
                        .enableImmediateExecution()
                        .build();
        scheduler.start();
        try {
            long start = System.nanoTime();
            for (long j = 0; j < jobs; j++) {
                scheduler.schedule(task.instance("j" + j, j), Instant.now());
            }
            while (results(ds) < jobs) {
                TimeUnit.MILLISECONDS.sleep(2);
            }
            return jobs * 1e9 / (System.nanoTime() - start);
        } finally {
            scheduler.stop();
            ds.dispose();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static double dbThreeProcesses(int jobs) throws Exception {
        int port = freePort();
        Server server = Server.createTcpServer("-tcpPort", "" + port, "-ifNotExists").start();
        String url = "jdbc:h2:tcp://localhost:" + port + "/mem:dbthree;DB_CLOSE_DELAY=-1";
        JdbcConnectionPool ds = pool(url);
        List<Child> workers = new ArrayList<>();
        try {
            createTables(ds);
            for (int w = 0; w < 3; w++) {
                workers.add(Child.start("child-db-worker", url));
            }
            for (Child w : workers) {
                w.await("ready");
            }
            SchedulerClient client = SchedulerClient.Builder.create(ds, recordingTask(ds)).build();
            OneTimeTask<Long> task = recordingTask(ds);
            long start = System.nanoTime();
            for (long j = 0; j < jobs; j++) {
                client.schedule(task.instance("j" + j, j), Instant.now());
            }
            while (results(ds) < jobs) {
                TimeUnit.MILLISECONDS.sleep(2);
            }
            return jobs * 1e9 / (System.nanoTime() - start);
        } finally {
            workers.forEach(Child::kill);
            ds.dispose();
            server.stop();
        }
    }

    private static double dbRecovery(int round) throws Exception {
        int port = freePort();
        Server server = Server.createTcpServer("-tcpPort", "" + port, "-ifNotExists").start();
        String url =
                "jdbc:h2:tcp://localhost:" + port + "/mem:dbrec" + round + ";DB_CLOSE_DELAY=-1";
        JdbcConnectionPool ds = pool(url);
        Child holder = null;
        Scheduler survivor = null;
        try {
            createTables(ds);
            holder = Child.start("child-db-hold", url);
            holder.await("ready");
            AtomicLong ranAt = new AtomicLong();
            CountDownLatch ran = new CountDownLatch(1);
            OneTimeTask<Long> task =
                    Tasks.oneTime("job", Long.class)
                            .onDeadExecutionRevive()
                            .execute(
                                    (instance, context) -> {
                                        ranAt.set(System.nanoTime());
                                        ran.countDown();
                                    });
            SchedulerClient.Builder.create(ds, task)
                    .build()
                    .schedule(task.instance("held", 1L), Instant.now());
            holder.await("holding");
            survivor = tight(Scheduler.create(ds, task), "survivor").build();
            survivor.start();
            long start = holder.killNow();
            if (!ran.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("db-scheduler did not re-run the job in 60 s");
            }
            return (ranAt.get() - start) / 1e6;
        } finally {
            if (holder != null) {
                holder.kill();
            }
            if (survivor != null) {
                survivor.stop();
            }
            ds.dispose();
            server.stop();
        }
    }

    static com.github.kagkarlsson.scheduler.SchedulerBuilder tight(
            com.github.kagkarlsson.scheduler.SchedulerBuilder builder, String name) {
        return builder.threads(10)
                .pollingInterval(DB_POLL)
                .heartbeatInterval(DB_TIGHT_HEARTBEAT)
                .missedHeartbeatsLimit(DB_TIGHT_MISSED)
                .schedulerName(new SchedulerName.Fixed(name));
    }

    // ------------------------------------------------------------------------------ children

    private static void child(String[] args) throws Exception {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        ProcessHandle.current()
                .parent()
                .ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(97)));
        switch (args[0]) {
            case "child-cxc-worker" -> {
                BackgroundScheduler<Long, Long> s =
                        BackgroundScheduler.open(
                                Path.of(args[1]),
                                new BackgroundScheduler.Settings<>(
                                        4096, FixedCodec.INT64, FixedCodec.INT64));
                say("ready");
                work(s, new AtomicBoolean());
            }
            case "child-cxc-hold" -> {
                BackgroundScheduler<Long, Long> s =
                        BackgroundScheduler.open(
                                Path.of(args[1]),
                                new BackgroundScheduler.Settings<>(
                                        16, FixedCodec.INT64, FixedCodec.INT64));
                say("ready");
                while (s.receive(PID).isEmpty()) {
                    Thread.onSpinWait();
                }
                say("holding");
            }
            case "child-db-worker" -> {
                JdbcConnectionPool ds = pool(args[1]);
                Scheduler scheduler =
                        tight(Scheduler.create(ds, recordingTask(ds)), "worker-" + PID).build();
                scheduler.start();
                say("ready");
            }
            case "child-db-hold" -> {
                JdbcConnectionPool ds = pool(args[1]);
                OneTimeTask<Long> task =
                        Tasks.oneTime("job", Long.class)
                                .onDeadExecutionRevive()
                                .execute(
                                        (instance, context) -> {
                                            say("holding");
                                            try {
                                                Thread.sleep(Long.MAX_VALUE);
                                            } catch (InterruptedException e) {
                                                Thread.currentThread().interrupt();
                                            }
                                        });
                tight(Scheduler.create(ds, task), "holder").build().start();
                say("ready");
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
        while (in.readLine() != null) {
            // until the parent closes stdin or kills us
        }
        Runtime.getRuntime().halt(0);
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** A child JVM on this classpath, killed with SIGKILL. */
    static final class Child {
        private final Process process;
        private final BufferedReader out;

        private Child(Process process) {
            this.process = process;
            this.out =
                    new BufferedReader(
                            new InputStreamReader(
                                    process.getInputStream(), StandardCharsets.UTF_8));
        }

        static Child start(String... args) throws IOException {
            return start(SchedulerVsDbScheduler.class, args);
        }

        /** A child JVM running {@code main} with {@code args}. */
        static Child start(Class<?> main, String... args) throws IOException {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx256m");
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(main.getName());
            command.addAll(List.of(args));
            Process p =
                    new ProcessBuilder(command)
                            .redirectError(ProcessBuilder.Redirect.INHERIT)
                            .start();
            return new Child(p);
        }

        void await(String line) throws IOException {
            String read;
            while ((read = out.readLine()) != null) {
                if (read.equals(line)) {
                    return;
                }
            }
            throw new IllegalStateException("child exited before saying " + line);
        }

        /** SIGKILL; the nanoTime just before it. */
        long killNow() throws InterruptedException {
            long start = System.nanoTime();
            process.destroyForcibly();
            process.waitFor();
            return start;
        }

        void kill() {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
