package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.JobHandler;
import io.subetha.cxc.boot.SchedulerCodecs;
import io.subetha.cxc.boot.autoconfigure.DeclarablePrimitive.Context;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.dispatch.PassWaiting;
import io.subetha.cxc.fanout.ProgressTask;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.values.SharedNaNTaggedValue;
import io.subetha.cxc.values.SharedNaNValue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.springframework.beans.factory.BeanDefinitionStoreException;
import org.springframework.beans.factory.BeanRegistrar;
import org.springframework.beans.factory.BeanRegistry;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

/**
 * Registers a singleton bean per declared primitive: {@code cxc.<plural>.<name>.*} for every {@link
 * DeclarablePrimitive} in {@link #DECLARABLE} ({@code cxc.barriers.<name>} an {@link EpochBarrier},
 * {@code cxc.watchdogs.<name>} a {@link FailoverWatchdog} over the participants' heartbeat table,
 * {@code cxc.pass-registries.<name>} a {@link PassRegistry}), named {@code <name>}, so
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
    static final List<DeclarablePrimitive<?, ?>> DECLARABLE =
            List.of(
                    DeclarablePrimitive.of(
                                    EpochBarrier.TYPE,
                                    EpochBarrier.class,
                                    "barriers",
                                    ".barrier",
                                    "cxc.barriers.phases.capacity=8")
                            // Heartbeat intervals, not ticks: grace-epochs means ticks elsewhere.
                            .naming("graceEpochs", "grace-intervals"),
                    DeclarablePrimitive.of(
                                    FailoverWatchdog.TYPE,
                                    FailoverWatchdog.class,
                                    "watchdogs",
                                    ".watchdog",
                                    "cxc.watchdogs.jobs.grace-epochs=3")
                            .supplying("heartbeatTable", Context::participantsTable)
                            // Through the participants' own handle: one process, one table view.
                            .openedBy(
                                    (file, settings, options, beans) ->
                                            FailoverWatchdog.openOrCreate(
                                                    file,
                                                    beans.bean(HeartbeatTable.class),
                                                    settings.workPerSlot(),
                                                    options))
                            .withExtra(
                                    new DeclarablePrimitive.Extra(
                                            "grace-epochs",
                                            Long.class,
                                            FailoverWatchdog.DEFAULT_GRACE_EPOCHS,
                                            value -> (Long) value >= 0,
                                            "it must be 0 or more",
                                            "to the ticks a participant may miss before its work"
                                                    + " moves, e.g. 3 (the default)."))
                            .requiring(
                                    Context::participates,
                                    "a watchdog moves work between the participants of the"
                                            + " heartbeat table, and this process takes no part"
                                            + " in it (cxc.leader.enabled or"
                                            + " cxc.heartbeat.enabled is false)",
                                    "Set cxc.leader.enabled=true and"
                                            + " cxc.heartbeat.enabled=true, or remove the"
                                            + " cxc.watchdogs.* properties.")
                            .withTickTask(
                                    (watchdogs, extras, beans) -> {
                                        Map<String, Long> grace = new LinkedHashMap<>();
                                        extras.forEach(
                                                (name, values) ->
                                                        grace.put(
                                                                name,
                                                                (Long) values.get("grace-epochs")));
                                        return new WatchdogScanner(watchdogs, grace);
                                    }),
                    DeclarablePrimitive.of(
                                    PassRegistry.TYPE,
                                    PassRegistry.class,
                                    "pass-registries",
                                    ".passes",
                                    "cxc.pass-registries.calls.max-passes=64")
                            .supplying(
                                    "dispatcherThreads",
                                    context -> PassRegistry.Settings.DEFAULT_DISPATCHER_THREADS)
                            .supplying("waiting", context -> PassWaiting.DEFAULT),
                    DeclarablePrimitive.of(
                            ProgressTask.TYPE,
                            ProgressTask.class,
                            "progress-tasks",
                            ".progress",
                            "cxc.progress-tasks.import.total=1000"),
                    DeclarablePrimitive.of(
                            SharedRegion.TYPE,
                            SharedRegion.class,
                            "regions",
                            ".region",
                            "cxc.regions.blobs.capacity-bytes=1048576"),
                    DeclarablePrimitive.of(
                            SharedNaNValue.TYPE,
                            SharedNaNValue.class,
                            "nan-values",
                            ".nan",
                            "cxc.nan-values.flags.cells=64"),
                    DeclarablePrimitive.of(
                            SharedNaNTaggedValue.TYPE,
                            SharedNaNTaggedValue.class,
                            "nan-tagged-values",
                            ".nantagged",
                            "cxc.nan-tagged-values.state.max-user-tag=15"),
                    schedulers());

    /**
     * {@code cxc.schedulers.<name>}: a {@link BackgroundScheduler} over {@code <name>.scheduler},
     * its codecs given by the application's {@link JobHandler} (or {@link SchedulerCodecs}) bean
     * naming it; core's codec components are bound as placeholders so the record checks the
     * declared capacity and grace before any bean exists, and the file is opened with the real
     * codecs. Its tick task is also the worker pools' lifecycle ({@link SchedulerWorkers}).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static DeclarablePrimitive<?, ?> schedulers() {
        DeclarablePrimitive<BackgroundScheduler<?, ?>, BackgroundScheduler.Settings<?, ?>> kind =
                DeclarablePrimitive.of(
                        BackgroundScheduler.TYPE,
                        (Class<BackgroundScheduler<?, ?>>) (Class) BackgroundScheduler.class,
                        "schedulers",
                        SchedulerWorkers.SUFFIX,
                        "cxc.schedulers.jobs.capacity=1024");
        return kind.supplying("jobCodec", context -> FixedCodec.INT64)
                .supplying("resultCodec", context -> FixedCodec.INT64)
                .openedBy(
                        (file, settings, options, beans) ->
                                SchedulerWorkers.open(file, settings, options, codecs(beans)))
                .withExtra(
                        new DeclarablePrimitive.Extra(
                                "workers",
                                Integer.class,
                                2,
                                value -> (Integer) value >= 0 && (Integer) value <= 256,
                                "it must be 0..256 (threads in this process)",
                                "to the threads that run its jobs in this process, e.g. 2 (the"
                                        + " default), or 0 to run none here."))
                .withExtra(
                        new DeclarablePrimitive.Extra(
                                "shutdown-timeout",
                                Duration.class,
                                Duration.ofSeconds(10),
                                value ->
                                        !((Duration) value).isNegative()
                                                && ((Duration) value)
                                                                .compareTo(Duration.ofMinutes(10))
                                                        <= 0,
                                "it must be 0s..10m",
                                "to the longest a running job may take to finish at shutdown,"
                                        + " e.g. 10s (the default)."))
                .withTickTask(
                        SchedulerWorkers.class,
                        (schedulers, extras, beans) ->
                                new SchedulerWorkers(schedulers, extras, codecs(beans)));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<SchedulerCodecs<?, ?>> codecs(BeanRegistry.SupplierContext beans) {
        return (List) beans.beanProvider(SchedulerCodecs.class).orderedStream().toList();
    }

    /** One checked declaration, ready to register. */
    private record Declared<P extends MappedPrimitive, S extends Record>(
            DeclarablePrimitive<P, S> kind,
            String name,
            DeclarablePrimitive.Declaration<S> declaration) {}

    @Override
    public void register(BeanRegistry registry, Environment env) {
        if (!env.getProperty("cxc.enabled", Boolean.class, true)) {
            return; // cxc is off: nothing is declared, nothing written
        }
        Binder binder = Binder.get(env);
        Map<DeclarablePrimitive<?, ?>, Map<String, Map<String, String>>> declared =
                new LinkedHashMap<>();
        for (DeclarablePrimitive<?, ?> kind : DECLARABLE) {
            Map<String, Map<String, String>> byName =
                    binder.bind("cxc." + kind.plural, NAMED_SETTINGS).orElse(Map.of());
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
        if (properties.getLeader().isEnabled()) {
            CxcAutoConfiguration.LeaderConfiguration.requireValidLeader(properties.getLeader());
            if (properties.getHeartbeat().isEnabled()) {
                CxcAutoConfiguration.LeaderConfiguration.HeartbeatConfiguration
                        .requireValidHeartbeat(properties.getHeartbeat());
            }
        }
        DeclarablePrimitive.Context context =
                new DeclarablePrimitive.Context() {
                    @Override
                    public boolean participates() {
                        return properties.getLeader().isEnabled()
                                && properties.getHeartbeat().isEnabled();
                    }

                    @Override
                    public Path participantsTable() {
                        // Beside every declared file, in cxc.directory: named relatively.
                        return Path.of(properties.getHeartbeat().getName() + ".heartbeat");
                    }
                };
        List<Declared<?, ?>> all = new ArrayList<>();
        Map<String, String> taken = new LinkedHashMap<>();
        declared.forEach(
                (kind, byName) ->
                        byName.forEach(
                                (name, settings) -> {
                                    checkName(kind, name, taken);
                                    all.add(declare(kind, name, settings, context));
                                }));
        for (Declared<?, ?> d : all) {
            register(registry, d, properties, env);
        }
        for (DeclarablePrimitive<?, ?> kind : declared.keySet()) {
            registerTickTask(registry, kind, all);
        }
    }

    /** {@code cxc.<plural>}: settings by name, each a map of property to value. */
    private static final Bindable<Map<String, Map<String, String>>> NAMED_SETTINGS =
            Bindable.of(
                    ResolvableType.forClassWithGenerics(
                            Map.class,
                            ResolvableType.forClass(String.class),
                            ResolvableType.forClassWithGenerics(
                                    Map.class, String.class, String.class)));

    private static <P extends MappedPrimitive, S extends Record> Declared<P, S> declare(
            DeclarablePrimitive<P, S> kind,
            String name,
            Map<String, String> settings,
            DeclarablePrimitive.Context context) {
        return new Declared<>(kind, name, kind.bind(name, settings, context));
    }

    private static <P extends MappedPrimitive, S extends Record> void register(
            BeanRegistry registry,
            Declared<P, S> d,
            CxcProperties properties,
            Environment environment) {
        register(
                registry,
                d.kind().prefix(d.name()),
                d.name(),
                d.kind().beanType,
                beans -> {
                    CxcFileOptions options = CxcDirectory.fileOptions(properties);
                    Path file =
                            CxcDirectory.file(properties, environment, d.name() + d.kind().suffix);
                    return beans.bean(PrimitiveRegistry.class)
                            .register(
                                    d.kind()
                                            .opener
                                            .open(
                                                    file,
                                                    d.declaration().settings(),
                                                    options,
                                                    beans));
                });
    }

    private static <P extends MappedPrimitive> void registerTickTask(
            BeanRegistry registry, DeclarablePrimitive<P, ?> kind, List<Declared<?, ?>> all) {
        DeclarablePrimitive.TickTaskFactory<P> factory = kind.tickTask;
        @SuppressWarnings("unchecked") // the factory makes an instance of the declared type
        Class<TickTask> taskType = (Class<TickTask>) kind.tickTaskType;
        String taskName = "cxc" + kind.type.name() + "TickTask";
        if (factory == null) {
            return;
        }
        Map<String, Map<String, Object>> extras = new LinkedHashMap<>();
        for (Declared<?, ?> d : all) {
            if (d.kind() == kind) {
                extras.put(d.name(), d.declaration().extras());
            }
        }
        register(
                registry,
                "cxc." + kind.plural,
                taskName,
                taskType,
                beans -> {
                    Map<String, P> declaredBeans = new LinkedHashMap<>();
                    for (String name : extras.keySet()) {
                        declaredBeans.put(name, beans.bean(name, kind.beanType));
                    }
                    return factory.create(declaredBeans, extras, beans);
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
            DeclarablePrimitive<?, ?> kind, String name, Map<String, String> taken) {
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
