package io.subetha.cxc.console.web;

import io.subetha.cxc.console.ConsoleOverview;
import io.subetha.cxc.console.EventBoard;
import io.subetha.cxc.console.JobBoard;
import io.subetha.cxc.console.LeaseTables;
import io.subetha.cxc.console.ScheduleBoard;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The JSON the page polls: {@code {path}/api/overview}, {@code /leases}, {@code /queues}, {@code
 * /jobs}, {@code /timetable}, {@code /history}, {@code /events}.
 */
@RestController
@RequestMapping("${cxc.console.path:/cxc}/api")
public class ConsoleApi {

    private final ConsoleOverview overview;
    private final LeaseTables leases;
    private final JobBoard jobs;
    private final ScheduleBoard schedules;
    private final EventBoard events;

    public ConsoleApi(
            ConsoleOverview overview,
            LeaseTables leases,
            JobBoard jobs,
            ScheduleBoard schedules,
            EventBoard events) {
        this.overview = overview;
        this.leases = leases;
        this.jobs = jobs;
        this.schedules = schedules;
        this.events = events;
    }

    /** Schedulers' counts and fan-outs' depths, for the jobs tab's summary. */
    public record Queues(
            List<JobBoard.SchedulerSummary> schedulers, List<JobBoard.FanoutDepth> fanouts) {}

    @GetMapping("/overview")
    public ConsoleOverview.Overview overview() {
        return overview.read();
    }

    @GetMapping("/leases")
    public List<LeaseTables.LeaseTable> leases() {
        return leases.tables();
    }

    @GetMapping("/queues")
    public Queues queues() {
        return new Queues(jobs.schedulers(), jobs.fanouts());
    }

    @GetMapping("/jobs")
    public JobBoard.JobPage jobs(
            @RequestParam String scheduler,
            @RequestParam(required = false) @Nullable String state,
            @RequestParam(defaultValue = "0") int page,
            @RequestParam(defaultValue = "50") int size) {
        return jobs.page(scheduler, state, page, size);
    }

    @GetMapping("/timetable")
    public ScheduleBoard.TimetablePage timetable(
            @RequestParam String scheduler,
            @RequestParam(required = false) @Nullable String kind,
            @RequestParam(defaultValue = "0") int page,
            @RequestParam(defaultValue = "50") int size) {
        return schedules.timetable(scheduler, kind, page, size);
    }

    @GetMapping("/history")
    public ScheduleBoard.HistoryPage history(
            @RequestParam String scheduler,
            @RequestParam(required = false) @Nullable String outcome,
            @RequestParam(defaultValue = "0") int page,
            @RequestParam(defaultValue = "50") int size) {
        return schedules.history(scheduler, outcome, page, size);
    }

    @GetMapping("/events")
    public List<EventBoard.EventLog> events() {
        return events.logs();
    }
}
