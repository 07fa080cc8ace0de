package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.LeadershipEvent;
import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.LeadershipLostEvent;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.boot.aop.LeaderOnlyAdvisor;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.NonParticipantLeadership;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.process.Pids;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.FileSystemUtils;

@ExtendWith(OutputCaptureExtension.class)
class CxcAutoConfigurationTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcEndpointAutoConfiguration.class,
                                CxcHealthAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class))
                .withPropertyValues("cxc.directory=" + temp.resolve("cxc"));
    }

    @Test
    void defaultsElectThisProcessInAnOwnerOnlyFileUnderDevShm() throws IOException {
        String application = "cxc-test-" + UUID.randomUUID();
        // Per user, so that several users of one host each get their own, owner-only.
        String perUser = "cxc-" + CxcDirectory.currentUid();
        Path base =
                Files.isDirectory(Path.of("/dev/shm"))
                        ? Path.of("/dev/shm", perUser)
                        : Path.of(System.getProperty("java.io.tmpdir"), perUser);
        boolean baseExisted = Files.exists(base);
        Path expected = base.resolve(application);
        try {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class))
                    .withPropertyValues("spring.application.name=" + application)
                    .run(
                            context -> {
                                assertThat(context).hasNotFailed();
                                SharedLeaderElection election =
                                        context.getBean(SharedLeaderElection.class);
                                assertThat(election.file())
                                        .isEqualTo(expected.resolve("leader.cxc"));
                                assertThat(
                                                PosixFilePermissions.toString(
                                                        Files.getPosixFilePermissions(
                                                                election.file())))
                                        .isEqualTo("rw-------");
                                assertThat(
                                                PosixFilePermissions.toString(
                                                        Files.getPosixFilePermissions(expected)))
                                        .isEqualTo("rwx------");
                                assertThat(
                                                PosixFilePermissions.toString(
                                                        Files.getPosixFilePermissions(base)))
                                        .isEqualTo("rwx------");
                                assertThat(Files.getAttribute(base, "unix:uid"))
                                        .isEqualTo(CxcDirectory.currentUid());
                                assertThat(context)
                                        .hasSingleBean(LeaderTicker.class)
                                        .hasSingleBean(CxcLeadership.class)
                                        .hasSingleBean(LeaderOnlyAdvisor.class);
                                // This context's own view, not the process-wide one.
                                PrimitiveRegistry registry =
                                        context.getBean(PrimitiveRegistry.class);
                                assertThat(registry).isNotSameAs(PrimitiveRegistry.global());
                                assertThat(registry.primitives()).contains(election);
                                assertThat(PrimitiveRegistry.global().primitives())
                                        .doesNotContain(election);

                                LeaderTicker ticker = context.getBean(LeaderTicker.class);
                                assertThat(ticker.isRunning()).isTrue();
                                assertThat(ticker.tickInterval()).isEqualTo(Duration.ofMillis(50));
                                assertThat(ticker.participant().graceEpochs()).isEqualTo(3);

                                CxcLeadership leadership = context.getBean(CxcLeadership.class);
                                assertThat(leadership.isLeader()).isTrue();
                                assertThat(leadership.currentLeader())
                                        .isEqualTo(OptionalLong.of(Pids.current()));
                                assertThat(leadership.term()).isPositive();
                                await().atMost(Duration.ofSeconds(10))
                                        .until(() -> election.globalEpoch() >= 3);
                            });
        } finally {
            FileSystemUtils.deleteRecursively(baseExisted ? expected : base);
        }
    }

    @Test
    void aDeadLowerPidLeaderIsTakenOverAtTheFirstTickWithoutWaitingOutTheGrace() {
        long dead = Pids.current() - 1;
        while (dead > 1 && Files.exists(Path.of("/proc", Long.toString(dead)))) {
            dead--;
        }
        assertThat(dead).as("a free PID below ours").isGreaterThan(1);
        Path file = temp.resolve("cxc").resolve("leader.cxc");
        long deadTerm;
        try (SharedLeaderElection election = SharedLeaderElection.openOrCreate(file)) {
            assertThat(election.tryClaimLeadership(dead)).isTrue();
            deadTerm = election.electionTerm();
        }
        runner().withPropertyValues("cxc.leader.grace-epochs=1000000")
                .run(
                        context -> {
                            // Lower and within its grace, so only its death lets us in.
                            SharedLeaderElection election =
                                    context.getBean(SharedLeaderElection.class);
                            assertThat(election.currentLeader()).hasValue(Pids.current());
                            assertThat(election.electionTerm()).isEqualTo(deadTerm + 1);
                        });
    }

    @Test
    void cxcEnabledFalseRunsAloneWithALeadershipThatNeverLeadsAndTheAdvisor() {
        runner().withPropertyValues("cxc.enabled=false")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context)
                                    // The primitives, alone in a private directory.
                                    .hasSingleBean(PrimitiveRegistry.class)
                                    .doesNotHaveBean(SharedLeaderElection.class)
                                    .doesNotHaveBean(LeaderTicker.class)
                                    // @LeaderOnly methods are skipped, not run everywhere.
                                    .hasSingleBean(LeaderOnlyAdvisor.class)
                                    .hasSingleBean(CxcLeadership.class);
                            assertThat(context.getBean(CxcLeadership.class))
                                    .isInstanceOf(NonParticipantLeadership.class);
                        });
        assertThat(temp.resolve("cxc")).doesNotExist();
    }

    @Test
    void leaderEnabledFalseKeepsTheRegistryButTakesNoPartInTheElection() {
        runner().withPropertyValues("cxc.leader.enabled=false")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context)
                                    .hasSingleBean(PrimitiveRegistry.class)
                                    .doesNotHaveBean(SharedLeaderElection.class)
                                    .doesNotHaveBean(LeaderTicker.class)
                                    .doesNotHaveBean(HealthIndicator.class);
                            assertThat(context.getBean(CxcLeadership.class).isLeader()).isFalse();
                            assertThat(context.getBean(CxcLeadership.class))
                                    .isInstanceOf(NonParticipantLeadership.class);
                        });
        assertThat(temp.resolve("cxc").resolve("leader.cxc")).doesNotExist();
    }

    @Test
    void userBeansReplaceOurs() {
        runner().withUserConfiguration(UserBeans.class)
                .withPropertyValues("test.dir=" + temp)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context.getBean(SharedLeaderElection.class).file())
                                    .isEqualTo(temp.resolve("mine.cxc"));
                            assertThat(context.getBean(CxcLeadership.class))
                                    .isSameAs(UserBeans.LEADERSHIP);
                            assertThat(context.getBean(PrimitiveRegistry.class))
                                    .isNotSameAs(PrimitiveRegistry.global());
                            assertThat(context).getBeans(SharedLeaderElection.class).hasSize(1);
                        });
        assertThat(temp.resolve("cxc").resolve("leader.cxc")).doesNotExist();
    }

    @Configuration(proxyBeanMethods = false)
    static class UserBeans {
        static final CxcLeadership LEADERSHIP =
                new CxcLeadership() {
                    @Override
                    public long pid() {
                        return 1;
                    }

                    @Override
                    public boolean isLeader() {
                        return false;
                    }

                    @Override
                    public OptionalLong currentLeader() {
                        return OptionalLong.empty();
                    }

                    @Override
                    public long term() {
                        return 0;
                    }

                    @Override
                    public boolean stepDown() {
                        return false;
                    }

                    @Override
                    public io.subetha.cxc.election.LeaderSnapshot snapshot() {
                        return new io.subetha.cxc.election.LeaderSnapshot(0, 0, 0, 0, 0);
                    }
                };

        @Bean(destroyMethod = "close")
        SharedLeaderElection myElection(Environment environment) {
            return SharedLeaderElection.openOrCreate(
                    Path.of(environment.getRequiredProperty("test.dir")).resolve("mine.cxc"));
        }

        @Bean
        PrimitiveRegistry myRegistry() {
            return new PrimitiveRegistry();
        }

        @Bean
        CxcLeadership myLeadership() {
            return LEADERSHIP;
        }
    }

    @Test
    void withActuatorAndMicrometerTheEndpointHealthAndMetersLightUp() {
        runner().withPropertyValues(
                        "management.endpoints.web.exposure.include=cxc",
                        "cxc.leader.grace-epochs=7")
                .withBean(SimpleMeterRegistry.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context).hasSingleBean(CxcEndpoint.class);
                            assertThat(context).hasBean("cxcHealthIndicator");
                            assertThat(context).hasBean("cxcMeterBinder");
                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);
                            assertThat(meters.get("cxc.leader.self").gauge().value()).isEqualTo(1);
                            assertThat(meters.get("cxc.leader.term").gauge().value()).isPositive();
                            assertThat(
                                            meters.get("cxc.leader.heartbeat.lag")
                                                    .gauge()
                                                    .getId()
                                                    .getBaseUnit())
                                    .isEqualTo("epochs");
                            assertThat(meters.get("cxc.leader.grace").gauge().value()).isEqualTo(7);
                            assertThat(meters.get("cxc.leader.grace").gauge().getId().getBaseUnit())
                                    .isEqualTo("epochs");
                            assertThat(meters.get("cxc.epoch").gauge()).isNotNull();
                            assertThat(
                                            meters.get("cxc.ops")
                                                    .tags(
                                                            "primitive",
                                                            "leader.cxc",
                                                            "kind",
                                                            "leader-election",
                                                            "op",
                                                            "beat")
                                                    .functionCounter()
                                                    .count())
                                    .isPositive();

                            HealthIndicator health =
                                    context.getBean("cxcHealthIndicator", HealthIndicator.class);
                            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                            context.getBean(LeaderTicker.class).stop();
                            assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
                            assertThat(health.health().getDetails().get("reason"))
                                    .asString()
                                    .contains("ticker is not running");

                            CxcEndpoint.CxcDescriptor described =
                                    context.getBean(CxcEndpoint.class).cxc();
                            assertThat(described.pid()).isEqualTo(Pids.current());
                            assertThat(described.directory())
                                    .isEqualTo(temp.resolve("cxc").toString());
                            assertThat(described.primitives())
                                    .anySatisfy(
                                            p -> assertThat(p.kind()).isEqualTo("leader-election"));
                        });
    }

    @Test
    void healthIsDownWhenTheElectionFileIsDeletedUnderIt() {
        runner().run(
                        context -> {
                            HealthIndicator health =
                                    context.getBean("cxcHealthIndicator", HealthIndicator.class);
                            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                            Files.delete(context.getBean(SharedLeaderElection.class).file());
                            assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
                            assertThat(health.health().getDetails().get("reason"))
                                    .asString()
                                    .contains("was deleted");
                        });
    }

    @Test
    void withoutActuatorOrMicrometerTheContextStartsWithoutThoseBeans() {
        runner().withPropertyValues("management.endpoints.web.exposure.include=cxc")
                .withClassLoader(
                        new FilteredClassLoader(
                                "org.springframework.boot.actuate",
                                "org.springframework.boot.health",
                                "io.micrometer"))
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context)
                                    .hasSingleBean(SharedLeaderElection.class)
                                    .hasSingleBean(CxcLeadership.class)
                                    .doesNotHaveBean(CxcEndpoint.class)
                                    .doesNotHaveBean("cxcHealthIndicator")
                                    .doesNotHaveBean("cxcMeterBinder");
                            assertThat(context.getBean(CxcLeadership.class).isLeader()).isTrue();
                        });
    }

    @Test
    void eventsOnGainAndOnStepDownAtShutdown() {
        List<Object> events = new CopyOnWriteArrayList<>();
        ApplicationListener<LeadershipEvent> recorder = events::add;
        runner().withBean(LeadershipRecorder.class, () -> new LeadershipRecorder(recorder))
                .run(
                        context -> {
                            SharedLeaderElection election =
                                    context.getBean(SharedLeaderElection.class);
                            long term = election.electionTerm();
                            // Published on the events thread, a moment after the edge.
                            await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
                            assertThat(events)
                                    .filteredOn(LeadershipGainedEvent.class::isInstance)
                                    .singleElement()
                                    .satisfies(
                                            e -> {
                                                assertThat(((LeadershipGainedEvent) e).term())
                                                        .isEqualTo(term);
                                                assertThat(((LeadershipGainedEvent) e).pid())
                                                        .isEqualTo(Pids.current());
                                            });
                            context.close();
                            assertThat(events)
                                    .filteredOn(LeadershipLostEvent.class::isInstance)
                                    .singleElement()
                                    .satisfies(
                                            e ->
                                                    assertThat(((LeadershipLostEvent) e).term())
                                                            .isEqualTo(term));
                        });
        try (SharedLeaderElection election =
                SharedLeaderElection.open(temp.resolve("cxc").resolve("leader.cxc"))) {
            assertThat(election.currentLeader()).isEmpty(); // stepped down on shutdown
        }
    }

    @Test
    void stepDownOnShutdownFalseKeepsTheLeaderWordUntilItGoesStale() {
        runner().withPropertyValues("cxc.leader.step-down-on-shutdown=false").run(context -> {});
        try (SharedLeaderElection election =
                SharedLeaderElection.open(temp.resolve("cxc").resolve("leader.cxc"))) {
            assertThat(election.currentLeader()).hasValue(Pids.current());
        }
    }

    @Test
    void aTickThatThrowsIsLoggedAndTheNextTickStillRuns(CapturedOutput output) {
        AtomicInteger calls = new AtomicInteger();
        runner().withBean(
                        TickTask.class,
                        () ->
                                () -> {
                                    if (calls.incrementAndGet() <= 2) {
                                        throw new IllegalStateException("tick task broke");
                                    }
                                })
                .run(
                        context -> {
                            LeaderTicker ticker = context.getBean(LeaderTicker.class);
                            await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() >= 5);
                            assertThat(ticker.failedTicks()).isEqualTo(2);
                            assertThat(ticker.isRunning()).isTrue();
                            assertThat(ticker.lastFailure()).isNull(); // the election is fine
                            assertThat(output).contains("tick task broke");
                        });
    }

    @Test
    void postStepDownHandsOverAndReportsTheNewState() {
        runner().withPropertyValues(
                        "management.endpoints.web.exposure.include=cxc",
                        "cxc.leader.tick-interval=1h")
                .run(
                        context -> {
                            CxcEndpoint endpoint = context.getBean(CxcEndpoint.class);
                            assertThat(endpoint.cxc().leader().self()).isTrue();
                            CxcEndpoint.CxcDescriptor after = endpoint.stepDown();
                            assertThat(after.leader().self()).isFalse();
                            assertThat(after.leader().pid()).isNull();
                        });
    }

    /** Hands leadership events to a test's list. */
    static final class LeadershipRecorder implements ApplicationListener<LeadershipEvent> {
        private final ApplicationListener<LeadershipEvent> delegate;

        LeadershipRecorder(ApplicationListener<LeadershipEvent> delegate) {
            this.delegate = delegate;
        }

        @Override
        public void onApplicationEvent(LeadershipEvent event) {
            delegate.onApplicationEvent(event);
        }
    }
}
