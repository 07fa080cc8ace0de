package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.autoconfigure.DeclarablePrimitive.Context;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.primitive.MappedPrimitive;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers a singleton bean per declared primitive: {@code cxc.<plural>.<name>.*} for every {@link
 * DeclarablePrimitive} in {@link #DECLARABLE} ({@code cxc.barriers.<name>} an {@link EpochBarrier},
 * {@code cxc.watchdogs.<name>} a {@link FailoverWatchdog} over the participants' heartbeat table),
 * named {@code <name>}, so {@code @Qualifier("<name>")} injects it; plus each kind's per-tick task
 * (the watchdogs' scanner). Bean definitions are made before any bean exists, so the properties are
 * bound here with a {@link Binder}, and every declaration of every kind is checked (one name-clash
 * pass over all of them) before anything is registered; the files are opened when the beans are
 * created, in {@code cxc.directory} with the election file's checks, and registered in the {@link
 * PrimitiveRegistry}.
 */
final class DeclaredPrimitivesRegistrar
        implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware {

    /** Every primitive the starter declares by properties: one entry per kind. */
    static final List<DeclarablePrimitive<?, ?>> DECLARABLE =
            List.of(
                    DeclarablePrimitive.of(
                            EpochBarrier.TYPE,
                            EpochBarrier.class,
                            "barriers",
                            ".barrier",
                            "cxc.barriers.phases.capacity=8"),
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
                                                    beans.getBean(HeartbeatTable.class),
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
                                    (watchdogs, extras) -> {
                                        Map<String, Long> grace = new LinkedHashMap<>();
                                        extras.forEach(
                                                (name, values) ->
                                                        grace.put(
                                                                name,
                                                                (Long) values.get("grace-epochs")));
                                        return new WatchdogScanner(watchdogs, grace);
                                    }));

    private @Nullable Environment environment;
    private @Nullable BeanFactory beanFactory;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** One checked declaration, ready to register. */
    private record Declared<P extends MappedPrimitive, S extends Record>(
            DeclarablePrimitive<P, S> kind,
            String name,
            DeclarablePrimitive.Declaration<S> declaration) {}

    @Override
    public void registerBeanDefinitions(
            AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        Environment env = requireNonNull(environment);
        BeanFactory beans = requireNonNull(beanFactory);
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
                                    checkName(kind, name, taken, registry);
                                    all.add(declare(kind, name, settings, context));
                                }));
        for (Declared<?, ?> d : all) {
            register(registry, d, properties, env, beans);
        }
        for (DeclarablePrimitive<?, ?> kind : declared.keySet()) {
            registerTickTask(registry, kind, all, beans);
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
            BeanDefinitionRegistry registry,
            Declared<P, S> d,
            CxcProperties properties,
            Environment environment,
            BeanFactory beans) {
        register(
                registry,
                d.name(),
                d.kind().beanType,
                () -> {
                    CxcFileOptions options = CxcDirectory.fileOptions(properties);
                    Path file =
                            CxcDirectory.file(properties, environment, d.name() + d.kind().suffix);
                    return beans.getBean(PrimitiveRegistry.class)
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
            BeanDefinitionRegistry registry,
            DeclarablePrimitive<P, ?> kind,
            List<Declared<?, ?>> all,
            BeanFactory beans) {
        DeclarablePrimitive.TickTaskFactory<P> factory = kind.tickTask;
        String taskName = "cxc" + kind.type.name() + "TickTask";
        if (factory == null || registry.containsBeanDefinition(taskName)) {
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
                taskName,
                TickTask.class,
                () -> {
                    Map<String, P> declaredBeans = new LinkedHashMap<>();
                    for (String name : extras.keySet()) {
                        declaredBeans.put(name, beans.getBean(name, kind.beanType));
                    }
                    return factory.create(declaredBeans, extras);
                });
    }

    private static <T> void register(
            BeanDefinitionRegistry registry, String name, Class<T> type, Supplier<T> supplier) {
        RootBeanDefinition definition = new RootBeanDefinition(type, supplier);
        if (AutoCloseable.class.isAssignableFrom(type)) {
            definition.setDestroyMethodName("close");
        }
        registry.registerBeanDefinition(name, definition);
    }

    /**
     * A declared name is a file name and a bean name: plain, not another declaration's, not an
     * existing bean's.
     */
    private static void checkName(
            DeclarablePrimitive<?, ?> kind,
            String name,
            Map<String, String> taken,
            BeanDefinitionRegistry registry) {
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
        if (registry.containsBeanDefinition(name)) {
            throw new InvalidCxcPropertyException(
                    prefix,
                    name,
                    "a bean named '"
                            + name
                            + "' already exists (another declared primitive, or an application"
                            + " bean); the name is the bean's name",
                    "Choose another name.");
        }
    }

    private static <T> T requireNonNull(@Nullable T value) {
        if (value == null) {
            throw new IllegalStateException("the registrar was not given its context");
        }
        return value;
    }
}
