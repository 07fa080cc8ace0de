package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.process.Pids;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobResult;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * Submits jobs, receives, runs and completes them, and collects results one at a time (so a
 * collector killed inside a poll can have taken at most one result with it).
 */
final class SchedulerLoad implements Load {

    /** A job's result is its payload with these bits flipped: a result names its job's payload. */
    static final long RESULT_MASK = 0x5DEE_CE66_DL;

    private final BackgroundScheduler<Long, Long> scheduler;
    private final History history;
    private final long pid = Pids.current();
    private long submitted;

    SchedulerLoad(BackgroundScheduler<Long, Long> scheduler, History history) {
        this.scheduler = scheduler;
        this.history = history;
    }

    static long resultOf(long payload) {
        return payload ^ RESULT_MASK;
    }

    @Override
    public Family family() {
        return Family.SCHEDULER;
    }

    @Override
    public void step(Random random) {
        double dice = random.nextDouble();
        if (dice < 0.4) {
            submit();
        } else if (dice < 0.75) {
            work();
        } else {
            collect();
        }
    }

    private void submit() {
        long payload = Load.id(history.worker(), ++submitted);
        history.log(Family.SCHEDULER, "submit-begin", payload);
        long id = scheduler.trySubmit(payload);
        if (id < 0) {
            history.log(Family.SCHEDULER, "full", payload);
        } else {
            history.log(Family.SCHEDULER, "submitted", id, payload);
        }
    }

    private void work() {
        Optional<Job<Long>> received = scheduler.receive(pid);
        if (received.isEmpty()) {
            return;
        }
        Job<Long> job = received.get();
        history.log(Family.SCHEDULER, "received", job.id(), job.attempt(), job.payload());
        history.log(Family.SCHEDULER, "complete-begin", job.id(), job.attempt());
        boolean recorded = scheduler.complete(job, resultOf(job.payload()));
        history.log(Family.SCHEDULER, "completed", job.id(), job.attempt(), recorded);
    }

    private void collect() {
        history.log(Family.SCHEDULER, "collect-begin");
        List<JobResult<Long>> results = scheduler.collector().take(1);
        if (results.isEmpty()) {
            history.log(Family.SCHEDULER, "collected-none");
        }
        for (JobResult<Long> r : results) {
            history.log(Family.SCHEDULER, "collected", r.jobId(), r.attempt(), r.result());
        }
    }
}
