package io.subetha.cxc.benchmarks;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * A job submitted to an idle worker pool in another JVM: the child's {@code WORKERS} threads sleep
 * in {@link BackgroundScheduler#receive(long, Duration)} on the scheduler's doorbell; this JVM
 * waits {@code PAUSE} (so every worker is past its spin and yield and asleep), then submits a
 * fire-and-forget job whose payload is {@code System.nanoTime()} just before the submit; the worker
 * that receives it records how long after that stamp its receive returned (HdrHistogram, the first
 * tenth of the rounds left out as warm-up). This JVM submits the next job once the last is done.
 * Then the same with the workers polling as the starter's pool did before the doorbell: {@code
 * receive(pid)}, parking 20 µs doubling to 2 ms while it finds nothing.
 *
 * <pre>
 * java -cp cxc-benchmarks/target/benchmarks.jar io.subetha.cxc.benchmarks.SchedulerWakeLatency [ROUNDS [WORKERS]]
 * </pre>
 */
public final class SchedulerWakeLatency {

    static final long PAUSE_NANOS = 2_000_000;

    private SchedulerWakeLatency() {}

    static BackgroundScheduler.Settings<Long, Long> settings() {
        return new BackgroundScheduler.Settings<>(16, FixedCodec.INT64, FixedCodec.INT64)
                .withFireAndForget(true);
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(Path.of(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), args[4]);
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        int workers = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        run(rounds, workers, "sleep");
        run(rounds, workers, "park");
    }

    private static void run(int rounds, int workers, String mode) throws Exception {
        try (ScratchDirectory dir = ScratchDirectory.create()) {
            Path file = dir.resolve("jobs.scheduler");
            BackgroundScheduler<Long, Long> scheduler =
                    BackgroundScheduler.TYPE.create(file, settings());
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(SchedulerWakeLatency.class.getName());
            command.add("child");
            command.add(file.toString());
            command.add(Integer.toString(rounds));
            command.add(Integer.toString(workers));
            command.add(mode);
            Process child =
                    new ProcessBuilder(command)
                            .redirectError(ProcessBuilder.Redirect.INHERIT)
                            .start();
            BufferedReader out =
                    new BufferedReader(
                            new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            try {
                if (!"waiting".equals(out.readLine())) {
                    throw new IllegalStateException("the child did not start");
                }
                for (int round = 1; round <= rounds; round++) {
                    LockSupport.parkNanos(PAUSE_NANOS);
                    scheduler.submit(System.nanoTime());
                    while (!idle(scheduler)) {
                        Thread.onSpinWait();
                        if (!child.isAlive()) {
                            throw new IllegalStateException("the child died");
                        }
                    }
                }
                System.out.println(out.readLine());
            } finally {
                child.destroyForcibly();
                child.waitFor(30, TimeUnit.SECONDS);
                scheduler.close();
            }
        }
    }

    private static boolean idle(BackgroundScheduler<Long, Long> scheduler) {
        BackgroundScheduler.Counts counts = scheduler.counts();
        return counts.queued() == 0 && counts.running() == 0;
    }

    private static void child(Path file, int rounds, int workers, String mode) throws Exception {
        BackgroundScheduler<Long, Long> scheduler = BackgroundScheduler.open(file, settings());
        long pid = ProcessHandle.current().pid();
        Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        CountDownLatch done = new CountDownLatch(rounds);
        for (int w = 0; w < workers; w++) {
            Thread worker =
                    new Thread(
                            () -> {
                                long idle = 0;
                                while (true) {
                                    Optional<Job<Long>> job =
                                            mode.equals("sleep")
                                                    ? scheduler.receive(pid, Duration.ofHours(1))
                                                    : scheduler.receive(pid);
                                    if (job.isEmpty()) {
                                        // "park": the starter's pool before the doorbell.
                                        idle = Math.min(Math.max(idle * 2, 20_000), 2_000_000);
                                        LockSupport.parkNanos(idle);
                                        continue;
                                    }
                                    idle = 0;
                                    long now = System.nanoTime();
                                    synchronized (histogram) {
                                        if (done.getCount() <= rounds - rounds / 10) {
                                            histogram.recordValue(
                                                    Math.max(0, now - job.get().payload()));
                                        }
                                    }
                                    scheduler.complete(job.get(), 0L);
                                    done.countDown();
                                }
                            },
                            "worker-" + w);
            worker.setDaemon(true);
            worker.start();
        }
        System.out.println("waiting");
        System.out.flush();
        done.await();
        synchronized (histogram) {
            System.out.printf(
                    "submit → start in an idle pool of %d threads in another JVM, %s (ns, %d"
                            + " rounds): p50 %d p90 %d p99 %d p99.9 %d max %d%n",
                    workers,
                    mode.equals("sleep") ? "asleep on the doorbell" : "parking (before)",
                    rounds,
                    histogram.getValueAtPercentile(50),
                    histogram.getValueAtPercentile(90),
                    histogram.getValueAtPercentile(99),
                    histogram.getValueAtPercentile(99.9),
                    histogram.getMaxValue());
        }
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
