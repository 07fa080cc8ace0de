package io.subetha.cxc.boot.actuate.endpoint;

import io.subetha.cxc.boot.scheduling.JobLimits;
import io.subetha.cxc.boot.scheduling.SchedulerHistory;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.JobEntry;
import java.security.Principal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@code /actuator/cxcjobs}: each declared scheduler's counts, its {@code FAILED} jobs (exception
 * class, message, attempts), its history (last runs of every instance, and totals) and its job
 * types' limits with their use; {@code POST /actuator/cxcjobs/<name>/<id>} re-runs a failed job,
 * {@code DELETE} deletes it; {@code POST /actuator/cxcjobs/<name>} with {@code {"paused": true}}
 * pauses its dispatch in every process sharing its file ({@code false} resumes it). Any instance
 * sharing the files answers the same.
 */
@Endpoint(id = "cxcjobs")
public class SchedulerJobsEndpoint {

    private static final Log logger = LogFactory.getLog(SchedulerJobsEndpoint.class);

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

    /**
     * Pauses ({@code paused} true) or resumes a scheduler's dispatch in every process: true if that
     * changed it, false if it was so already (or there is no such scheduler).
     */
    @WriteOperation
    public boolean dispatch(@Selector String name, boolean paused, SecurityContext security) {
        BackgroundScheduler<?, ?> scheduler = workers.schedulers().get(name);
        if (scheduler == null) {
            return false;
        }
        boolean changed = paused ? scheduler.dispatch().pause() : scheduler.dispatch().resume();
        if (changed) {
            Principal who = security.getPrincipal();
            logger.info(
                    "cxc: "
                            + (who == null ? "anonymous" : who.getName())
                            + (paused ? " paused" : " resumed")
                            + " the dispatch of scheduler '"
                            + name
                            + "' (/actuator/cxcjobs)");
        }
        return changed;
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
                scheduler.dispatch().pausedSince().orElse(null),
                failed,
                last,
                history == null ? null : history.totals(),
                workers.limits(name).map(JobLimits::use).orElse(Map.of()));
    }

    /**
     * One scheduler as the endpoint shows it.
     *
     * @param pausedSince when its dispatch was paused, null while it dispatches
     * @param history its last runs, newest first (empty without a history)
     * @param totals every run its history recorded, by outcome (null without one)
     * @param limits each limited job type's limit and its jobs running now in every instance
     *     ({@code cxc.schedulers.<name>.limits}; empty without)
     */
    public record SchedulerJobs(
            BackgroundScheduler.Counts counts,
            @Nullable Instant pausedSince,
            List<JobEntry> failed,
            List<SchedulerHistory.Entry> history,
            SchedulerHistory.@Nullable Totals totals,
            Map<String, JobLimits.Use> limits) {}
}
