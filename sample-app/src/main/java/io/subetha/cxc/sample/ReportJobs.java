package io.subetha.cxc.sample;

import io.subetha.cxc.boot.JobHandler;
import io.subetha.cxc.boot.scheduling.SchedulerHistory;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobEntry;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The jobs of the scheduler {@code reports} (declared by {@code cxc.schedulers.reports.*}, the file
 * {@code <cxc.directory>/reports.scheduler}), run by every copy's worker pool: the recurring job
 * {@code tick} (fired once per due time across every copy, by whichever polls first), and the jobs
 * {@code POST /reports/flaky} (fails its first attempt, succeeds on the retry, here or in another
 * copy) and {@code POST /reports/broken} (fails every attempt, then is FAILED until re-run or
 * deleted, in {@code /actuator/cxcjobs}) submit. {@code GET /reports} shows the timetable, the
 * ticks this copy ran, the runs of every copy from the scheduler's history, and the failed jobs.
 */
@RestController
public class ReportJobs implements JobHandler<Long, Long> {

    static final long TICK = 0;
    static final long FLAKY = 1;
    static final long BROKEN = 2;

    private static final Logger logger = LoggerFactory.getLogger(ReportJobs.class);

    private final List<Long> ticks = new ArrayList<>();
    // The scheduler is opened with this bean's codecs, so it comes later than this bean.
    private final ObjectProvider<BackgroundScheduler<Long, Long>> reports;
    private final ObjectProvider<SchedulerWorkers> workers; // runs this bean: also later

    public ReportJobs(
            @Qualifier("reports") ObjectProvider<BackgroundScheduler<Long, Long>> reports,
            ObjectProvider<SchedulerWorkers> workers) {
        this.reports = reports;
        this.workers = workers;
    }

    @Override
    public String scheduler() {
        return "reports";
    }

    @Override
    public FixedCodec<Long> jobCodec() {
        return FixedCodec.INT64;
    }

    @Override
    public FixedCodec<Long> resultCodec() {
        return FixedCodec.INT64;
    }

    @Override
    public Long handle(Job<Long> job) {
        long kind = job.payload();
        if (kind == TICK) {
            synchronized (ticks) {
                ticks.add(job.id());
            }
            logger.info("ran tick job {}", job.id());
        } else if (kind == BROKEN || (kind == FLAKY && job.attempt() == 1)) {
            throw new IllegalStateException(
                    "report service unavailable (attempt " + job.attempt() + ")");
        }
        return kind;
    }

    @Override
    public String type(Job<Long> job) {
        return job.payload() == TICK ? "tick" : job.payload() == FLAKY ? "flaky" : "broken";
    }

    @PostMapping("/reports/flaky")
    String submitFlaky() {
        return "submitted flaky job " + reports.getObject().submit(FLAKY) + "\n";
    }

    @PostMapping("/reports/broken")
    String submitBroken() {
        return "submitted broken job " + reports.getObject().submit(BROKEN) + "\n";
    }

    /**
     * Nobody needs the submitted jobs' results: take them, so their slots are free for the next
     * jobs (the recurring job's are discarded as each run ends).
     */
    @Scheduled(fixedDelay = 1000)
    void collect() {
        BackgroundScheduler<Long, Long> scheduler = reports.getIfAvailable();
        if (scheduler != null && !scheduler.isClosed()) {
            scheduler.collector().take(1024);
        }
    }

    @GetMapping("/reports")
    String status() {
        BackgroundScheduler<Long, Long> scheduler = reports.getObject();
        StringBuilder out = new StringBuilder();
        scheduler
                .timetable()
                .forEach(e -> out.append("timetable: ").append(e.summary()).append('\n'));
        synchronized (ticks) {
            out.append("this instance (pid ")
                    .append(ProcessHandle.current().pid())
                    .append(") ran tick ")
                    .append(ticks.size())
                    .append(" times: jobs ")
                    .append(ticks)
                    .append('\n');
        }
        workers.getObject()
                .history("reports")
                .ifPresent(
                        history -> {
                            for (SchedulerHistory.Entry run : history.last(history.size())) {
                                if (!run.type().equals("tick")) {
                                    out.append("history: job ")
                                            .append(run.jobId())
                                            .append(' ')
                                            .append(run.type())
                                            .append(" attempt ")
                                            .append(run.attempt())
                                            .append(' ')
                                            .append(run.outcome())
                                            .append(" on pid ")
                                            .append(run.pid())
                                            .append('\n');
                                }
                            }
                        });
        for (JobEntry job : scheduler.jobs()) {
            if (job.state() == JobEntry.State.FAILED) {
                out.append("failed: job ")
                        .append(job.id())
                        .append(" after ")
                        .append(job.attempt())
                        .append(" attempts: ")
                        .append(job.failure() == null ? "" : job.failure().exceptionClass())
                        .append(": ")
                        .append(job.failure() == null ? "" : job.failure().message())
                        .append('\n');
            }
        }
        return out.toString();
    }
}
