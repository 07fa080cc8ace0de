package io.subetha.cxc.console;

import io.subetha.cxc.boot.scheduling.SchedulerHistory;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.TimetableEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A scheduler's timetable (its recurring and delayed jobs with their next due time) and its recent
 * history (the starter's bounded history file of every process's runs), each a page at a time and
 * filtered on the server.
 */
public final class ScheduleBoard {

    /** What a timetable's kind filter accepts. */
    static final List<String> KINDS = List.of("recurring", "delayed");

    /** What a history's outcome filter accepts. */
    static final List<String> OUTCOMES = List.of("succeeded", "retried", "failed");

    private final Schedulers schedulers;
    private final @Nullable SchedulerWorkers workers;

    /**
     * @param workers the starter's worker pools, which keep the declared schedulers' histories;
     *     null without declared schedulers
     */
    public ScheduleBoard(Schedulers schedulers, @Nullable SchedulerWorkers workers) {
        this.schedulers = schedulers;
        this.workers = workers;
    }

    /**
     * A timetable entry.
     *
     * @param kind recurring, or delayed (a job submitted to run later, once)
     * @param recurrence its recurrence's spec, {@code once} for a delayed job
     * @param firing whether a process is firing it at this moment
     */
    public record Scheduled(
            String name,
            String kind,
            String recurrence,
            long nextDueMillis,
            long fires,
            boolean firing) {}

    /** A page of a timetable, soonest due first. */
    public record TimetablePage(
            String scheduler,
            @Nullable String kind,
            int page,
            int size,
            long total,
            int pages,
            List<Scheduled> entries) {}

    /**
     * A run in the history.
     *
     * @param pid the process whose worker ran it
     */
    public record Run(
            long jobId,
            String type,
            long attempt,
            long startedMillis,
            long tookMillis,
            String outcome,
            long pid) {}

    /**
     * A page of a history, newest run first.
     *
     * @param kept the runs the history keeps (0: the scheduler keeps none)
     * @param totals the runs folded into the history's totals so far (a run is folded some time
     *     after it is recorded, and stays listed a while after), by outcome; null without a history
     */
    public record HistoryPage(
            String scheduler,
            @Nullable String outcome,
            int page,
            int size,
            long total,
            int pages,
            int kept,
            SchedulerHistory.@Nullable Totals totals,
            List<Run> runs) {}

    /**
     * @param kind "recurring", "delayed" or null for both
     * @throws ConsoleRequestException for an unknown scheduler or kind, or bad paging
     */
    public TimetablePage timetable(String name, @Nullable String kind, int page, int size) {
        BackgroundScheduler<?, ?> scheduler = schedulers.require(name);
        String filter = oneOf("kind", kind, KINDS);
        List<Scheduled> matching = new ArrayList<>();
        for (TimetableEntry entry : scheduler.timetable()) {
            String entryKind = entry.name().startsWith("@") ? "delayed" : "recurring";
            if (filter == null || filter.equals(entryKind)) {
                matching.add(
                        new Scheduled(
                                entry.name(),
                                entryKind,
                                entry.recurrence(),
                                entry.nextDue().toEpochMilli(),
                                entry.fires(),
                                entry.firing()));
            }
        }
        matching.sort((a, b) -> Long.compare(a.nextDueMillis(), b.nextDueMillis()));
        PageWindow window = PageWindow.of(matching.size(), page, size, "entries");
        return new TimetablePage(
                scheduler.name(),
                filter,
                page,
                size,
                window.total(),
                window.pages(),
                window.of(matching));
    }

    /**
     * @param outcome "succeeded", "retried", "failed" or null for all
     * @throws ConsoleRequestException for an unknown scheduler or outcome, or bad paging
     */
    public HistoryPage history(String name, @Nullable String outcome, int page, int size) {
        BackgroundScheduler<?, ?> scheduler = schedulers.require(name);
        String filter = oneOf("outcome", outcome, OUTCOMES);
        Optional<SchedulerHistory> history = historyOf(scheduler);
        List<SchedulerHistory.Entry> entries =
                history.map(h -> new ArrayList<>(h.last(h.size()))).orElseGet(ArrayList::new);
        Collections.reverse(entries);
        List<Run> matching =
                entries.stream()
                        .filter(e -> filter == null || filter.equals(e.outcome()))
                        .map(
                                e ->
                                        new Run(
                                                e.jobId(),
                                                e.type(),
                                                e.attempt(),
                                                e.startedMillis(),
                                                e.took().toMillis(),
                                                e.outcome(),
                                                e.pid()))
                        .toList();
        PageWindow window = PageWindow.of(matching.size(), page, size, "runs");
        return new HistoryPage(
                scheduler.name(),
                filter,
                page,
                size,
                window.total(),
                window.pages(),
                history.map(SchedulerHistory::size).orElse(0),
                history.map(SchedulerHistory::totals).orElse(null),
                window.of(matching));
    }

    private Optional<SchedulerHistory> historyOf(BackgroundScheduler<?, ?> scheduler) {
        if (workers == null) {
            return Optional.empty();
        }
        for (Map.Entry<String, BackgroundScheduler<?, ?>> declared :
                workers.schedulers().entrySet()) {
            if (declared.getValue() == scheduler) {
                return workers.history(declared.getKey());
            }
        }
        return Optional.empty();
    }

    private static @Nullable String oneOf(
            String what, @Nullable String value, List<String> allowed) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        if (!allowed.contains(value)) {
            throw ConsoleRequestException.badRequest(
                    what
                            + " must be one of "
                            + String.join(", ", allowed)
                            + ", got \""
                            + value
                            + "\"");
        }
        return value;
    }
}
