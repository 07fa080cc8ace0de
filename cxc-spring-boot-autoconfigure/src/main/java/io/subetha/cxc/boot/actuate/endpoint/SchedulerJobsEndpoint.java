package io.subetha.cxc.boot.actuate.endpoint;

import io.subetha.cxc.boot.scheduling.JobLimits;
import io.subetha.cxc.boot.scheduling.SchedulerHistory;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.JobEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@code /actuator/cxcjobs}: each declared scheduler's counts, its {@code FAILED} jobs (exception
 * class, message, attempts), its history (last runs of every instance, and totals) and its job
 * types' limits with their use; {@code POST /actuator/cxcjobs/<name>/<id>} re-runs a failed job,
 * {@code DELETE} deletes it. Any instance sharing the files answers the same.
 */
@Endpoint(id = "cxcjobs")
public class SchedulerJobsEndpoint {

    private final SchedulerWorkers workers;

    public SchedulerJobsEndpoint(SchedulerWorkers workers) {
        this.workers = workers;
    }

    @ReadOperation
    public Map<String, SchedulerJobs> schedulers() {
        Map<String, SchedulerJobs> all = new LinkedHashMap<>();
        workers.schedulers().forEach((name, scheduler) -> all.put(name, jobs(name, scheduler)));
        return all;
    }

    @ReadOperation
    public @Nullable SchedulerJobs scheduler(@Selector String name) {
        BackgroundScheduler<?, ?> scheduler = workers.schedulers().get(name);
        return scheduler == null ? null : jobs(name, scheduler);
    }

    /** Re-runs failed job {@code id}: true if it was FAILED and is queued again. */
    @WriteOperation
    public boolean rerun(@Selector String name, @Selector long id) {
        BackgroundScheduler<?, ?> scheduler = workers.schedulers().get(name);
        return scheduler != null && scheduler.rerun(id);
    }

    /** Deletes failed job {@code id}: true if it was FAILED and its slot is free. */
    @DeleteOperation
    public boolean delete(@Selector String name, @Selector long id) {
        BackgroundScheduler<?, ?> scheduler = workers.schedulers().get(name);
        return scheduler != null && scheduler.delete(id);
    }

    private SchedulerJobs jobs(String name, BackgroundScheduler<?, ?> scheduler) {
        List<JobEntry> failed =
                scheduler.jobs().stream()
                        .filter(job -> job.state() == JobEntry.State.FAILED)
                        .toList();
        SchedulerHistory history = workers.history(name).orElse(null);
        List<SchedulerHistory.Entry> last =
                history == null ? new ArrayList<>() : new ArrayList<>(history.last(history.size()));
        Collections.reverse(last);
        return new SchedulerJobs(
                scheduler.counts(),
                failed,
                last,
                history == null ? null : history.totals(),
                workers.limits(name).map(JobLimits::use).orElse(Map.of()));
    }

    /**
     * One scheduler as the endpoint shows it.
     *
     * @param history its last runs, newest first (empty without a history)
     * @param totals every run its history recorded, by outcome (null without one)
     * @param limits each limited job type's limit and its jobs running now in every instance
     *     ({@code cxc.schedulers.<name>.limits}; empty without)
     */
    public record SchedulerJobs(
            BackgroundScheduler.Counts counts,
            List<JobEntry> failed,
            List<SchedulerHistory.Entry> history,
            SchedulerHistory.@Nullable Totals totals,
            Map<String, JobLimits.Use> limits) {}
}
