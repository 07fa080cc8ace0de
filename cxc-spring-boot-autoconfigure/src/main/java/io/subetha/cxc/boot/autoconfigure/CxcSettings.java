package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.autoconfigure.CxcProperties.Leader;
import io.subetha.cxc.boot.scheduling.FanoutRetry;
import io.subetha.cxc.boot.scheduling.WorkerPoolSettings;
import io.subetha.cxc.boot.ticker.TickerSettings;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.eventlog.EventStateLogDescriptor;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.fanout.ProgressTask;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.RetryPolicy;
import io.subetha.cxc.values.SharedNaNTaggedValue;
import io.subetha.cxc.values.SharedNaNValue;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.PropertyAccessorFactory;
import org.springframework.boot.convert.DurationStyle;

/**
 * The one place {@code cxc.*} properties become settings: each typed section of {@link
 * CxcProperties} is mapped here to the core settings record it configures, whose constructor is the
 * one place each limit is written; its {@link CxcSettingsException} is reported as Boot's invalid
 * property, against the property the value came from, with the property's default (the core
 * record's, through {@link CxcProperties}) as the example fix. The few rules of values no core
 * record holds (the starter's own: a participant's grace, a scheduler's worker pool, the names of
 * files) are written here too, once.
 */
final class CxcSettings {

    private CxcSettings() {}

    /** {@code cxc.leader.*} as the election file's settings: tick interval and grace. */
    static SharedLeaderElection.Settings election(Leader leader) {
        return checked(
                "cxc.leader",
                leader,
                SharedLeaderElection.Settings.class,
                Map.of(),
                () ->
                        new SharedLeaderElection.Settings(
                                leader.getTickInterval(), leader.getGraceEpochs()));
    }

    /**
     * {@code cxc.leader.*} as the election's settings, with its file name checked: every leader
     * property is refused before any file is written.
     */
    static SharedLeaderElection.Settings leader(Leader leader) {
        SharedLeaderElection.Settings settings = election(leader);
        CxcDirectory.requireFileName(
                "cxc.leader.name",
                leader.getName(),
                "Set cxc.leader.name to e.g. "
                        + new Leader().getName()
                        + " (the default); the file is {cxc.directory}/{name}.cxc.");
        return settings;
    }

    /** {@code cxc.leader.*} as this process's ticker settings. */
    static TickerSettings ticker(Leader leader) {
        return new TickerSettings(
                election(leader), leader.getPreemption(), leader.isStepDownOnShutdown());
    }

    /**
     * {@code cxc.leader.shutdown-timeout}: 0 or more, and shorter than the shutdown phase it runs
     * in.
     */
    static Duration leaderShutdownTimeout(Leader leader, Duration phase) {
        Duration timeout = leader.getShutdownTimeout();
        if (timeout == null || timeout.isNegative() || timeout.compareTo(phase) >= 0) {
            throw new InvalidCxcPropertyException(
                    "cxc.leader.shutdown-timeout",
                    timeout,
                    "it must be 0 or more and shorter than"
                            + " spring.lifecycle.timeout-per-shutdown-phase ("
                            + phase
                            + "), within which the whole shutdown phase must end",
                    "Set cxc.leader.shutdown-timeout to the longest a @LeaderOnly run may take to"
                            + " finish, e.g. "
                            + example(new Leader().getShutdownTimeout())
                            + " (the default), or raise"
                            + " spring.lifecycle.timeout-per-shutdown-phase.");
        }
        return timeout;
    }

    /**
     * {@code cxc.heartbeat.*} as the heartbeat table's settings, with its file name and the
     * participants' grace checked.
     */
    static HeartbeatTable.Settings heartbeat(CxcProperties.Heartbeat heartbeat) {
        CxcDirectory.requireFileName(
                "cxc.heartbeat.name",
                heartbeat.getName(),
                "Set cxc.heartbeat.name to e.g. "
                        + new CxcProperties.Heartbeat().getName()
                        + " (the default); the file is {cxc.directory}/{name}.heartbeat.");
        HeartbeatTable.Settings settings =
                checked(
                        "cxc.heartbeat",
                        heartbeat,
                        HeartbeatTable.Settings.class,
                        Map.of(),
                        () -> new HeartbeatTable.Settings(heartbeat.getCapacity()));
        requireZeroOrMore("cxc.heartbeat", heartbeat, "graceEpochs", heartbeat.getGraceEpochs());
        return settings;
    }

    /** {@code cxc.barriers.<name>.*}; grace-intervals, not grace-epochs: ticks elsewhere. */
    static EpochBarrier.Settings barrier(String prefix, DeclaredProperties.Barrier barrier) {
        return checked(
                prefix,
                barrier,
                EpochBarrier.Settings.class,
                Map.of("graceEpochs", "graceIntervals"),
                () ->
                        new EpochBarrier.Settings(
                                barrier.getCapacity(),
                                barrier.getHeartbeatInterval(),
                                barrier.getGraceIntervals()));
    }

    /**
     * {@code cxc.watchdogs.<name>.*}, over the participants' table {@code table} (named relatively,
     * beside the watchdog).
     */
    static FailoverWatchdog.Settings watchdog(
            String prefix, DeclaredProperties.Watchdog watchdog, Path table) {
        requireZeroOrMore(prefix, watchdog, "graceEpochs", watchdog.getGraceEpochs());
        return checked(
                prefix,
                watchdog,
                FailoverWatchdog.Settings.class,
                Map.of(),
                () -> new FailoverWatchdog.Settings(table, watchdog.getWorkPerSlot()));
    }

    static PassRegistry.Settings passRegistry(
            String prefix, DeclaredProperties.PassRegistryDeclaration registry) {
        return checked(
                prefix,
                registry,
                PassRegistry.Settings.class,
                Map.of(),
                () ->
                        new PassRegistry.Settings(
                                registry.getMaxPasses(),
                                registry.getMailboxSlots(),
                                registry.getMaxPayloadBytes(),
                                // The handle's own threads and waiting: the core's defaults.
                                PassRegistry.TYPE.defaults().dispatcherThreads(),
                                PassRegistry.TYPE.defaults().waiting()));
    }

    static ProgressTask.Settings progressTask(String prefix, DeclaredProperties.ProgressTask task) {
        return checked(
                prefix,
                task,
                ProgressTask.Settings.class,
                Map.of(),
                () -> new ProgressTask.Settings(task.getTotal()));
    }

    static SharedRegion.Settings region(String prefix, DeclaredProperties.Region region) {
        return checked(
                prefix,
                region,
                SharedRegion.Settings.class,
                Map.of(),
                () ->
                        new SharedRegion.Settings(
                                region.getCapacityBytes(),
                                region.getLockTimeout(),
                                region.isFreeCache()));
    }

    static SharedNaNValue.Settings nanValues(String prefix, DeclaredProperties.NaNValues values) {
        return checked(
                prefix,
                values,
                SharedNaNValue.Settings.class,
                Map.of(),
                () -> new SharedNaNValue.Settings(values.getCells()));
    }

    static SharedNaNTaggedValue.Settings nanTaggedValues(
            String prefix, DeclaredProperties.NaNTaggedValues values) {
        return checked(
                prefix,
                values,
                SharedNaNTaggedValue.Settings.class,
                Map.of(),
                () -> new SharedNaNTaggedValue.Settings(values.getCells(), values.getMaxUserTag()));
    }

    /**
     * {@code cxc.schedulers.<name>.*}: the file's settings, with placeholder codecs (the real ones
     * are the JobHandler bean's, known only when the bean is made) so that capacity and grace are
     * checked before any bean exists (capacity, grace, timetable-entries); and the worker pool's,
     * checked with them.
     */
    static BackgroundScheduler.Settings scheduler(
            String prefix, DeclaredProperties.Scheduler scheduler) {
        BackgroundScheduler.Settings settings =
                checked(
                        prefix,
                        scheduler,
                        BackgroundScheduler.Settings.class,
                        Map.of(),
                        () ->
                                new BackgroundScheduler.Settings(
                                                scheduler.getCapacity(),
                                                FixedCodec.INT64,
                                                FixedCodec.INT64,
                                                scheduler.getGrace())
                                        .withTimetableEntries(scheduler.getTimetableEntries()));
        workerPool(prefix, scheduler);
        history(prefix, scheduler);
        return settings.withRetry(retry(prefix, scheduler.getRetry()));
    }

    /** {@code cxc.schedulers.<name>.history}: 0 (none) or an event log's capacity. */
    static int history(String prefix, DeclaredProperties.Scheduler scheduler) {
        int history = scheduler.getHistory();
        if (history < 0 || history > EventStateLogDescriptor.MAX_CAPACITY) {
            String property = prefix + ".history";
            throw new InvalidCxcPropertyException(
                    property,
                    history,
                    "it must be 0 (no history) .. " + EventStateLogDescriptor.MAX_CAPACITY,
                    "Set "
                            + property
                            + " to e.g. "
                            + defaultOf(scheduler, "history")
                            + " (the default).");
        }
        return history;
    }

    /** {@code cxc.schedulers.<name>.retry.*}: checked by core's {@link RetryPolicy}. */
    static RetryPolicy retry(String prefix, RetryProperties retry) {
        return checked(
                prefix + ".retry",
                retry,
                RetryPolicy.class,
                Map.of(
                        "retry.maxAttempts", "maxAttempts",
                        "retry.initialBackoff", "initialBackoff",
                        "retry.multiplier", "multiplier",
                        "retry.maxBackoff", "maxBackoff"),
                () ->
                        new RetryPolicy(
                                retry.getMaxAttempts(),
                                retry.getInitialBackoff(),
                                retry.getMultiplier(),
                                retry.getMaxBackoff()));
    }

    /** {@code cxc.<plural>.<name>.workers} and {@code .shutdown-timeout}. */
    static WorkerPoolSettings workerPool(String prefix, DeclaredProperties.WorkerPool pool) {
        return checked(
                prefix,
                pool,
                WorkerPoolSettings.class,
                Map.of(),
                () -> new WorkerPoolSettings(pool.getWorkers(), pool.getShutdownTimeout()));
    }

    /**
     * {@code cxc.fanouts.<name>.*}: the file's settings, with a placeholder codec (the real one is
     * the FanoutHandler bean's, known only when the bean is made) so that capacity and grace are
     * checked before any bean exists; and the worker pool's and retry policy's, checked with them.
     */
    static PriorityFanout.Settings<?> fanout(String prefix, DeclaredProperties.Fanout fanout) {
        PriorityFanout.Settings<?> settings =
                checked(
                        prefix,
                        fanout,
                        PriorityFanout.Settings.class,
                        Map.of("capacityPerPriority", "capacity"),
                        () ->
                                new PriorityFanout.Settings<>(
                                        fanout.getCapacity(), FixedCodec.INT64, fanout.getGrace()));
        workerPool(prefix, fanout);
        fanoutRetry(prefix, fanout);
        return settings;
    }

    /**
     * {@code cxc.event-logs.<name>.*}: the file's settings, with placeholder codecs (the real ones
     * are the EventLogCodecs bean's, known only when the bean is made) so that the capacity is
     * checked before any bean exists.
     */
    static EventStateLog.Settings eventLog(String prefix, DeclaredProperties.EventLog log) {
        return checked(
                prefix,
                log,
                EventStateLog.Settings.class,
                Map.of(),
                () ->
                        new EventStateLog.Settings<>(
                                log.getCapacity(), FixedCodec.INT64, FixedCodec.INT64, 0L));
    }

    /** {@code cxc.fanouts.<name>.retry.*}. */
    static FanoutRetry fanoutRetry(String prefix, DeclaredProperties.Fanout fanout) {
        DeclaredProperties.FanoutRetryPolicy retry = fanout.getRetry();
        return checked(
                prefix + ".retry",
                retry,
                FanoutRetry.class,
                Map.of(),
                () -> new FanoutRetry(retry.getMaxAttempts(), retry.getBackoff()));
    }

    /** A count of epochs the starter passes on at run time, so no record checked it. */
    private static void requireZeroOrMore(
            String prefix, Object properties, String field, long value) {
        if (value < 0) {
            String property = prefix + "." + kebab(field);
            throw new InvalidCxcPropertyException(
                    property,
                    value,
                    "it must be 0 or more",
                    "Set "
                            + property
                            + " to e.g. "
                            + defaultOf(properties, field)
                            + " (the default).");
        }
    }

    /**
     * Makes a settings record, reporting its {@link CxcSettingsException} against the property:
     * {@code prefix} and the component's property name ({@code renamed} where the property is not
     * the component's kebab-case name).
     */
    private static <S extends Record> S checked(
            String prefix,
            Object properties,
            Class<S> settingsType,
            Map<String, String> renamed,
            Supplier<S> make) {
        try {
            return make.get();
        } catch (CxcSettingsException e) {
            String field = renamed.getOrDefault(e.setting(), e.setting());
            String property = prefix + "." + kebab(field);
            throw new InvalidCxcPropertyException(
                    property,
                    valueOf(properties, field),
                    reason(e, settingsType, renamed),
                    "Set "
                            + property
                            + " to e.g. "
                            + defaultOf(properties, field)
                            + " (the default).");
        }
    }

    private static final Pattern GOT = Pattern.compile(", got \\S+$");

    /**
     * Core's message in the property's words: components named as their properties, the value
     * (which the report shows as typed) left out: "capacity must be 1..1024, got 0" becomes "it
     * must be 1..1024".
     */
    static String reason(
            CxcSettingsException e,
            Class<? extends Record> settingsType,
            Map<String, String> renamed) {
        String reason = GOT.matcher(e.getMessage()).replaceFirst("");
        String own = kebab(renamed.getOrDefault(e.setting(), e.setting()));
        for (RecordComponent component : settingsType.getRecordComponents()) {
            String name = component.getName();
            reason =
                    reason.replaceAll(
                            "\\b" + Pattern.quote(name) + "\\b",
                            Matcher.quoteReplacement(kebab(renamed.getOrDefault(name, name))));
        }
        return reason.startsWith(own + " must ") ? "it" + reason.substring(own.length()) : reason;
    }

    private static @Nullable Object valueOf(Object properties, String field) {
        BeanWrapper bean = PropertyAccessorFactory.forBeanPropertyAccess(properties);
        return bean.isReadableProperty(field) ? bean.getPropertyValue(field) : null;
    }

    /** The property's default, as a user would type it: the unset properties class's value. */
    private static String defaultOf(Object properties, String field) {
        return example(valueOf(BeanUtils.instantiateClass(properties.getClass()), field));
    }

    private static String example(@Nullable Object value) {
        if (value instanceof Duration duration) {
            return DurationStyle.SIMPLE.print(duration);
        }
        if (value instanceof Enum<?> constant) {
            return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
        return String.valueOf(value);
    }

    /** heartbeatInterval → heartbeat-interval, as Boot names properties. */
    static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
