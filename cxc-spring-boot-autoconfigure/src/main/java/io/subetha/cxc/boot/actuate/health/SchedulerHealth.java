package io.subetha.cxc.boot.actuate.health;

import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * One declared scheduler's health: DOWN when its file cannot be read (damaged: its last error is
 * the detail) or when its worker pool in this process has stopped (its threads ended, or the
 * application is stopping); UP otherwise. The details are its queued, running and failed jobs.
 */
public final class SchedulerHealth implements HealthIndicator {

    private final String name;
    private final BackgroundScheduler<?, ?> scheduler;
    private final SchedulerWorkers workers;

    SchedulerHealth(String name, BackgroundScheduler<?, ?> scheduler, SchedulerWorkers workers) {
        this.name = name;
        this.scheduler = scheduler;
        this.workers = workers;
    }

    /**
     * Every declared scheduler's health, by name: {@code /actuator/health/cxcSchedulers/<name>}.
     */
    public static CompositeHealthContributor of(SchedulerWorkers workers) {
        Map<String, HealthIndicator> each = new LinkedHashMap<>();
        workers.schedulers()
                .forEach(
                        (name, scheduler) ->
                                each.put(name, new SchedulerHealth(name, scheduler, workers)));
        return CompositeHealthContributor.fromMap(each);
    }

    @Override
    public Health health() {
        if (scheduler.isClosed()) {
            return Health.down().withDetail("reason", "the scheduler is closed").build();
        }
        if (workers.damage(name).isPresent()) {
            return Health.down(workers.damage(name).get())
                    .withDetail("file", scheduler.file().toString())
                    .build();
        }
        BackgroundScheduler.Counts counts;
        try {
            counts = scheduler.counts();
        } catch (RuntimeException damaged) {
            return Health.down(damaged).withDetail("file", scheduler.file().toString()).build();
        }
        Health.Builder health =
                workers.poolStopped(name)
                        ? Health.down()
                                .withDetail("reason", "its worker pool in this process has stopped")
                        : Health.up();
        return health.withDetail("queued", counts.queued())
                .withDetail("running", counts.running())
                .withDetail("failed", counts.failed())
                .withDetail("workers", workers.hasPool(name) ? "here" : "none here")
                .build();
    }
}
