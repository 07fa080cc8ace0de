package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.LeaderOnlyAdvisor;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.ownership.ElectionParticipant;
import io.subetha.cxc.ownership.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
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
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * The core of cxc: the primitive registry, the shared leader election in {@code cxc.directory}, its
 * ticker, the {@link CxcLeadership} facade and {@code @LeaderOnly}. Every bean backs off when the
 * application defines its own.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "cxc.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CxcProperties.class)
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

        private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]*");

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        SharedLeaderElection cxcLeaderElection(
                CxcProperties properties, Environment environment, PrimitiveRegistry registry) {
            // Every leader property is checked before anything is written to the directory.
            requireValidTicking(properties.getLeader());
            String name = properties.getLeader().getName();
            if (!FILE_NAME.matcher(name).matches()) {
                throw new InvalidCxcPropertyException(
                        "cxc.leader.name",
                        name,
                        "it must be a plain file name: letters, digits, '.', '_' or '-', not"
                                + " starting with '.'",
                        "Set cxc.leader.name to e.g. leader (the default); the file is"
                                + " {cxc.directory}/{name}.cxc.");
            }
            CxcFileOptions options =
                    new CxcFileOptions(
                            CxcDirectory.filePermissions(properties),
                            CxcFileOptions.OWNER_ONLY_DIRECTORY,
                            CxcFileOptions.DEFAULT_INITIALISATION_TIMEOUT);
            boolean strict = properties.isStrictPermissions();
            Path directory =
                    CxcDirectory.prepare(CxcDirectory.resolve(properties, environment), strict);
            Path file = directory.resolve(name + ".cxc");
            CxcDirectory.checkFile(file, strict);
            return registry.register(SharedLeaderElection.openOrCreate(file, options));
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
            ElectionParticipant participant =
                    new ElectionParticipant(
                            election,
                            Pids.current(),
                            leader.getGraceEpochs(),
                            leader.getTickInterval());
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
