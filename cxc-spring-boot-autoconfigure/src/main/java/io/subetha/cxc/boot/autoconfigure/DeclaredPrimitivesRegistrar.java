package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.FailoverWatchdogDescriptor;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.PrimitiveRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers a singleton bean per {@code cxc.barriers.<name>} ({@link EpochBarrier}) and {@code
 * cxc.watchdogs.<name>} ({@link FailoverWatchdog} over the participants' heartbeat table), named
 * {@code <name>}, so {@code @Qualifier("<name>")} injects it; plus the {@link WatchdogScanner} that
 * scans the watchdogs on every tick. Bean definitions are made before any bean exists, so the
 * properties are bound here with a {@link Binder} and every value is checked before anything is
 * registered; the files are opened when the beans are created, in {@code cxc.directory} with the
 * election file's checks, and registered in the {@link PrimitiveRegistry}.
 */
final class DeclaredPrimitivesRegistrar
        implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware {

    static final String WATCHDOG_SCANNER = "cxcWatchdogScanner";

    private static final Duration MAX_BARRIER_INTERVAL = Duration.ofHours(1);

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

    @Override
    public void registerBeanDefinitions(
            AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        Environment env = requireNonNull(environment);
        BeanFactory beans = requireNonNull(beanFactory);
        CxcProperties properties = Binder.get(env).bindOrCreate("cxc", CxcProperties.class);
        if (properties.getBarriers().isEmpty() && properties.getWatchdogs().isEmpty()) {
            return;
        }
        // Whichever file is created first, every property is checked before it.
        CxcDirectory.filePermissions(properties);
        if (properties.getLeader().isEnabled()) {
            CxcAutoConfiguration.LeaderConfiguration.requireValidLeader(properties.getLeader());
            if (properties.getHeartbeat().isEnabled()) {
                CxcAutoConfiguration.LeaderConfiguration.HeartbeatConfiguration
                        .requireValidHeartbeat(properties.getHeartbeat());
            }
        }
        Map<String, CxcProperties.Barrier> barriers = properties.getBarriers();
        Map<String, CxcProperties.Watchdog> watchdogs = properties.getWatchdogs();
        barriers.forEach((name, barrier) -> check(name, barrier, registry));
        watchdogs.forEach((name, watchdog) -> check(name, watchdog, properties, registry));

        for (Map.Entry<String, CxcProperties.Barrier> barrier : barriers.entrySet()) {
            String name = barrier.getKey();
            register(
                    registry,
                    name,
                    EpochBarrier.class,
                    () -> openBarrier(properties, env, beans, name, barrier.getValue()));
        }
        Map<String, Long> graceEpochs = new LinkedHashMap<>();
        for (Map.Entry<String, CxcProperties.Watchdog> watchdog : watchdogs.entrySet()) {
            String name = watchdog.getKey();
            graceEpochs.put(name, watchdog.getValue().getGraceEpochs());
            register(
                    registry,
                    name,
                    FailoverWatchdog.class,
                    () -> openWatchdog(properties, env, beans, name, watchdog.getValue()));
        }
        if (!graceEpochs.isEmpty() && !registry.containsBeanDefinition(WATCHDOG_SCANNER)) {
            register(
                    registry,
                    WATCHDOG_SCANNER,
                    WatchdogScanner.class,
                    () -> {
                        Map<String, FailoverWatchdog> scanned = new LinkedHashMap<>();
                        for (String name : graceEpochs.keySet()) {
                            scanned.put(name, beans.getBean(name, FailoverWatchdog.class));
                        }
                        return new WatchdogScanner(scanned, graceEpochs);
                    });
        }
    }

    private static <T> void register(
            BeanDefinitionRegistry registry, String name, Class<T> type, Supplier<T> supplier) {
        RootBeanDefinition definition = new RootBeanDefinition(type, supplier);
        if (AutoCloseable.class.isAssignableFrom(type)) {
            definition.setDestroyMethodName("close");
        }
        registry.registerBeanDefinition(name, definition);
    }

    private static EpochBarrier openBarrier(
            CxcProperties properties,
            Environment environment,
            BeanFactory beans,
            String name,
            CxcProperties.Barrier barrier) {
        CxcFileOptions options = CxcDirectory.fileOptions(properties);
        Path file = CxcDirectory.file(properties, environment, name + ".barrier");
        return beans.getBean(PrimitiveRegistry.class)
                .register(
                        EpochBarrier.openOrCreate(
                                file,
                                barrier.getCapacity(),
                                barrier.getHeartbeatInterval(),
                                barrier.getGraceEpochs(),
                                options));
    }

    private static FailoverWatchdog openWatchdog(
            CxcProperties properties,
            Environment environment,
            BeanFactory beans,
            String name,
            CxcProperties.Watchdog watchdog) {
        HeartbeatTable table = beans.getBean(HeartbeatTable.class);
        CxcFileOptions options = CxcDirectory.fileOptions(properties);
        Path file = CxcDirectory.file(properties, environment, name + ".watchdog");
        return beans.getBean(PrimitiveRegistry.class)
                .register(
                        FailoverWatchdog.openOrCreate(
                                file, table, watchdog.getWorkPerSlot(), options));
    }

    private static void check(
            String name, CxcProperties.Barrier barrier, BeanDefinitionRegistry registry) {
        String prefix = "cxc.barriers." + name;
        CxcDirectory.requireFileName(
                prefix,
                name,
                "Name the barrier e.g. cxc.barriers.phases.capacity=8; it is the bean's name and"
                        + " the file {cxc.directory}/{name}.barrier.");
        checkFree("barriers", name, registry);
        if (barrier.getCapacity() < 1 || barrier.getCapacity() > HeartbeatTable.IN_FLIGHT_SLOTS) {
            throw new InvalidCxcPropertyException(
                    prefix + ".capacity",
                    barrier.getCapacity(),
                    "it must be 1.." + HeartbeatTable.IN_FLIGHT_SLOTS,
                    "Set " + prefix + ".capacity to the most processes that take part at once.");
        }
        Duration interval = barrier.getHeartbeatInterval();
        if (interval == null
                || interval.isNegative()
                || interval.isZero()
                || interval.compareTo(MAX_BARRIER_INTERVAL) > 0) {
            throw new InvalidCxcPropertyException(
                    prefix + ".heartbeat-interval",
                    interval,
                    "it must be positive and at most 1h",
                    "Set " + prefix + ".heartbeat-interval to e.g. 200ms (the default).");
        }
        if (barrier.getGraceEpochs() < 1) {
            throw new InvalidCxcPropertyException(
                    prefix + ".grace-epochs",
                    barrier.getGraceEpochs(),
                    "it must be 1 or more",
                    "Set "
                            + prefix
                            + ".grace-epochs to the heartbeat intervals a participant may stay"
                            + " silent, e.g. 5 (the default).");
        }
    }

    private static void check(
            String name,
            CxcProperties.Watchdog watchdog,
            CxcProperties properties,
            BeanDefinitionRegistry registry) {
        String prefix = "cxc.watchdogs." + name;
        CxcDirectory.requireFileName(
                prefix,
                name,
                "Name the watchdog e.g. cxc.watchdogs.jobs.grace-epochs=3; it is the bean's name"
                        + " and the file {cxc.directory}/{name}.watchdog.");
        checkFree("watchdogs", name, registry);
        if (properties.getBarriers().containsKey(name)) {
            throw new InvalidCxcPropertyException(
                    prefix,
                    name,
                    "cxc.barriers." + name + " has the same name; the name is the bean's name",
                    "Give the barrier and the watchdog different names.");
        }
        if (!properties.getLeader().isEnabled() || !properties.getHeartbeat().isEnabled()) {
            throw new InvalidCxcPropertyException(
                    prefix,
                    name,
                    "a watchdog moves work between the participants of the heartbeat table, and"
                            + " this process takes no part in it (cxc.leader.enabled or"
                            + " cxc.heartbeat.enabled is false)",
                    "Set cxc.leader.enabled=true and cxc.heartbeat.enabled=true, or remove "
                            + prefix
                            + ".*.");
        }
        if (watchdog.getGraceEpochs() < 0) {
            throw new InvalidCxcPropertyException(
                    prefix + ".grace-epochs",
                    watchdog.getGraceEpochs(),
                    "it must be 0 or more",
                    "Set "
                            + prefix
                            + ".grace-epochs to the ticks a participant may miss before its work"
                            + " moves, e.g. 3 (the default).");
        }
        int workPerSlot = watchdog.getWorkPerSlot();
        if (workPerSlot < 1 || workPerSlot > FailoverWatchdogDescriptor.MAX_WORK_PER_SLOT) {
            throw new InvalidCxcPropertyException(
                    prefix + ".work-per-slot",
                    workPerSlot,
                    "it must be 1.." + FailoverWatchdogDescriptor.MAX_WORK_PER_SLOT,
                    "Set " + prefix + ".work-per-slot to e.g. 64 (the default).");
        }
    }

    /** A declared name is a bean name: it must not take another bean's. */
    private static void checkFree(String map, String name, BeanDefinitionRegistry registry) {
        if (registry.containsBeanDefinition(name)) {
            throw new InvalidCxcPropertyException(
                    "cxc." + map + "." + name,
                    name,
                    "a bean named '"
                            + name
                            + "' already exists (another barrier or watchdog, or"
                            + " an application bean); the name is the bean's name",
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
