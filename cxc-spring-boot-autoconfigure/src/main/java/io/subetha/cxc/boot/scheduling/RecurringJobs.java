package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.SchedulerCodecs;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.JobOptions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.ResolvableType;
import org.springframework.core.convert.ConversionService;

/**
 * Registers the recurring jobs declared by {@code cxc.schedulers.<name>.recurring.*} in their
 * schedulers' timetables once every bean is ready, and fires the due ones on every tick. Every copy
 * of the application registers the same entries (a scheduler's {@code schedule} is idempotent per
 * name, and keeps the due time of an unchanged recurrence), and whichever copy polls first fires a
 * due job, once per due time. A job taken out of the properties stays in the file until {@code
 * unschedule}d.
 */
public final class RecurringJobs implements SmartInitializingSingleton, TickTask {

    private static final Log logger = LogFactory.getLog(RecurringJobs.class);

    private final List<RecurringJob> jobs;
    private final Map<String, BackgroundScheduler<?, ?>> schedulers;
    private final List<SchedulerCodecs<?, ?>> codecs;
    private final ConversionService conversions;
    private final Set<BackgroundScheduler<?, ?>> firing = new LinkedHashSet<>();
    private volatile List<BackgroundScheduler<?, ?>> ticking = List.of();

    /**
     * @param jobs the declared jobs
     * @param schedulers the declared schedulers, by name
     * @param codecs every {@link SchedulerCodecs} bean (handlers among them): their job type is the
     *     payloads' type
     */
    public RecurringJobs(
            List<RecurringJob> jobs,
            Map<String, BackgroundScheduler<?, ?>> schedulers,
            List<SchedulerCodecs<?, ?>> codecs,
            ConversionService conversions) {
        this.jobs = List.copyOf(jobs);
        this.schedulers = schedulers;
        this.codecs = codecs;
        this.conversions = conversions;
    }

    @Override
    public void afterSingletonsInstantiated() {
        for (RecurringJob job : jobs) {
            BackgroundScheduler<?, ?> scheduler = schedulers.get(job.scheduler());
            if (scheduler == null) {
                throw new InvalidCxcPropertyException(
                        job.property(),
                        job.name(),
                        "no scheduler '" + job.scheduler() + "' is declared",
                        "Declare cxc.schedulers." + job.scheduler() + ".* or move the job.");
            }
            schedule(scheduler, job);
            firing.add(scheduler);
            logger.info(
                    "cxc scheduler "
                            + job.scheduler()
                            + ": recurring job "
                            + job.name()
                            + " is "
                            + job.recurrence().spec());
        }
        ticking = List.copyOf(firing);
    }

    @SuppressWarnings("unchecked")
    private <J> void schedule(BackgroundScheduler<J, ?> scheduler, RecurringJob job) {
        Class<?> type = jobType(job);
        Object payload;
        try {
            payload = conversions.convert(job.payload(), type);
        } catch (RuntimeException e) {
            throw new InvalidCxcPropertyException(
                    job.property() + ".payload",
                    job.payload(),
                    "it does not convert to the scheduler's job type " + type.getName(),
                    "Set it to a " + type.getSimpleName() + ".");
        }
        if (payload == null) {
            throw new InvalidCxcPropertyException(
                    job.property() + ".payload",
                    job.payload(),
                    "it converts to no " + type.getName(),
                    "Set it to a " + type.getSimpleName() + ".");
        }
        try {
            scheduler.schedule(
                    job.name(),
                    job.recurrence(),
                    (J) payload,
                    job.keepResult() ? JobOptions.DEFAULT : JobOptions.fireAndForget());
        } catch (IllegalArgumentException e) {
            throw new InvalidCxcPropertyException(
                    job.property(), job.name(), e.getMessage(), "Declare it under a shorter name.");
        }
    }

    /** The job type of the codecs bean naming the job's scheduler. */
    private Class<?> jobType(RecurringJob job) {
        SchedulerCodecs<?, ?> named = SchedulerWorkers.codecsFor(job.scheduler(), codecs);
        Class<?> type =
                ResolvableType.forInstance(named).as(SchedulerCodecs.class).getGeneric(0).resolve();
        if (type == null) {
            throw new InvalidCxcPropertyException(
                    job.property() + ".payload",
                    job.payload(),
                    "the job type of "
                            + named
                            + " cannot be told (a lambda or a raw type), so the payload cannot be"
                            + " converted",
                    "Declare the scheduler's JobHandler (or SchedulerCodecs) as a class that"
                            + " names its job type, e.g. implements JobHandler<Long, Long>.");
        }
        return type;
    }

    /** Fires the due jobs of the schedulers with recurring jobs, even where no worker polls. */
    @Override
    public void onTick() {
        for (BackgroundScheduler<?, ?> scheduler : ticking) {
            if (!scheduler.isClosed()) {
                scheduler.fireDue();
            }
        }
    }

    /** The declared jobs. */
    public List<RecurringJob> jobs() {
        return new ArrayList<>(jobs);
    }
}
