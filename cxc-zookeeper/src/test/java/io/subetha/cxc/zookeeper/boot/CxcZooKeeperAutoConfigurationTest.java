package io.subetha.cxc.zookeeper.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.LeaderContext;
import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.boot.autoconfigure.CxcEndpointAutoConfiguration;
import io.subetha.cxc.boot.autoconfigure.CxcHealthAutoConfiguration;
import io.subetha.cxc.boot.autoconfigure.CxcMetricsAutoConfiguration;
import io.subetha.cxc.zookeeper.GlobalTier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

/**
 * The ZooKeeper backend in a Boot context, against a real ZooKeeper server: on only when asked,
 * {@code @LeaderOnly} and {@code CxcLeadership} mean global leadership with the global term, the
 * endpoint, health and meters show the second tier, and bad settings stop startup naming the
 * property and the fix.
 */
class CxcZooKeeperAutoConfigurationTest {

    @TempDir Path temp;

    private TestingServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcZooKeeperAutoConfiguration.class,
                                CxcAutoConfiguration.class,
                                CxcEndpointAutoConfiguration.class,
                                CxcHealthAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class,
                                AopAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "management.endpoints.web.exposure.include=cxc",
                        "spring.application.name=zk-boot-test");
    }

    @Test
    void withoutAConnectStringLeadershipStaysOnTheHost() {
        runner().run(
                        context -> {
                            assertThat(context).hasNotFailed().doesNotHaveBean(GlobalTier.class);
                            assertThat(context.getBean(CxcLeadership.class))
                                    .isNotInstanceOf(ZooKeeperLeadership.class);
                            assertThat(context.getBean(CxcEndpoint.class).cxc().global()).isNull();
                        });
    }

    @Test
    void backendLocalKeepsItOffEvenWithAConnectString() {
        runner().withPropertyValues(
                        "cxc.zookeeper.connect-string=" + server.getConnectString(),
                        "cxc.leader.backend=local")
                .run(
                        context ->
                                assertThat(context)
                                        .hasNotFailed()
                                        .doesNotHaveBean(GlobalTier.class));
    }

    @Test
    void backendZooKeeperWithoutAConnectStringFailsNamingThePropertyAndTheFix() {
        runner().withPropertyValues("cxc.leader.backend=zookeeper")
                .run(
                        context -> {
                            assertThat(context).hasFailed();
                            InvalidCxcPropertyException e = invalid(context.getStartupFailure());
                            assertThat(e.property()).isEqualTo("cxc.zookeeper.connect-string");
                            assertThat(e.action())
                                    .contains("zk1:2181")
                                    .contains("cxc.leader.backend");
                            assertThat(e.getMessage()).contains("cxc.zookeeper.connect-string");
                            assertThat(e.action()).contains("Set cxc.zookeeper.connect-string");
                        });
    }

    @Test
    void aBadPathOrTimeoutFailsNamingTheProperty() {
        runner().withPropertyValues(
                        "cxc.zookeeper.connect-string=" + server.getConnectString(),
                        "cxc.zookeeper.path=no-slash")
                .run(
                        context ->
                                assertThat(invalid(context.getStartupFailure()).property())
                                        .isEqualTo("cxc.zookeeper.path"));
        runner().withPropertyValues(
                        "cxc.zookeeper.connect-string=" + server.getConnectString(),
                        "cxc.zookeeper.session-timeout=0s")
                .run(
                        context ->
                                assertThat(invalid(context.getStartupFailure()).property())
                                        .isEqualTo("cxc.zookeeper.session-timeout"));
    }

    @Test
    void leaderOnlyRunsUnderTheGlobalTermAndOperatorsSeeBothTiers() throws Exception {
        // Push the latch's sequence past the host election's term, so the two cannot be confused.
        String path = "/cxc/zk-boot-test/leader";
        try (CuratorFramework client =
                CuratorFrameworkFactory.newClient(
                        server.getConnectString(), new RetryOneTime(100))) {
            client.start();
            client.blockUntilConnected();
            for (int i = 0; i < 6; i++) {
                String node =
                        client.create()
                                .creatingParentsIfNeeded()
                                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                                .forPath(path + "/filler-");
                client.delete().forPath(node);
            }
        }
        runner().withUserConfiguration(JobConfiguration.class)
                .withPropertyValues("cxc.zookeeper.connect-string=" + server.getConnectString())
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            CxcLeadership leadership = context.getBean(CxcLeadership.class);
                            assertThat(leadership).isInstanceOf(ZooKeeperLeadership.class);
                            await().atMost(Duration.ofSeconds(20)).until(leadership::isLeader);
                            long term = leadership.termIfLeader();
                            assertThat(term).isEqualTo(7); // sequence 6, plus one
                            assertThat(leadership.term()).isEqualTo(7);
                            // The host's own term, from its file's boot-seconds seed: not the
                            // global one.
                            assertThat(leadership.snapshot().term()).isNotEqualTo(7).isPositive();

                            Job job = context.getBean(Job.class);
                            assertThat(job.run()).isEqualTo(7L);
                            await().atMost(Duration.ofSeconds(5))
                                    .until(() -> job.gained().contains(7L));
                            assertThat(job.gained()).containsExactly(7L); // no host-tier event

                            Map<String, Object> global =
                                    context.getBean(CxcEndpoint.class).cxc().global();
                            assertThat(global)
                                    .containsEntry("self", true)
                                    .containsEntry("term", 7L)
                                    .containsEntry("leaderPid", leadership.pid())
                                    .containsEntry("connection", "CONNECTED")
                                    .containsEntry("path", path);
                            assertThat(context.getBean(CxcEndpoint.class).cxc().leader().self())
                                    .isTrue();

                            HealthIndicator health =
                                    context.getBean("cxcHealthIndicator", HealthIndicator.class);
                            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                            assertThat(health.health().getDetails()).containsKey("global");

                            SimpleMeterRegistry meters = new SimpleMeterRegistry();
                            context.getBean("cxcGlobalMeterBinder", MeterBinder.class)
                                    .bindTo(meters);
                            assertThat(meters.get("cxc.global.leader.self").gauge().value())
                                    .isEqualTo(1.0);
                            assertThat(meters.get("cxc.global.term").gauge().value())
                                    .isEqualTo(7.0);

                            // The ensemble goes away: this host leader stops leading and health
                            // says why.
                            server.stop();
                            await().atMost(Duration.ofSeconds(10))
                                    .until(() -> !leadership.isLeader());
                            assertThat(job.run()).isNull(); // skipped
                            await().atMost(Duration.ofSeconds(10))
                                    .until(() -> health.health().getStatus().equals(Status.DOWN));
                            assertThat(health.health().getDetails().get("reason"))
                                    .asString()
                                    .contains("no ZooKeeper connection");
                            server.restart();
                            await().atMost(Duration.ofSeconds(30)).until(leadership::isLeader);
                            assertThat(leadership.termIfLeader()).isGreaterThanOrEqualTo(7);
                        });
    }

    private static InvalidCxcPropertyException invalid(Throwable failure) {
        Throwable t = failure;
        while (t != null && !(t instanceof InvalidCxcPropertyException)) {
            t = t.getCause();
        }
        assertThat(t).as("an InvalidCxcPropertyException in %s", failure).isNotNull();
        return (InvalidCxcPropertyException) t;
    }

    @Configuration(proxyBeanMethods = false)
    static class JobConfiguration {

        @Bean
        Job job() {
            return new Job();
        }
    }

    static class Job {

        final List<Long> gained = new CopyOnWriteArrayList<>();

        /** A method, not the field: the bean is a class-based proxy. */
        public List<Long> gained() {
            return gained;
        }

        @LeaderOnly
        public Long run() {
            return LeaderContext.requireCurrentTerm();
        }

        @EventListener
        public void onGained(LeadershipGainedEvent event) {
            gained.add(event.term());
        }
    }
}
