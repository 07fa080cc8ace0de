package io.subetha.cxc.zookeeper.boot;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.LeadershipLostEvent;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.zookeeper.GlobalTier;
import io.subetha.cxc.zookeeper.GlobalTierSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.zookeeper.common.PathUtils;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Leadership across hosts on ZooKeeper, when {@code cxc.zookeeper.connect-string} (or {@code
 * cxc.leader.backend=zookeeper}) is set and Curator is on the classpath. The host election and its
 * ticker stay as the core auto-configuration makes them; this adds the {@link GlobalTier} as the
 * starter's {@link io.subetha.cxc.boot.ticker.LeadershipTier} ({@link ZooKeeperTier}: ticked after
 * every host round, and the {@code CxcLeadership} bean is {@link ZooKeeperLeadership}, so
 * {@code @LeaderOnly}, {@code isLeader()} and the leadership events mean global leadership), and
 * adds {@code cxc.global.*} meters.
 */
@AutoConfiguration(
        before = CxcAutoConfiguration.class,
        afterName =
                "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration")
@ConditionalOnClass({CuratorFramework.class, LeaderLatch.class, CxcAutoConfiguration.class})
@ConditionalOnBooleanProperty(name = "cxc.enabled", matchIfMissing = true)
@Conditional(OnZooKeeperBackendCondition.class)
@EnableConfigurationProperties(CxcZooKeeperProperties.class)
public final class CxcZooKeeperAutoConfiguration {

    private static final Log logger = LogFactory.getLog(CxcZooKeeperAutoConfiguration.class);

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "cxc.leader.enabled", matchIfMissing = true)
    static class GlobalTierConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        GlobalTier cxcGlobalTier(
                SharedLeaderElection election,
                CxcZooKeeperProperties properties,
                Environment environment,
                ApplicationEventPublisher publisher) {
            GlobalTierSettings settings = settings(election.file(), properties, environment);
            long pid = Pids.current();
            Object[] source = new Object[1];
            GlobalTier tier =
                    new GlobalTier(
                            election,
                            pid,
                            settings,
                            new GlobalTier.Listener() {
                                @Override
                                public void gained(long term) {
                                    publish(
                                            publisher,
                                            new LeadershipGainedEvent(source[0], pid, term));
                                }

                                @Override
                                public void lost(long term) {
                                    publish(
                                            publisher,
                                            new LeadershipLostEvent(source[0], pid, term));
                                }
                            });
            source[0] = tier;
            return tier;
        }

        private static void publish(ApplicationEventPublisher publisher, Object event) {
            try {
                publisher.publishEvent(event);
            } catch (RuntimeException e) {
                logger.warn("cxc: a listener of " + event + " failed", e);
            }
        }

        /**
         * The global tier as the starter's leadership tier: ticked after every host round, the
         * application's leadership ({@link ZooKeeperLeadership}) over the host's, and its state in
         * {@code /actuator/cxc} and health.
         */
        @Bean
        @ConditionalOnMissingBean
        ZooKeeperTier cxcLeadershipTier(GlobalTier tier, SharedLeaderElection election) {
            return new ZooKeeperTier(tier, election);
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(MeterBinder.class)
        static class GlobalMetersConfiguration {

            @Bean
            @ConditionalOnMissingBean(name = "cxcGlobalMeterBinder")
            MeterBinder cxcGlobalMeterBinder(GlobalTier tier) {
                return registry -> {
                    Gauge.builder("cxc.global.leader.self", tier, t -> t.isLeader() ? 1 : 0)
                            .description("1 if this process leads globally (ZooKeeper), else 0")
                            .strongReference(true)
                            .register(registry);
                    Gauge.builder(
                                    "cxc.global.term",
                                    tier,
                                    t -> {
                                        long own = t.termIfLeader();
                                        return own != GlobalTier.NOT_LEADER
                                                ? own
                                                : t.globalLeader().term();
                                    })
                            .description(
                                    "The global term (the leader's latch node sequence + 1):"
                                            + " rises on each global handover")
                            .strongReference(true)
                            .register(registry);
                };
            }
        }
    }

    /**
     * The lock providers' leases across hosts ({@code CxcLockProvider}, {@code CxcLockRegistry}):
     * each lease table's names also locked on ZooKeeper, under {@code <path's
     * parent>/leases/<table>}.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LeaseBackend.Factory.class)
    ZooKeeperLeaseBackends cxcLeaseBackendFactory(
            CxcZooKeeperProperties properties, Environment environment) {
        return new ZooKeeperLeaseBackends(local -> settings(local.file(), properties, environment));
    }

    /**
     * @param cxcFile a file in this host's cxc directory (the election's, a lease table's)
     */
    static GlobalTierSettings settings(
            Path cxcFile, CxcZooKeeperProperties properties, Environment environment) {
        String connect = properties.getConnectString();
        if (connect == null || connect.isBlank()) {
            throw new InvalidCxcPropertyException(
                    "cxc.zookeeper.connect-string",
                    connect,
                    "cxc.leader.backend=zookeeper needs the ZooKeeper ensemble to elect the"
                            + " global leader in",
                    "Set cxc.zookeeper.connect-string to the ensemble, e.g."
                            + " zk1:2181,zk2:2181,zk3:2181, or remove cxc.leader.backend=zookeeper"
                            + " for leadership on this host only.");
        }
        Duration session = properties.getSessionTimeout();
        if (session == null
                || session.isNegative()
                || session.isZero()
                || session.toMillis() > Integer.MAX_VALUE) {
            throw new InvalidCxcPropertyException(
                    "cxc.zookeeper.session-timeout",
                    session,
                    "it must be positive (and under 24 days)",
                    "Set cxc.zookeeper.session-timeout to e.g. 10s (the default): a whole host's"
                            + " death fails over after about this long.");
        }
        Duration connection = properties.getConnectionTimeout();
        if (connection == null
                || connection.isNegative()
                || connection.isZero()
                || connection.toMillis() > Integer.MAX_VALUE) {
            throw new InvalidCxcPropertyException(
                    "cxc.zookeeper.connection-timeout",
                    connection,
                    "it must be positive (and under 24 days)",
                    "Set cxc.zookeeper.connection-timeout to e.g. 3s (the default).");
        }
        String path = properties.getPath();
        if (path == null) {
            String application =
                    environment.getProperty("spring.application.name", "application").trim();
            application = application.isEmpty() ? "application" : application;
            path = "/cxc/" + application.replaceAll("[^A-Za-z0-9._-]", "-") + "/leader";
        }
        try {
            PathUtils.validatePath(path);
            if (path.equals("/")) {
                throw new IllegalArgumentException("the root znode cannot hold the latch");
            }
        } catch (IllegalArgumentException e) {
            throw new InvalidCxcPropertyException(
                    "cxc.zookeeper.path",
                    path,
                    "it is not a usable znode path: " + e.getMessage(),
                    "Set cxc.zookeeper.path to an absolute znode path such as /cxc/myapp/leader,"
                            + " or remove it for /cxc/{spring.application.name}/leader.");
        }
        String host = properties.getHostName();
        if (host == null || host.isBlank()) {
            host = machineName() + ":" + cxcFile.getParent();
        }
        return GlobalTierSettings.beside(cxcFile, connect.trim(), session, connection, path, host);
    }

    private static String machineName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            String name = System.getenv("HOSTNAME");
            return name == null ? "localhost" : name;
        }
    }
}
