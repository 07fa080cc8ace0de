package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.LeadershipEvent;
import io.subetha.cxc.boot.aop.LeaderOnlyAdvisor;
import io.subetha.cxc.boot.aop.LeaderOnlyDrain;
import io.subetha.cxc.boot.aop.LeaderOnlyObserver;
import io.subetha.cxc.boot.liveness.CxcParticipants;
import io.subetha.cxc.boot.liveness.ParticipantRegistration;
import io.subetha.cxc.boot.scheduling.FanoutNames;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.LeadershipLog;
import io.subetha.cxc.boot.ticker.LeadershipTier;
import io.subetha.cxc.boot.ticker.NonParticipantLeadership;
import io.subetha.cxc.boot.ticker.TickLookup;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * The core of cxc: the primitive registry, the shared leader election in {@code cxc.directory}, its
 * ticker, the participants' heartbeat table beaten on each tick, the {@link CxcLeadership} facade,
 * {@code @LeaderOnly}, and the barriers and watchdogs declared under {@code cxc.barriers} and
 * {@code cxc.watchdogs}. Every bean backs off when the application defines its own.
 *
 * <p>With {@code cxc.enabled=false} (or {@code cxc.leader.enabled=false}) the {@code @LeaderOnly}
 * advisor stays, over a {@link CxcLeadership} that never leads: the methods are skipped (refused in
 * THROW mode) instead of running on every instance, and a WARN at startup says so.
 */
@AutoConfiguration
@EnableConfigurationProperties(CxcProperties.class)
@Import(DeclaredPrimitivesRegistrar.class)
public final class CxcAutoConfiguration {

    private static final Log logger = LogFactory.getLog(CxcAutoConfiguration.class);

    /**
     * This context's own registry, not {@link PrimitiveRegistry#global()}: two contexts in one JVM
     * (cached test contexts, a parent and a child) each show and meter their own primitives, and no
     * {@code cxc.ops} meter is registered twice. Primitives the application opens itself show up
     * when registered in this bean.
     */
    @Bean
    @ConditionalOnMissingBean
    PrimitiveRegistry cxcPrimitiveRegistry() {
        return new PrimitiveRegistry();
    }

    /**
     * Where the primitives live: {@code cxc.directory}, or with cxc off a private directory (see
     * {@link CxcFileLocation}). Destroyed after every primitive, which all depend on it.
     */
    @Bean
    CxcFileLocation cxcFileLocation(CxcProperties properties, Environment environment) {
        return new CxcFileLocation(properties, environment);
    }

    /**
     * Opens the application's codec-typed primitives by name in {@code cxc.directory}; see {@link
     * CxcPrimitives}. With cxc off, in the private directory.
     */
    @Bean
    @ConditionalOnMissingBean
    CxcPrimitives cxcPrimitives(CxcFileLocation location, PrimitiveRegistry registry) {
        return new DirectoryPrimitives(location, registry);
    }

    /**
     * With cxc off, a watchdog still needs this process's slot in a heartbeat table: a private one,
     * in which this process registers and, with no ticker, never ages (the table's epoch advances
     * only on the participants' ticks), so work assigned to it stays with it: alone, there is no
     * one to hand it to.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "cxc.enabled", havingValue = false)
    static class AloneConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        HeartbeatTable cxcHeartbeatTable(
                CxcProperties properties, CxcFileLocation location, PrimitiveRegistry registry) {
            CxcProperties.Heartbeat heartbeat = properties.getHeartbeat();
            return registry.register(
                    HeartbeatTable.TYPE.openOrCreate(
                            location.file(heartbeat.getName() + ".heartbeat"),
                            CxcSettings.heartbeat(heartbeat),
                            location.options()));
        }

        @Bean
        @ConditionalOnMissingBean
        ParticipantRegistration cxcParticipantRegistration(
                HeartbeatTable table, CxcProperties properties) {
            return new ParticipantRegistration(
                    table,
                    Pids.current(),
                    properties.getHeartbeat().getGraceEpochs(),
                    properties.getLeader().getTickInterval());
        }

        @Bean
        @ConditionalOnMissingBean
        CxcParticipants cxcParticipants(
                HeartbeatTable table,
                CxcProperties properties,
                ObjectProvider<ParticipantRegistration> registration) {
            return new CxcParticipants(
                    table,
                    properties.getHeartbeat().getGraceEpochs(),
                    null,
                    registration.getIfAvailable());
        }
    }

    /** Says at INFO when this process gains or loses leadership, with the term. */
    /** Refuses a FanoutHandler (or FanoutCodec) naming a fan-out nothing declares. */
    @Bean
    static FanoutNames cxcFanoutNames(ListableBeanFactory beans) {
        return new FanoutNames(beans);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "cxc.enabled", matchIfMissing = true)
    @ConditionalOnMissingBean
    LeadershipLog cxcLeadershipLog() {
        return new LeadershipLog();
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(
            name = {"cxc.enabled", "cxc.leader.enabled"},
            matchIfMissing = true)
    static class LeaderConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        SharedLeaderElection cxcLeaderElection(
                CxcProperties properties, Environment environment, PrimitiveRegistry registry) {
            // Every leader property is checked before anything is written to the directory.
            SharedLeaderElection.Settings settings = CxcSettings.leader(properties.getLeader());
            String name = properties.getLeader().getName();
            CxcFileOptions options = CxcDirectory.fileOptions(properties);
            Path file = CxcDirectory.file(properties, environment, name + ".cxc");
            // The tick interval and grace go into a new file; an existing one keeps its own.
            return registry.register(
                    SharedLeaderElection.TYPE.openOrCreate(file, settings, options));
        }

        /**
         * This process's ticker. With a {@link LeadershipTier} above the host election, the tier's
         * round runs right after each host round (after only the first tasks, such as this
         * process's heartbeat beat), and the host's leadership edges are not published: the events
         * then mean the tier's leadership, which the tier publishes.
         */
        @Bean
        @ConditionalOnMissingBean
        LeaderTicker cxcLeaderTicker(
                SharedLeaderElection election,
                CxcProperties properties,
                Environment environment,
                ApplicationEventPublisher publisher,
                ObjectProvider<TickTask> tasks,
                ObjectProvider<LeadershipTier> tier) {
            CxcProperties.Leader leader = properties.getLeader();
            LeadershipTier above = tier.getIfAvailable();
            List<TickTask> ordered = new ArrayList<>(tasks.orderedStream().toList());
            ApplicationEventPublisher events = publisher;
            if (above != null) {
                int first = 0;
                while (first < ordered.size()
                        && ordered.get(first) instanceof Ordered o
                        && o.getOrder() == Ordered.HIGHEST_PRECEDENCE) {
                    first++;
                }
                ordered.add(first, above::afterHostRound);
                events =
                        event -> {
                            if (!(event instanceof LeadershipEvent)) {
                                publisher.publishEvent(event);
                            }
                        };
            }
            // A file deleted or replaced under this process is re-joined through the same
            // directory checks as at startup (the directory may have to be created again).
            String fileName = leader.getName() + ".cxc";
            return LeaderTicker.forLeader(
                    election,
                    CxcSettings.ticker(leader),
                    events,
                    ordered,
                    (path, settings) ->
                            SharedLeaderElection.TYPE.openOrCreate(
                                    CxcDirectory.file(properties, environment, fileName),
                                    settings,
                                    CxcDirectory.fileOptions(properties)));
        }

        /** Interrupts {@code @LeaderOnly(interruptOnLoss = true)} calls whose term was lost. */
        @Bean
        @ConditionalOnClass(name = "org.springframework.aop.support.AbstractPointcutAdvisor")
        TickTask cxcLeaderOnlyInterrupts(ObjectProvider<LeaderOnlyAdvisor> advisor) {
            TickLookup<LeaderOnlyAdvisor> lookup = new TickLookup<>(advisor);
            return () -> {
                LeaderOnlyAdvisor a = lookup.get();
                if (a != null) {
                    a.interruptCallsThatLostLeadership();
                }
            };
        }

        /** Lets running {@code @LeaderOnly} calls finish before the ticker steps down. */
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnClass(name = "org.springframework.aop.support.AbstractPointcutAdvisor")
        LeaderOnlyDrain cxcLeaderOnlyDrain(
                ObjectProvider<LeaderOnlyAdvisor> advisor,
                LeaderTicker ticker,
                CxcProperties properties,
                Environment environment) {
            // Bound as Boot binds it ("20s", "PT20S", "20000"): the environment's own conversion
            // knows no Duration outside a SpringApplication (ApplicationContextRunner, plain
            // contexts).
            Duration phase =
                    Binder.get(environment)
                            .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                            .orElse(Duration.ofSeconds(30));
            return new LeaderOnlyDrain(
                    advisor.getIfAvailable(),
                    ticker,
                    CxcSettings.leaderShutdownTimeout(properties.getLeader(), phase));
        }

        @Bean
        @ConditionalOnMissingBean
        CxcLeadership cxcLeadership(
                LeaderTicker ticker,
                CxcProperties properties,
                Environment environment,
                ObjectProvider<LeadershipTier> tier) {
            LeadershipTier above = tier.getIfAvailable();
            if (above != null) {
                return above.leadership(ticker.leadership());
            }
            // A backend across hosts brings its tier; the backend asked for without one means its
            // module is missing.
            String connect = environment.getProperty("cxc.zookeeper.connect-string", "");
            CxcProperties.Leader.Backend backend = properties.getLeader().getBackend();
            if (backend == CxcProperties.Leader.Backend.ZOOKEEPER
                    || (backend == null && !connect.isBlank())) {
                throw new InvalidCxcPropertyException(
                        backend == null ? "cxc.zookeeper.connect-string" : "cxc.leader.backend",
                        backend == null ? connect : "zookeeper",
                        "the ZooKeeper backend (module cxc-zookeeper) is not on the classpath",
                        "Add the dependency io.subetha:cxc-zookeeper beside the starter, or"
                                + " remove cxc.leader.backend and cxc.zookeeper.connect-string"
                                + " for leadership on this host only.");
            }
            return ticker.leadership();
        }

        /**
         * The participants' heartbeat table: this process registers in it and beats on each tick,
         * so every participant can tell which of the others are alive.
         */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnBooleanProperty(name = "cxc.heartbeat.enabled", matchIfMissing = true)
        static class HeartbeatConfiguration {

            @Bean(destroyMethod = "close")
            @ConditionalOnMissingBean
            HeartbeatTable cxcHeartbeatTable(
                    CxcProperties properties, Environment environment, PrimitiveRegistry registry) {
                // Whichever file is created first, every property is checked before it.
                CxcSettings.leader(properties.getLeader());
                CxcProperties.Heartbeat heartbeat = properties.getHeartbeat();
                HeartbeatTable.Settings settings = CxcSettings.heartbeat(heartbeat);
                CxcFileOptions options = CxcDirectory.fileOptions(properties);
                Path file =
                        CxcDirectory.file(
                                properties, environment, heartbeat.getName() + ".heartbeat");
                return registry.register(HeartbeatTable.TYPE.openOrCreate(file, settings, options));
            }

            @Bean
            @ConditionalOnMissingBean
            ParticipantRegistration cxcParticipantRegistration(
                    HeartbeatTable table, CxcProperties properties, SharedLeaderElection election) {
                // At the election file's pace, as the ticker: a process configured with another
                // tick interval would otherwise pace the table's epoch and make the others look
                // stale (their watchdog work moved away).
                return new ParticipantRegistration(
                        table,
                        Pids.current(),
                        properties.getHeartbeat().getGraceEpochs(),
                        election.settings().tickInterval());
            }

            @Bean
            @ConditionalOnMissingBean
            CxcParticipants cxcParticipants(
                    HeartbeatTable table,
                    CxcProperties properties,
                    ObjectProvider<SharedLeaderElection> election,
                    ObjectProvider<ParticipantRegistration> registration) {
                return new CxcParticipants(
                        table,
                        properties.getHeartbeat().getGraceEpochs(),
                        election.getIfAvailable(),
                        registration.getIfAvailable());
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.aop.support.AbstractPointcutAdvisor")
    static class LeaderOnlyConfiguration {

        // Static and lazy: the proxy infrastructure creates advisors early; the leadership bean
        // (the election and its property checks) and the meters must not be pulled in with it.
        // Applied even when cxc or the election is off, skipping every call: a non-participant
        // never leads.
        @Bean
        @ConditionalOnMissingBean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static LeaderOnlyAdvisor cxcLeaderOnlyAdvisor(
                ObjectProvider<CxcLeadership> leadership,
                ObjectProvider<LeaderOnlyObserver> observer) {
            return new LeaderOnlyAdvisor(
                    leadership::getIfAvailable, observer::getIfAvailable, Pids.current());
        }
    }

    /** When this process takes no part in the election: a leadership that never leads. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(NotParticipating.class)
    static class NonParticipantConfiguration {

        @Bean
        @ConditionalOnMissingBean
        CxcLeadership cxcLeadership(Environment environment) {
            boolean cxcOff = !environment.getProperty("cxc.enabled", Boolean.class, true);
            String why = cxcOff ? "cxc.enabled=false" : "cxc.leader.enabled=false";
            if (cxcOff) {
                logger.warn(
                        "cxc is off (cxc.enabled=false): this process takes no part in the"
                                + " election and never leads, so @LeaderOnly methods are skipped"
                                + " here (THROW ones throw NotLeaderException). In a test that"
                                + " should run them, use @AutoConfigureCxc(leadership = ALWAYS)"
                                + " from cxc-spring-boot-test.");
            } else {
                logger.info(
                        "cxc: cxc.leader.enabled=false: this process never leads; @LeaderOnly"
                                + " methods are skipped here");
            }
            return new NonParticipantLeadership(Pids.current(), why);
        }
    }

    /** {@code cxc.enabled=false} or {@code cxc.leader.enabled=false}. */
    static final class NotParticipating extends AnyNestedCondition {

        NotParticipating() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBooleanProperty(name = "cxc.enabled", havingValue = false)
        static final class CxcOff {}

        @ConditionalOnBooleanProperty(name = "cxc.leader.enabled", havingValue = false)
        static final class ElectionOff {}
    }
}
