package io.subetha.cxc.benchmarks;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobOptions;
import io.subetha.cxc.scheduling.RetryPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * cxc's BackgroundScheduler on a file: two worker threads (this machine's cores) that receive
 * (parking 20 µs while the queue is empty), run the probe, then {@code complete} it or {@code fail}
 * it; the submitting thread collects the results, which is when a job is done.
 */
final class CxcJobRunner implements JobRunner {

    private static final long PID = ProcessHandle.current().pid();
    private static final int CAPACITY = 4096;

    private final ScratchDirectory dir;
    private final BackgroundScheduler<Long, Long> scheduler;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> workers = new ArrayList<>();

    CxcJobRunner(ScratchDirectory dir) {
        this.dir = dir;
        this.scheduler =
                BackgroundScheduler.TYPE.create(
                        dir.resolve("jobs.sched"),
                        new BackgroundScheduler.Settings<>(
                                CAPACITY, FixedCodec.INT64, FixedCodec.INT64));
    }

    @Override
    public String name() {
        return "cxc BackgroundScheduler (file, 2 worker threads)";
    }

    @Override
    public OptionalDouble deadWorkerMillis() throws Exception {
        // The existing two-JVM measurement: a child holds a job, is SIGKILLed, this process's
        // next receive past the watchdog's scan takes it.
        OptionalDouble ms =
                OptionalDouble.of(SchedulerVsDbScheduler.cxcRecovery(dir.resolve("dead.sched")));
        for (int w = 0; w < 2; w++) {
            Thread t = new Thread(this::work, "cxc-worker-" + w);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        return ms;
    }

    private void work() {
        while (!stop.get()) {
            Optional<Job<Long>> job = scheduler.receive(PID);
            if (job.isEmpty()) {
                // Park, as the starter's idle pool does (20 µs, doubling there to 2 ms): on a
                // loaded host a yielding worker is descheduled for a whole slice (PERFORMANCE.md).
                LockSupport.parkNanos(20_000);
                continue;
            }
            try {
                JobProbe.handle(job.get().payload());
                scheduler.complete(job.get(), job.get().payload());
            } catch (RuntimeException e) {
                scheduler.fail(job.get(), e);
            }
        }
    }

    @Override
    public double jobsPerSecond(int jobs) {
        long start = System.nanoTime();
        int submitted = 0;
        int done = 0;
        while (done < jobs) {
            while (submitted < jobs && scheduler.trySubmit((long) submitted) >= 0) {
                submitted++;
            }
            int taken = scheduler.collector().take(CAPACITY).size();
            done += taken;
            if (taken == 0) {
                Thread.yield();
            }
        }
        return jobs * 1e9 / (System.nanoTime() - start);
    }

    @Override
    public long loneStartNanos() {
        JobProbe.LAST_START.set(0);
        long submitted = System.nanoTime();
        scheduler.submit(0L);
        long started = JobProbe.await(JobProbe.LAST_START::get, 30, "cxc's lone job");
        JobProbe.await(() -> scheduler.collector().take(1).size(), 30, "cxc's lone result");
        return started - submitted;
    }

    @Override
    public double retryMillis() {
        JobProbe.reset();
        scheduler.submit(
                JobProbe.RETRY, JobOptions.DEFAULT.withRetry(RetryPolicy.fixed(2, BACKOFF)));
        long failed = JobProbe.await(JobProbe.FAILED_AT::get, 30, "cxc's first attempt");
        long retried = JobProbe.await(JobProbe.RETRIED_AT::get, 30, "cxc's retry");
        JobProbe.await(() -> scheduler.collector().take(1).size(), 30, "cxc's retry result");
        return (retried - failed) / 1e6;
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread t : workers) {
            t.join();
        }
        scheduler.close();
    }
}
