package io.subetha.cxc.console;

import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.JobEntry;
import java.time.Clock;
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
    public static final int MAX_PAGE_SIZE = 200;

    private final PrimitiveRegistry registry;
    private final RunningSince runningSince;

    public JobBoard(PrimitiveRegistry registry, Clock clock) {
        this.registry = registry;
        this.runningSince = new RunningSince(clock);
    }

    /** A scheduler's counts, a moment's view. */
    public record SchedulerSummary(
            String name,
            int capacity,
            long queued,
            long running,
            long done,
            long reclaimed,
            long collected) {}

    /**
     * One job on a page.
     *
     * @param state queued, running or done (not yet collected)
     * @param pid the worker's PID while running, else null
     * @param runningForMillis how long this console has seen this attempt running, else null
     */
    public record JobView(
            long id,
            String state,
            @Nullable Long pid,
            long attempt,
            @Nullable Long runningForMillis) {}

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
        for (BackgroundScheduler<?, ?> scheduler : schedulerList()) {
            BackgroundScheduler.Counts counts = scheduler.counts();
            summaries.add(
                    new SchedulerSummary(
                            scheduler.name(),
                            scheduler.capacity(),
                            counts.queued(),
                            counts.running(),
                            counts.done(),
                            counts.reclaimed(),
                            counts.collected()));
        }
        return summaries;
    }

    /**
     * @param state "queued", "running", "done" or null for all
     * @param page from 0
     * @throws io.subetha.cxc.console.ConsoleRequestException for an unknown scheduler or state, a
     *     page size outside 1..{@link #MAX_PAGE_SIZE}, or a page past the last
     */
    public JobPage page(String schedulerName, @Nullable String state, int page, int size) {
        BackgroundScheduler<?, ?> scheduler =
                schedulerList().stream()
                        .filter(s -> s.name().equals(schedulerName))
                        .findFirst()
                        .orElseThrow(
                                () ->
                                        ConsoleRequestException.notFound(
                                                "no scheduler named \""
                                                        + schedulerName
                                                        + "\"; the application has "
                                                        + names(schedulerList())));
        JobEntry.State filter = state == null || state.isEmpty() ? null : parse(state);
        if (size < 1 || size > MAX_PAGE_SIZE) {
            throw ConsoleRequestException.badRequest(
                    "size must be in 1.." + MAX_PAGE_SIZE + ", got " + size);
        }
        if (page < 0) {
            throw ConsoleRequestException.badRequest("page must be 0 or more, got " + page);
        }
        List<JobEntry> all = scheduler.jobs();
        runningSince.keep(scheduler.name(), all);
        List<JobEntry> matching =
                filter == null ? all : all.stream().filter(j -> j.state() == filter).toList();
        int pages = Math.max(1, (matching.size() + size - 1) / size);
        if (page >= pages) {
            throw ConsoleRequestException.badRequest(
                    "page "
                            + page
                            + " is past the last page, "
                            + (pages - 1)
                            + " ("
                            + matching.size()
                            + " jobs, "
                            + size
                            + " a page)");
        }
        List<JobView> jobs =
                matching.subList(page * size, Math.min(matching.size(), (page + 1) * size)).stream()
                        .map(j -> view(scheduler.name(), j))
                        .toList();
        return new JobPage(
                scheduler.name(),
                filter == null ? null : lower(filter),
                page,
                size,
                matching.size(),
                pages,
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
        return new JobView(
                job.id(),
                lower(job.state()),
                running && job.pid() != 0 ? job.pid() : null,
                job.attempt(),
                running ? runningSince.millisRunning(scheduler, job) : null);
    }

    private List<BackgroundScheduler<?, ?>> schedulerList() {
        List<BackgroundScheduler<?, ?>> schedulers = new ArrayList<>();
        for (ObservedPrimitive primitive : registry.primitives()) {
            if (primitive instanceof BackgroundScheduler<?, ?> scheduler && !scheduler.isClosed()) {
                schedulers.add(scheduler);
            }
        }
        return schedulers;
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

    private static String names(List<BackgroundScheduler<?, ?>> schedulers) {
        return schedulers.isEmpty()
                ? "none"
                : schedulers.stream()
                        .map(s -> "\"" + s.name() + "\"")
                        .collect(Collectors.joining(", "));
    }
}
