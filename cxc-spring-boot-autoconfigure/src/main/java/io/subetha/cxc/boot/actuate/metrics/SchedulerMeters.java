package io.subetha.cxc.boot.actuate.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.subetha.cxc.boot.scheduling.JobRun;
import io.subetha.cxc.boot.scheduling.JobRunObserver;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * The declared schedulers' job meters: the gauge {@code cxc.scheduler.jobs{scheduler,state}}
 * (queued, running, failed, and scheduled: entries of the timetable, delayed or recurring; the
 * file's, so every instance shows the same), and, for the runs of this process's pools, the counter
 * {@code cxc.scheduler.executions{scheduler,outcome}} (succeeded, retried, failed, and handed-back:
 * a job over its type's limit, back in the queue unrun) and the timer {@code
 * cxc.scheduler.run{scheduler,outcome}} (the handler's run time).
 */
public final class SchedulerMeters implements MeterBinder, JobRunObserver {

    private final SchedulerWorkers workers;
    private final Map<String, Meters> meters = new ConcurrentHashMap<>();
    private volatile @Nullable MeterRegistry registry;

    public SchedulerMeters(SchedulerWorkers workers) {
        this.workers = workers;
        workers.observe(this);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        workers.schedulers()
                .forEach(
                        (name, scheduler) -> {
                            gauge(registry, name, scheduler, "queued", s -> s.counts().queued());
                            gauge(registry, name, scheduler, "running", s -> s.counts().running());
                            gauge(registry, name, scheduler, "failed", s -> s.counts().failed());
                            // Delayed and recurring jobs waiting in the timetable, one per entry.
                            gauge(
                                    registry,
                                    name,
                                    scheduler,
                                    "scheduled",
                                    s -> s.timetable().size());
                        });
        this.registry = registry;
    }

    private static void gauge(
            MeterRegistry registry,
            String name,
            BackgroundScheduler<?, ?> scheduler,
            String state,
            ToDoubleFunction<BackgroundScheduler<?, ?>> count) {
        Gauge.builder(
                        "cxc.scheduler.jobs",
                        scheduler,
                        s -> s.isClosed() ? Double.NaN : count.applyAsDouble(s))
                .tags("scheduler", name, "state", state)
                .description("The scheduler's jobs in this state, in its file")
                .register(registry);
    }

    @Override
    public void ended(JobRun run) {
        MeterRegistry bound = registry;
        if (bound == null) {
            return;
        }
        Meters m =
                meters.computeIfAbsent(
                        run.scheduler() + '\0' + run.outcome(),
                        key -> new Meters(bound, run.scheduler(), run.outcome().tag()));
        m.executions.increment();
        if (run.outcome() != JobRun.Outcome.HANDED_BACK) {
            m.run.record(run.took()); // a handed-back job's handler did not run
        }
    }

    /** One scheduler's meters for one outcome. */
    private record Meters(Counter executions, Timer run) {
        Meters(MeterRegistry registry, String scheduler, String outcome) {
            this(
                    Counter.builder("cxc.scheduler.executions")
                            .tags("scheduler", scheduler, "outcome", outcome)
                            .description("Job runs by this process's workers, by outcome")
                            .register(registry),
                    Timer.builder("cxc.scheduler.run")
                            .tags("scheduler", scheduler, "outcome", outcome)
                            .description("How long this process's job handlers ran")
                            .register(registry));
        }
    }

    @Override
    public String toString() {
        return "SchedulerMeters" + workers.schedulers().keySet();
    }
}
