package io.subetha.cxc.docs.examples;

// docs:begin scheduler-core
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.*;   // BackgroundScheduler, JobResult
// docs:end scheduler-core
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The background scheduler in plain Java: submit, work, collect, and its timetable. */
class SchedulerCoreExample {

    private static final Logger log = LoggerFactory.getLogger(SchedulerCoreExample.class);

    void scheduler() throws Exception {
        // docs:begin scheduler-core

        Path file = Path.of("/dev/shm/myapp/jobs.scheduler");
        long me = ProcessHandle.current().pid();

        // Submitter (any process): a job id back, CxcCapacityException when full.
        var settings = new BackgroundScheduler.Settings<>(4096, FixedCodec.INT64, FixedCodec.INT64);
        var scheduler = BackgroundScheduler.openOrCreate(file, settings);
        long id = scheduler.submit(42L);

        // Worker (another process, same call to open): claim, run, record the result once. With a
        // timeout it sleeps on the file's doorbell until a submit in any process rings it (or a retry
        // or timetable entry falls due); receive(me) alone looks once.
        var worker = BackgroundScheduler.openOrCreate(file, settings);
        worker.receive(me, Duration.ofSeconds(1)).ifPresent(job -> {
            boolean recorded = worker.complete(job, job.payload() * 2); // false: re-dispatched meanwhile
        });

        // Collector (any process): results in completion order, each taken by exactly one poll.
        for (JobResult<Long> r : scheduler.collector().poll(100)) {
            log.info("job {} -> {} (attempt {})", r.jobId(), r.result(), r.attempt());
        }
        // docs:end scheduler-core
    }

    void timetable(BackgroundScheduler<Long, Long> scheduler) {
        // docs:begin timetable
        // Every copy may run this at start: one entry per name, its due time kept if unchanged.
        scheduler.schedule("nightly-report", Recurrence.fixedRate(Duration.ofHours(24)), 42L);
        scheduler.schedule("cleanup", Recurrence.fixedDelay(Duration.ofMinutes(5)), 7L,
                JobOptions.fireAndForget().withDue(Instant.now()));     // first fire at once
        long delayed = scheduler.submit(9L, JobOptions.after(Duration.ofMinutes(10))); // DELAYED
        scheduler.timetable().forEach(e -> log.info(e.summary()));   // also in /actuator/cxc
        scheduler.unschedule("cleanup");
        // docs:end timetable
    }
}
