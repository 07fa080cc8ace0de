package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.LeaderOnlyAdvisor;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.ownership.ElectionParticipant;
import io.subetha.cxc.ownership.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * The core of cxc: the primitive registry, the shared leader election in {@code cxc.directory}, its
 * ticker, the participants' heartbeat table beaten on each tick, the {@link CxcLeadership} facade,
 * {@code @LeaderOnly}, and the barriers and watchdogs declared under {@code cxc.barriers} and
 * {@code cxc.watchdogs}. Every bean backs off when the application defines its own.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "cxc.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CxcProperties.class)
@Import(DeclaredPrimitivesRegistrar.class)
public class CxcAutoConfiguration {

    /** The process-wide registry, so primitives the application registers show up too. */
    @Bean
    @ConditionalOnMissingBean
    PrimitiveRegistry cxcPrimitiveRegistry() {
        return PrimitiveRegistry.global();
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "cxc.leader.enabled", matchIfMissing = true)
    static class LeaderConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        SharedLeaderElection cxcLeaderElection(
                CxcProperties properties, Environment environment, PrimitiveRegistry registry) {
            // Every leader property is checked before anything is written to the directory.
            requireValidLeader(properties.getLeader());
            String name = properties.getLeader().getName();
            CxcFileOptions options = CxcDirectory.fileOptions(properties);
            Path file = CxcDirectory.file(properties, environment, name + ".cxc");
            return registry.register(
                    SharedLeaderElection.openOrCreate(file, settingsOf(properties), options));
        }

        static SharedLeaderElection.Settings settingsOf(CxcProperties properties) {
            CxcProperties.Leader leader = properties.getLeader();
            try {
                return new SharedLeaderElection.Settings(
                        leader.getTickInterval(), leader.getGraceEpochs());
            } catch (io.subetha.cxc.CxcSettingsException e) {
                boolean tick = e.setting().equals("tickInterval");
                throw new InvalidCxcPropertyException(
                        tick ? "cxc.leader.tick-interval" : "cxc.leader.grace-epochs",
                        tick ? leader.getTickInterval() : leader.getGraceEpochs(),
                        e.getMessage(),
                        tick
                                ? "Set cxc.leader.tick-interval to e.g. 50ms (the default)."
                                : "Set cxc.leader.grace-epochs to e.g. 3 (the default).");
            }
        }

        @Bean
        @ConditionalOnMissingBean
        LeaderTicker cxcLeaderTicker(
                SharedLeaderElection election,
                CxcProperties properties,
                ApplicationEventPublisher publisher,
                ObjectProvider<TickTask> tasks) {
            CxcProperties.Leader leader = properties.getLeader();
            requireValidTicking(leader);
            CxcFileOptions options = CxcDirectory.fileOptions(properties);
            boolean strict = properties.isStrictPermissions();
            ElectionParticipant participant =
                    new ElectionParticipant(
                            election,
                            Pids.current(),
                            leader.getGraceEpochs(),
                            leader.getTickInterval(),
                            leader.getPreemption(),
                            // A re-join after the file was replaced gets every directory check.
                            (path, settings) -> {
                                Path parent = path.getParent();
                                if (parent != null) {
                                    CxcDirectory.prepare(parent, strict);
                                }
                                CxcDirectory.checkFile(path, strict);
                                return SharedLeaderElection.openOrCreate(path, settings, options);
                            });
            return new LeaderTicker(
                    participant,
                    publisher,
                    leader.isStepDownOnShutdown(),
                    tasks.orderedStream().toList());
        }

        @Bean
        @ConditionalOnMissingBean
        CxcLeadership cxcLeadership(LeaderTicker ticker) {
            return new TickerLeadership(ticker);
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
                requireValidLeader(properties.getLeader());
                CxcProperties.Heartbeat heartbeat = properties.getHeartbeat();
                requireValidHeartbeat(heartbeat);
                CxcFileOptions options = CxcDirectory.fileOptions(properties);
                Path file =
                        CxcDirectory.file(
                                properties, environment, heartbeat.getName() + ".heartbeat");
                return registry.register(
                        HeartbeatTable.openOrCreate(file, heartbeat.getCapacity(), options));
            }

            @Bean
            @ConditionalOnMissingBean
            ParticipantRegistration cxcParticipantRegistration(
                    HeartbeatTable table,
                    CxcProperties properties,
                    ObjectProvider<SharedLeaderElection> election) {
                // The participants beat at the election file's stored pace, not each one's own:
                // a slow participant would otherwise look stale to a fast one.
                SharedLeaderElection shared = election.getIfAvailable();
                return new ParticipantRegistration(
                        table,
                        Pids.current(),
                        properties.getHeartbeat().getGraceEpochs(),
                        shared != null
                                ? shared.settings().tickInterval()
                                : properties.getLeader().getTickInterval());
            }

            @Bean
            @ConditionalOnMissingBean
            CxcParticipants cxcParticipants(
                    HeartbeatTable table,
                    CxcProperties properties,
                    ObjectProvider<SharedLeaderElection> election) {
                return new CxcParticipants(
                        table,
                        properties.getHeartbeat().getGraceEpochs(),
                        election.getIfAvailable());
            }

            static void requireValidHeartbeat(CxcProperties.Heartbeat heartbeat) {
                CxcDirectory.requireFileName(
                        "cxc.heartbeat.name",
                        heartbeat.getName(),
                        "Set cxc.heartbeat.name to e.g. participants (the default); the file is"
                                + " {cxc.directory}/{name}.heartbeat.");
                int capacity = heartbeat.getCapacity();
                if (capacity < 1 || capacity > HeartbeatTable.IN_FLIGHT_SLOTS) {
                    throw new InvalidCxcPropertyException(
                            "cxc.heartbeat.capacity",
                            capacity,
                            "it must be 1.." + HeartbeatTable.IN_FLIGHT_SLOTS,
                            "Set cxc.heartbeat.capacity to the most processes that take part at"
                                    + " once, e.g. 64 (the default).");
                }
                if (heartbeat.getGraceEpochs() < 0) {
                    throw new InvalidCxcPropertyException(
                            "cxc.heartbeat.grace-epochs",
                            heartbeat.getGraceEpochs(),
                            "it must be 0 or more",
                            "Set cxc.heartbeat.grace-epochs to the ticks a participant may miss"
                                    + " before it counts as not alive, e.g. 3 (the default).");
                }
            }
        }

        static void requireValidLeader(CxcProperties.Leader leader) {
            requireValidTicking(leader);
            CxcDirectory.requireFileName(
                    "cxc.leader.name",
                    leader.getName(),
                    "Set cxc.leader.name to e.g. leader (the default); the file is"
                            + " {cxc.directory}/{name}.cxc.");
        }

        private static void requireValidTicking(CxcProperties.Leader leader) {
            if (leader.getGraceEpochs() < 0) {
                throw new InvalidCxcPropertyException(
                        "cxc.leader.grace-epochs",
                        leader.getGraceEpochs(),
                        "it must be 0 or more",
                        "Set cxc.leader.grace-epochs to the number of ticks a leader may miss"
                                + " before it is replaced, e.g. 3 (the default).");
            }
            Duration interval = leader.getTickInterval();
            if (interval == null || interval.isNegative() || interval.isZero()) {
                throw new InvalidCxcPropertyException(
                        "cxc.leader.tick-interval",
                        interval,
                        "it must be positive",
                        "Set cxc.leader.tick-interval to e.g. 50ms (the default).");
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.aop.support.AbstractPointcutAdvisor")
    static class LeaderOnlyConfiguration {

        // Static and lazy: the proxy infrastructure creates advisors early; the election (and its
        // property checks) must not be pulled in with it. Applied even when the election is off
        // (cxc.leader.enabled=false), skipping every call: a non-participant never leads.
        @Bean
        @ConditionalOnMissingBean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static LeaderOnlyAdvisor cxcLeaderOnlyAdvisor(
                ObjectProvider<SharedLeaderElection> election) {
            return new LeaderOnlyAdvisor(election::getIfAvailable, Pids.current());
        }
    }
}
