package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.EventLogCodecs;
import io.subetha.cxc.boot.FanoutCodec;
import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.JobHandler;
import io.subetha.cxc.boot.SchedulerCodecs;
import io.subetha.cxc.boot.actuate.metrics.SchedulerObservations;
import io.subetha.cxc.boot.autoconfigure.DeclaredKind.Context;
import io.subetha.cxc.boot.eventlog.DeclaredEventLog;
import io.subetha.cxc.boot.eventlog.DeclaredEventLogs;
import io.subetha.cxc.boot.liveness.WatchdogScanner;
import io.subetha.cxc.boot.scheduling.FanoutRetry;
import io.subetha.cxc.boot.scheduling.FanoutWorkers;
import io.subetha.cxc.boot.scheduling.JobLimits;
import io.subetha.cxc.boot.scheduling.SchedulerHistory;
import io.subetha.cxc.boot.scheduling.SchedulerWorkers;
import io.subetha.cxc.boot.scheduling.WorkerPoolSettings;
import io.subetha.cxc.boot.ticker.TickLookup;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.eventlog.NamedReaders;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.fanout.ProgressTask;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.values.SharedNaNTaggedValue;
import io.subetha.cxc.values.SharedNaNValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanDefinitionStoreException;
import org.springframework.beans.factory.BeanRegistrar;
import org.springframework.beans.factory.BeanRegistry;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Registers a singleton bean per declared primitive: {@code cxc.<plural>.<name>.*} for every {@link
 * DeclaredKind} in {@link #DECLARABLE} ({@code cxc.barriers.<name>} an {@link EpochBarrier}, {@code
 * cxc.watchdogs.<name>} a {@link FailoverWatchdog} over the participants' heartbeat table, {@code
 * cxc.pass-registries.<name>} a {@link PassRegistry}), named {@code <name>}, so
 * {@code @Qualifier("<name>")} injects it; plus each kind's per-tick task (the watchdogs' scanner).
 * A Spring Framework 7 {@link BeanRegistrar}: {@code spring-boot:process-aot} records the registrar
 * (an instance supplier it could not write as code) and runs it again when the optimised
 * application starts, with that run's environment. Bean definitions are made before any bean
 * exists, so the properties are bound here with a {@link Binder}, and every declaration of every
 * kind is checked (one name-clash pass over all of them) before anything is registered; the files
 * are opened when the beans are created, in {@code cxc.directory} with the election file's checks,
 * and registered in the {@link PrimitiveRegistry}.
 */
final class DeclaredPrimitivesRegistrar implements BeanRegistrar {

    /** Every primitive the starter declares by properties: one entry per kind. */
    static final List<DeclaredKind<?, ?, ?>> DECLARABLE =
            List.of(
                    new DeclaredKind<>(
                                    EpochBarrier.TYPE,
                                    EpochBarrier.class,
                                    DeclaredProperties.Barrier.class,
                                    "barriers",
                                    ".barrier",
                                    "cxc.barriers.phases.capacity=8",
                                    (prefix, barrier, context) ->
                                            CxcSettings.barrier(prefix, barrier))
                            .fixedAtCreation(
                                    "capacity", "heartbeatInterval", "graceEpochs=grace-intervals"),
                    new DeclaredKind<>(
                                    FailoverWatchdog.TYPE,
                                    FailoverWatchdog.class,
                                    DeclaredProperties.Watchdog.class,
                                    "watchdogs",
                                    ".watchdog",
                                    "cxc.watchdogs.jobs.grace-epochs=3",
                                    (prefix, watchdog, context) ->
                                            CxcSettings.watchdog(
                                                    prefix, watchdog, context.participantsTable()))
                            .supplying("heartbeat-table")
                            .fixedAtCreation("workPerSlot")
                            .refusingChangeOf(
                                    "heartbeatTable",
                                    "its assignments name slots of that table, so over another"
                                            + " one its scans would judge the work's owners by"
                                            + " the wrong participants")
                            // Through the participants' own handle: one process, one table view.
                            .openedBy(
                                    (file, settings, options, beans) ->
                                            FailoverWatchdog.openOrCreate(
                                                    file,
                                                    beans.bean(HeartbeatTable.class),
                                                    settings.workPerSlot(),
                                                    options))
                            .requiring(
                                    Context::participates,
                                    context ->
                                            "a watchdog moves work between the participants of"
                                                    + " the heartbeat table, and this process"
                                                    + " takes no part in it: "
                                                    + context.notTakingPart(),
                                    context ->
                                            "Remove "
                                                    + context.notTakingPart()
                                                    + ", or the cxc.watchdogs.* properties.")
                            .withTickTask(
                                    (watchdogs, declarations, beans) -> {
                                        Map<String, Long> grace = new LinkedHashMap<>();
                                        declarations.forEach(
                                                (name, declared) ->
                                                        grace.put(
                                                                name,
                                                                declared.properties()
                                                                        .getGraceEpochs()));
                                        return new WatchdogScanner(watchdogs, grace);
                                    }),
                    new DeclaredKind<>(
                                    PassRegistry.TYPE,
                                    PassRegistry.class,
                                    DeclaredProperties.PassRegistryDeclaration.class,
                                    "pass-registries",
                                    ".passes",
                                    "cxc.pass-registries.calls.max-passes=64",
                                    (prefix, registry, context) ->
                                            CxcSettings.passRegistry(prefix, registry))
                            .supplying("dispatcher-threads", "waiting")
                            .fixedAtCreation("maxPasses", "mailboxSlots", "maxPayloadBytes"),
                    new DeclaredKind<>(
                                    ProgressTask.TYPE,
                                    ProgressTask.class,
                                    DeclaredProperties.ProgressTask.class,
                                    "progress-tasks",
                                    ".progress",
                                    "cxc.progress-tasks.import.total=1000",
                                    (prefix, task, context) ->
                                            CxcSettings.progressTask(prefix, task))
                            .fixedAtCreation("total"),
                    new DeclaredKind<>(
                                    SharedRegion.TYPE,
                                    SharedRegion.class,
                                    DeclaredProperties.Region.class,
                                    "regions",
                                    ".region",
                                    "cxc.regions.blobs.capacity-bytes=1048576",
                                    (prefix, region, context) -> CxcSettings.region(prefix, region))
                            .fixedAtCreation("capacityBytes"),
                    new DeclaredKind<>(
                                    SharedNaNValue.TYPE,
                                    SharedNaNValue.class,
                                    DeclaredProperties.NaNValues.class,
                                    "nan-values",
                                    ".nan",
                                    "cxc.nan-values.flags.cells=64",
                                    (prefix, values, context) ->
                                            CxcSettings.nanValues(prefix, values))
                            .fixedAtCreation("cells"),
                    new DeclaredKind<>(
                                    SharedNaNTaggedValue.TYPE,
                                    SharedNaNTaggedValue.class,
                                    DeclaredProperties.NaNTaggedValues.class,
                                    "nan-tagged-values",
                                    ".nantagged",
                                    "cxc.nan-tagged-values.state.max-user-tag=15",
                                    (prefix, values, context) ->
                                            CxcSettings.nanTaggedValues(prefix, values))
                            .fixedAtCreation("cells", "maxUserTag"),
                    schedulers(),
                    fanouts(),
                    eventLogs());

    /**
     * {@code cxc.schedulers.<name>}: a {@link BackgroundScheduler} over {@code <name>.scheduler},
     * its codecs given by the application's {@link JobHandler} (or {@link SchedulerCodecs}) bean
     * naming it; the file is opened with the real codecs. Its tick task is also the worker pools'
     * lifecycle ({@link SchedulerWorkers}).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static DeclaredKind<?, ?, ?> schedulers() {
        return new DeclaredKind<
                        BackgroundScheduler<?, ?>,
                        DeclaredProperties.Scheduler,
                        BackgroundScheduler.Settings>(
                        (PrimitiveType) BackgroundScheduler.TYPE,
                        (Class<BackgroundScheduler<?, ?>>) (Class) BackgroundScheduler.class,
                        DeclaredProperties.Scheduler.class,
                        "schedulers",
                        SchedulerWorkers.SUFFIX,
                        "cxc.schedulers.jobs.capacity=1024",
                        (prefix, scheduler, context) -> CxcSettings.scheduler(prefix, scheduler))
                .supplying("job-codec", "result-codec")
                .openedBy(
                        (file, settings, options, beans) ->
                                SchedulerWorkers.open(
                                        file,
                                        settings,
                                        options,
                                        codecs(beans),
                                        traceContext(file, beans)))
                .withTickTask(
                        SchedulerWorkers.class,
                        (schedulers, declarations, beans) -> {
                            Map<String, WorkerPoolSettings> pools = new LinkedHashMap<>();
                            declarations.forEach(
                                    (name, declared) ->
                                            pools.put(
                                                    name,
                                                    CxcSettings.workerPool(
                                                            declared.prefix(),
                                                            declared.properties())));
                            SchedulerWorkers workers =
                                    new SchedulerWorkers(schedulers, pools, codecs(beans));
                            declarations.forEach(
                                    (name, declared) -> {
                                        Map<String, Integer> limits =
                                                declared.properties().getLimits();
                                        if (!limits.isEmpty()) {
                                            BackgroundScheduler<?, ?> scheduler =
                                                    schedulers.get(name);
                                            workers.limit(
                                                    name,
                                                    JobLimits.open(
                                                            name,
                                                            scheduler.file(),
                                                            limits,
                                                            scheduler.grace(),
                                                            beans.bean(CxcFileLocation.class)
                                                                    .options()));
                                        }
                                        int size = declared.properties().getHistory();
                                        if (size > 0) {
                                            workers.keepHistory(
                                                    name,
                                                    SchedulerHistory.open(
                                                            name,
                                                            schedulers.get(name).file(),
                                                            size,
                                                            beans.bean(CxcFileLocation.class)
                                                                    .options()));
                                        }
                                    });
                            return workers;
                        });
    }

    /**
     * {@code cxc.fanouts.<name>}: a {@link PriorityFanout} over {@code <name>.fanout}, its codec
     * given by the application's {@link FanoutHandler} (or {@link FanoutCodec}) bean naming it. Its
     * tick task is also the worker pools' lifecycle ({@link FanoutWorkers}).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static DeclaredKind<?, ?, ?> fanouts() {
        return new DeclaredKind<
                        PriorityFanout<?>, DeclaredProperties.Fanout, PriorityFanout.Settings>(
                        (PrimitiveType) PriorityFanout.TYPE,
                        (Class<PriorityFanout<?>>) (Class) PriorityFanout.class,
                        DeclaredProperties.Fanout.class,
                        "fanouts",
                        FanoutWorkers.SUFFIX,
                        "cxc.fanouts.work.capacity=1024",
                        (prefix, fanout, context) -> CxcSettings.fanout(prefix, fanout))
                .supplying("codec")
                .openedBy(
                        (file, settings, options, beans) ->
                                FanoutWorkers.open(file, settings, options, fanoutCodecs(beans)))
                .withTickTask(
                        FanoutWorkers.class,
                        (fanouts, declarations, beans) -> {
                            Map<String, WorkerPoolSettings> pools = new LinkedHashMap<>();
                            Map<String, FanoutRetry> retries = new LinkedHashMap<>();
                            declarations.forEach(
                                    (name, declared) -> {
                                        pools.put(
                                                name,
                                                CxcSettings.workerPool(
                                                        declared.prefix(), declared.properties()));
                                        retries.put(
                                                name,
                                                CxcSettings.fanoutRetry(
                                                        declared.prefix(), declared.properties()));
                                    });
                            return new FanoutWorkers(fanouts, pools, retries, fanoutCodecs(beans));
                        });
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<FanoutCodec<?>> fanoutCodecs(BeanRegistry.SupplierContext beans) {
        return (List) beans.beanProvider(FanoutCodec.class).orderedStream().toList();
    }

    /**
     * With {@code cxc.schedulers.<name>.trace-context=true}, what the scheduler's jobs carry: the
     * submitting thread's trace context if Micrometer's Observation API is present (none else, in
     * the same layout).
     */
    private static @Nullable Supplier<@Nullable String> traceContext(
            Path file, BeanRegistry.SupplierContext beans) {
        String name = SchedulerWorkers.nameOf(file);
        boolean carried =
                beans.bean(Environment.class)
                        .getProperty(
                                "cxc.schedulers." + name + ".trace-context", Boolean.class, false);
        if (!carried) {
            return null;
        }
        if (!ClassUtils.isPresent("io.micrometer.observation.ObservationRegistry", null)) {
            return () -> null;
        }
        // Micrometer's types are touched only past this check, inside SchedulerObservations.
        return SchedulerObservations.submitContext(beans, name);
    }

    /**
     * {@code cxc.event-logs.<name>}: an {@link EventStateLog} over {@code <name>.events}, its
     * codecs and fold given by the application's {@link EventLogCodecs} bean naming it (else
     * counted longs); its tick task folds the logs on the leader and holds each log's reader table
     * ({@code <name>.readers}), which the listeners read under.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static DeclaredKind<?, ?, ?> eventLogs() {
        return new DeclaredKind<
                        EventStateLog<?, ?>, DeclaredProperties.EventLog, EventStateLog.Settings>(
                        (PrimitiveType) EventStateLog.TYPE,
                        (Class<EventStateLog<?, ?>>) (Class) EventStateLog.class,
                        DeclaredProperties.EventLog.class,
                        "event-logs",
                        DeclaredEventLogs.SUFFIX,
                        "cxc.event-logs.orders.capacity=4096",
                        (prefix, log, context) -> CxcSettings.eventLog(prefix, log))
                .supplying("event-codec", "state-codec", "initial")
                .fixedAtCreation("capacity")
                .openedBy(
                        (file, settings, options, beans) ->
                                DeclaredEventLogs.open(
                                        declaredName(file, DeclaredEventLogs.SUFFIX),
                                        file,
                                        settings,
                                        options,
                                        eventLogCodecs(beans)))
                .withTickTask(
                        DeclaredEventLogs.class,
                        (logs, declarations, beans) -> {
                            CxcFileLocation location = beans.bean(CxcFileLocation.class);
                            PrimitiveRegistry registry = beans.bean(PrimitiveRegistry.class);
                            List<EventLogCodecs<?, ?>> codecs = eventLogCodecs(beans);
                            Map<String, DeclaredEventLog<?, ?>> declared = new LinkedHashMap<>();
                            logs.forEach(
                                    (name, log) -> {
                                        NamedReaders readers =
                                                registry.register(
                                                        NamedReaders.TYPE.openOrCreate(
                                                                location.file(
                                                                        name
                                                                                + DeclaredEventLogs
                                                                                        .READERS_SUFFIX),
                                                                NamedReaders.TYPE.defaults(),
                                                                location.options()));
                                        EventLogCodecs<?, ?> given =
                                                DeclaredEventLogs.codecsFor(name, codecs);
                                        declared.put(
                                                name,
                                                new DeclaredEventLog(
                                                        name,
                                                        log,
                                                        given == null
                                                                ? DeclaredEventLog.defaultCodecs(
                                                                        name)
                                                                : given,
                                                        readers,
                                                        given != null));
                                    });
                            // Looked up at a tick: the leadership is made after the ticker,
                            // which takes this task.
                            TickLookup<CxcLeadership> leadership =
                                    new TickLookup<>(beans.beanProvider(CxcLeadership.class));
                            return new DeclaredEventLogs(
                                    declared,
                                    () -> {
                                        CxcLeadership now = leadership.get();
                                        return now == null || now.isLeader();
                                    });
                        });
    }

    private static String declaredName(Path file, String suffix) {
        String fileName = file.getFileName().toString();
        return fileName.substring(0, fileName.length() - suffix.length());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<EventLogCodecs<?, ?>> eventLogCodecs(BeanRegistry.SupplierContext beans) {
        return (List) beans.beanProvider(EventLogCodecs.class).orderedStream().toList();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<SchedulerCodecs<?, ?>> codecs(BeanRegistry.SupplierContext beans) {
        return (List) beans.beanProvider(SchedulerCodecs.class).orderedStream().toList();
    }

    /** One checked declaration, ready to register. */
    private record Declared<P extends MappedPrimitive, D, S extends Record>(
            DeclaredKind<P, D, S> kind, String name, DeclaredKind.Declaration<D, S> declaration) {}

    @Override
    public void register(BeanRegistry registry, Environment env) {
        // With cxc off, every declaration is still made, in a private directory (CxcFileLocation):
        // the application starts, as if it were the only copy.
        boolean off = CxcFileLocation.isOff(env);
        Binder binder = Binder.get(env);
        Map<DeclaredKind<?, ?, ?>, Map<String, ?>> declared = new LinkedHashMap<>();
        for (DeclaredKind<?, ?, ?> kind : DECLARABLE) {
            Map<String, ?> byName = kind.bind(binder);
            if (!byName.isEmpty()) {
                declared.put(kind, byName);
            }
        }
        if (declared.isEmpty()) {
            return;
        }
        CxcProperties properties = binder.bindOrCreate("cxc", CxcProperties.class);
        // Whichever file is created first, every property is checked before it.
        CxcDirectory.filePermissions(properties);
        if (!off && properties.getLeader().isEnabled()) {
            CxcSettings.leader(properties.getLeader());
            if (properties.getHeartbeat().isEnabled()) {
                CxcSettings.heartbeat(properties.getHeartbeat());
            }
        }
        DeclaredKind.Context context =
                new DeclaredKind.Context() {
                    @Override
                    public boolean participates() {
                        // Off, alone: in its private heartbeat table (see CxcAutoConfiguration).
                        return off
                                || (properties.getLeader().isEnabled()
                                        && properties.getHeartbeat().isEnabled());
                    }

                    @Override
                    public String notTakingPart() {
                        return SwitchOrigin.describe(
                                env,
                                properties.getLeader().isEnabled()
                                        ? "cxc.heartbeat.enabled"
                                        : "cxc.leader.enabled");
                    }

                    @Override
                    public Path participantsTable() {
                        // Beside every declared file, in cxc.directory: named relatively.
                        return Path.of(properties.getHeartbeat().getName() + ".heartbeat");
                    }
                };
        List<Declared<?, ?, ?>> all = new ArrayList<>();
        Map<String, String> taken = new LinkedHashMap<>();
        declared.forEach(
                (kind, byName) ->
                        byName.forEach(
                                (name, settings) -> {
                                    checkName(kind, name, taken);
                                    all.add(declare(kind, name, settings, context));
                                }));
        for (Declared<?, ?, ?> d : all) {
            register(registry, d, properties, env);
        }
        for (DeclaredKind<?, ?, ?> kind : declared.keySet()) {
            registerTickTask(registry, kind, all);
        }
    }

    @SuppressWarnings("unchecked") // bound by the kind itself, as its properties class
    private static <P extends MappedPrimitive, D, S extends Record> Declared<P, D, S> declare(
            DeclaredKind<P, D, S> kind,
            String name,
            Object properties,
            DeclaredKind.Context context) {
        return new Declared<>(kind, name, kind.declare(name, (D) properties, context));
    }

    private static <P extends MappedPrimitive, D, S extends Record> void register(
            BeanRegistry registry,
            Declared<P, D, S> d,
            CxcProperties properties,
            Environment environment) {
        register(
                registry,
                d.kind().prefix(d.name()),
                d.name(),
                d.kind().beanType,
                beans -> {
                    CxcFileLocation location = beans.bean(CxcFileLocation.class);
                    CxcFileOptions options = location.options();
                    Path file = location.file(d.name() + d.kind().suffix);
                    S settings = d.declaration().settings();
                    if (Files.exists(file)) {
                        // A rolling deploy may have changed a creation setting: the file's win.
                        settings =
                                CreationSettings.reconcile(
                                        d.kind(),
                                        d.kind().prefix(d.name()),
                                        settings,
                                        file,
                                        options,
                                        Map.of("heartbeatTable", "cxc.heartbeat.name"));
                    }
                    return beans.bean(PrimitiveRegistry.class)
                            .register(d.kind().opener.open(file, settings, options, beans));
                });
    }

    @SuppressWarnings("unchecked") // the declarations of this kind, as it made them
    private static <P extends MappedPrimitive, D, S extends Record> void registerTickTask(
            BeanRegistry registry, DeclaredKind<P, D, S> kind, List<Declared<?, ?, ?>> all) {
        DeclaredKind.TickTaskFactory<P, D, S> factory = kind.tickTask;
        if (factory == null) {
            return;
        }
        @SuppressWarnings("unchecked") // the factory makes an instance of the declared type
        Class<TickTask> taskType = (Class<TickTask>) kind.tickTaskType;
        String taskName = "cxc" + kind.type.name() + "TickTask";
        Map<String, DeclaredKind.Declaration<D, S>> declarations = new LinkedHashMap<>();
        for (Declared<?, ?, ?> d : all) {
            if (d.kind() == kind) {
                declarations.put(d.name(), (DeclaredKind.Declaration<D, S>) d.declaration());
            }
        }
        register(
                registry,
                "cxc." + kind.plural,
                taskName,
                taskType,
                beans -> {
                    Map<String, P> declaredBeans = new LinkedHashMap<>();
                    for (String name : declarations.keySet()) {
                        declaredBeans.put(name, beans.bean(name, kind.beanType));
                    }
                    return factory.create(declaredBeans, declarations, beans);
                });
    }

    /**
     * Through {@link BeanRegistry}, so that AOT processing records this registrar rather than the
     * suppliers (which it cannot write as code) and runs it again at startup. An {@link
     * AutoCloseable} bean's {@code close} is its inferred destroy method.
     */
    private static <T> void register(
            BeanRegistry registry,
            String property,
            String name,
            Class<T> type,
            Function<BeanRegistry.SupplierContext, T> supplier) {
        try {
            registry.registerBean(name, type, spec -> spec.supplier(supplier));
        } catch (BeanDefinitionStoreException taken) {
            throw new InvalidCxcPropertyException(
                    property,
                    name,
                    "a bean named '"
                            + name
                            + "' already exists (another declared primitive, or an application"
                            + " bean); the name is the bean's name",
                    "Choose another name.");
        }
    }

    /**
     * A declared name is a file name and a bean name: plain, not another declaration's, not an
     * existing bean's.
     */
    private static void checkName(
            DeclaredKind<?, ?, ?> kind, String name, Map<String, String> taken) {
        String prefix = kind.prefix(name);
        CxcDirectory.requireFileName(
                prefix,
                name,
                "Name it e.g. "
                        + kind.example
                        + "; it is the bean's name and the file {cxc.directory}/{name}"
                        + kind.suffix
                        + ".");
        String other = taken.putIfAbsent(name, prefix);
        if (other != null) {
            throw new InvalidCxcPropertyException(
                    prefix,
                    name,
                    other + " has the same name; the name is the bean's name",
                    "Give each declared primitive its own name.");
        }
    }
}
