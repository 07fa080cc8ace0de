package io.subetha.cxc.console;

import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.JobEntry;
import io.subetha.cxc.scheduling.JobFailure;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Every scheduler's jobs, a page at a time and filtered by state on the server (a scheduler may
 * hold a million), and every fan-out's depth per priority.
 */
public final class JobBoard {

    /** The most jobs one page holds. */
    public static final int MAX_PAGE_SIZE = PageWindow.MAX_SIZE;

    private final PrimitiveRegistry registry;
    private final Schedulers schedulers;
    private final RunningSince runningSince;

    public JobBoard(PrimitiveRegistry registry, Clock clock) {
        this.registry = registry;
        this.schedulers = new Schedulers(registry);
        this.runningSince = new RunningSince(clock);
    }

    /**
     * A scheduler's counts, a moment's view.
     *
     * @param scheduled recurring and delayed entries in its timetable
     * @param pausedSinceMillis when an operator paused its dispatch (in every process), else null
     */
    public record SchedulerSummary(
            String name,
            int capacity,
            long queued,
            long running,
            long done,
            long failed,
            int scheduled,
            long reclaimed,
            long collected,
            @Nullable Long pausedSinceMillis) {}

    /**
     * One job on a page.
     *
     * @param state queued, running, done (not yet collected) or failed (not yet re-run or deleted)
     * @param pid the worker's PID while running, else null
     * @param attempt the attempts it has had: a failed job's spent ones
     * @param runningForMillis how long this console has seen this attempt running, else null
     * @param exceptionClass a failed job's last exception's class, else null
     * @param message a failed job's last exception's message, else null
     */
    public record JobView(
            long id,
            String state,
            @Nullable Long pid,
            long attempt,
            @Nullable Long runningForMillis,
            @Nullable String exceptionClass,
            @Nullable String message) {}

    /**
     * A page of one scheduler's jobs, oldest first.
     *
     * @param state the filter, null for every state
     * @param total how many jobs match the filter
     * @param pages how many pages they fill (at least 1)
     */
    public record JobPage(
            String scheduler,
            @Nullable String state,
            int page,
            int size,
            long total,
            int pages,
            List<JobView> jobs) {}

    /** A fan-out's items waiting at each priority, 0 the highest. */
    public record FanoutDepth(String name, int capacityPerPriority, List<Long> depthByPriority) {}

    public List<SchedulerSummary> schedulers() {
        List<SchedulerSummary> summaries = new ArrayList<>();
        for (BackgroundScheduler<?, ?> scheduler : schedulers.all()) {
            BackgroundScheduler.Counts counts = scheduler.counts();
            summaries.add(
                    new SchedulerSummary(
                            scheduler.name(),
                            scheduler.capacity(),
                            counts.queued(),
                            counts.running(),
                            counts.done(),
                            counts.failed(),
                            scheduler.timetable().size(),
                            counts.reclaimed(),
                            counts.collected(),
                            scheduler
                                    .dispatch()
                                    .pausedSince()
                                    .map(Instant::toEpochMilli)
                                    .orElse(null)));
        }
        return summaries;
    }

    /**
     * @param state "queued", "running", "done", "failed" or null for all
     * @param page from 0
     * @throws io.subetha.cxc.console.ConsoleRequestException for an unknown scheduler or state, a
     *     page size outside 1..{@link #MAX_PAGE_SIZE}, or a page past the last
     */
    public JobPage page(String schedulerName, @Nullable String state, int page, int size) {
        BackgroundScheduler<?, ?> scheduler = schedulers.require(schedulerName);
        JobEntry.State filter = state == null || state.isEmpty() ? null : parse(state);
        PageWindow.requireValid(page, size); // before the scan
        List<JobEntry> all = scheduler.jobs();
        runningSince.keep(scheduler.name(), all);
        List<JobEntry> matching =
                filter == null ? all : all.stream().filter(j -> j.state() == filter).toList();
        PageWindow window = PageWindow.of(matching.size(), page, size, "jobs");
        List<JobView> jobs =
                window.of(matching).stream().map(j -> view(scheduler.name(), j)).toList();
        return new JobPage(
                scheduler.name(),
                filter == null ? null : lower(filter),
                page,
                size,
                window.total(),
                window.pages(),
                jobs);
    }

    public List<FanoutDepth> fanouts() {
        List<FanoutDepth> depths = new ArrayList<>();
        for (ObservedPrimitive primitive : registry.primitives()) {
            if (primitive instanceof PriorityFanout<?> fanout && !fanout.isClosed()) {
                List<Long> byPriority = new ArrayList<>();
                for (int p = 0; p < PriorityFanout.MAX_PRIORITIES; p++) {
                    byPriority.add(fanout.depth(p));
                }
                depths.add(
                        new FanoutDepth(fanout.name(), fanout.capacityPerPriority(), byPriority));
            }
        }
        return depths;
    }

    private JobView view(String scheduler, JobEntry job) {
        boolean running = job.state() == JobEntry.State.RUNNING;
        JobFailure failure = job.failure();
        return new JobView(
                job.id(),
                lower(job.state()),
                running && job.pid() != 0 ? job.pid() : null,
                job.attempt(),
                running ? runningSince.millisRunning(scheduler, job) : null,
                failure == null ? null : failure.exceptionClass(),
                failure == null ? null : failure.message());
    }

    private static JobEntry.State parse(String state) {
        for (JobEntry.State s : JobEntry.State.values()) {
            if (lower(s).equals(state)) {
                return s;
            }
        }
        throw ConsoleRequestException.badRequest(
                "state must be one of "
                        + Arrays.stream(JobEntry.State.values())
                                .map(JobBoard::lower)
                                .collect(Collectors.joining(", "))
                        + ", got \""
                        + state
                        + "\"");
    }

    private static String lower(JobEntry.State state) {
        return state.name().toLowerCase(Locale.ROOT);
    }
}
