package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.WorkReclaimedEvent;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.boot.liveness.CxcParticipants;
import io.subetha.cxc.boot.liveness.ParticipantRegistration;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.ManualTicks;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.process.Pids;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;

/**
 * The participants' heartbeat table, and the barriers and watchdogs declared by name: beans, files,
 * the endpoint's {@code participants}, {@code cxc.participants.live}, and {@code cxc.ops} for
 * primitives registered at any time.
 */
@ExtendWith(OutputCaptureExtension.class)
class CxcLivenessAutoConfigurationTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcEndpointAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + directory(),
                        "management.endpoints.web.exposure.include=cxc");
    }

    private Path directory() {
        return temp.resolve("cxc");
    }

    /**
     * A PID no process (or thread) has now, below ours: the kernel hands out PIDs upwards, so it
     * stays free for the test's length (above ours, a new thread of any process may take it).
     */
    private static long deadPid() {
        long pid = Pids.current() - 1;
        while (pid > 1 && Files.exists(Path.of("/proc", Long.toString(pid)))) {
            pid--;
        }
        assertThat(pid).as("a free PID below ours").isGreaterThan(1);
        return pid;
    }

    @Test
    void byDefaultThisProcessTakesPartInTheParticipantsTableAndLeavesItOnShutdown() {
        Path file = directory().resolve("participants.heartbeat");
        runner().withBean(SimpleMeterRegistry.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            HeartbeatTable table = context.getBean(HeartbeatTable.class);
                            assertThat(table.file()).isEqualTo(file);
                            assertThat(table.capacity()).isEqualTo(64);
                            assertThat(context.getBean(PrimitiveRegistry.class).primitives())
                                    .contains(table);

                            // The ticker advances the table's own epoch, and this process keeps up.
                            long start = table.globalEpoch();
                            await().atMost(Duration.ofSeconds(10))
                                    .until(() -> table.globalEpoch() >= start + 3);
                            assertThat(table.liveSlots(3))
                                    .singleElement()
                                    .satisfies(s -> assertThat(s.pid()).isEqualTo(Pids.current()));

                            CxcEndpoint.CxcDescriptor described =
                                    context.getBean(CxcEndpoint.class).cxc();
                            assertThat(described.participants())
                                    .singleElement()
                                    .satisfies(
                                            p -> {
                                                assertThat(p.pid()).isEqualTo(Pids.current());
                                                assertThat(p.alive()).isTrue();
                                                assertThat(p.leader()).isTrue();
                                                assertThat(p.lagEpochs()).isLessThanOrEqualTo(3);
                                                assertThat(p.lastBeat()).isPositive();
                                            });
                            assertThat(described.primitives())
                                    .anySatisfy(
                                            p -> {
                                                assertThat(p.name())
                                                        .isEqualTo("participants.heartbeat");
                                                assertThat(p.kind()).isEqualTo("heartbeat-table");
                                                assertThat(p.ops().get("beat")).isPositive();
                                            });

                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);
                            assertThat(meters.get("cxc.participants.live").gauge().value())
                                    .isEqualTo(1);
                        });
        // Graceful shutdown unregistered: the slot is free at once, not after the grace.
        try (HeartbeatTable observer = HeartbeatTable.open(file)) {
            assertThat(observer.scan()).isEmpty();
        }
    }

    @Test
    void aDeadParticipantIsListedNotAliveAndNotCountedLive() {
        Path file = directory().resolve("crew.heartbeat");
        long dead = deadPid();
        try (HeartbeatTable other =
                HeartbeatTable.TYPE.openOrCreate(
                        file, new HeartbeatTable.Settings(8), CxcFileOptions.defaults())) {
            int deadSlot = other.register(dead);
            runner().withBean(SimpleMeterRegistry.class)
                    .withPropertyValues("cxc.heartbeat.name=crew", "cxc.heartbeat.capacity=8")
                    .run(
                            context -> {
                                assertThat(context).hasNotFailed();
                                List<CxcParticipants.Participant> participants =
                                        context.getBean(CxcEndpoint.class).cxc().participants();
                                assertThat(participants).hasSize(2);
                                assertThat(participants)
                                        .filteredOn(p -> p.pid() == dead)
                                        .singleElement()
                                        .satisfies(
                                                p -> {
                                                    assertThat(p.slot()).isEqualTo(deadSlot);
                                                    assertThat(p.alive()).isFalse();
                                                    assertThat(p.leader()).isFalse();
                                                });
                                assertThat(participants)
                                        .filteredOn(p -> p.pid() == Pids.current())
                                        .singleElement()
                                        .satisfies(p -> assertThat(p.alive()).isTrue());
                                MeterRegistry meters = context.getBean(MeterRegistry.class);
                                context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);
                                assertThat(meters.get("cxc.participants.live").gauge().value())
                                        .isEqualTo(1);
                            });
        }
    }

    @Test
    void aSlotLostAfterAPauseIsRegisteredAgainOnTheNextTick(CapturedOutput output) {
        Path file = directory().resolve("crew.heartbeat");
        // An hour between ticks: this test runs each tick itself.
        runner().withPropertyValues(
                        "cxc.leader.tick-interval=1h",
                        "cxc.heartbeat.name=crew",
                        "cxc.heartbeat.capacity=2")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            LeaderTicker ticker = context.getBean(LeaderTicker.class);
                            ParticipantRegistration self =
                                    context.getBean(ParticipantRegistration.class);
                            int mine = self.slot();
                            try (HeartbeatTable other = HeartbeatTable.open(file);
                                    HeartbeatTable thief = HeartbeatTable.open(file)) {
                                int othersSlot = other.register(Pids.current());
                                // The table is full; one epoch on, every beat is stale under a
                                // grace of 0, and the thief takes the first stale slot: ours.
                                other.tickGlobalEpoch();
                                assertThat(thief.register(Pids.current(), 0)).isEqualTo(mine);
                                other.unregister(othersSlot);

                                long failures = ticker.failedTicks();
                                ManualTicks.tick(ticker);
                                assertThat(self.slot()).isEqualTo(othersSlot);
                                assertThat(ticker.failedTicks()).isEqualTo(failures);
                                assertThat(output).contains("registering again");
                                assertThat(other.snapshot(othersSlot))
                                        .hasValueSatisfying(
                                                s -> assertThat(s.pid()).isEqualTo(Pids.current()));
                            }
                        });
    }

    @Test
    void heartbeatEnabledFalseOrNoElectionMeansNoTable() {
        runner().withPropertyValues("cxc.heartbeat.enabled=false")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context)
                                    .hasSingleBean(SharedLeaderElection.class)
                                    .doesNotHaveBean(HeartbeatTable.class)
                                    .doesNotHaveBean(CxcParticipants.class)
                                    .doesNotHaveBean(ParticipantRegistration.class);
                            assertThat(context.getBean(CxcEndpoint.class).cxc().participants())
                                    .isEmpty();
                        });
        runner().withPropertyValues("cxc.leader.enabled=false")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context).doesNotHaveBean(HeartbeatTable.class);
                        });
        assertThat(directory().resolve("participants.heartbeat")).doesNotExist();
    }

    @Test
    void declaredBarriersAndWatchdogsAreInjectableByNameAndObserved() {
        runner().withBean(SimpleMeterRegistry.class)
                .withPropertyValues(
                        "cxc.barriers.phases.capacity=4",
                        "cxc.barriers.phases.heartbeat-interval=100ms",
                        "cxc.barriers.phases.grace-intervals=7",
                        "cxc.barriers.rounds.capacity=2",
                        "cxc.watchdogs.jobs.work-per-slot=16")
                .withUserConfiguration(DeclaredPrimitivesUser.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            // Bind the meters first: the beans below are then registered later.
                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);

                            DeclaredPrimitivesUser consumer =
                                    context.getBean(DeclaredPrimitivesUser.class);
                            EpochBarrier phases = consumer.phases;
                            assertThat(phases).isSameAs(context.getBean("phases"));
                            assertThat(phases.file())
                                    .isEqualTo(directory().resolve("phases.barrier"));
                            assertThat(phases.capacity()).isEqualTo(4);
                            assertThat(phases.heartbeatInterval())
                                    .isEqualTo(Duration.ofMillis(100));
                            assertThat(phases.graceEpochs()).isEqualTo(7);
                            assertThat(consumer.rounds.capacity()).isEqualTo(2);
                            assertThat(context.getBeansOfType(EpochBarrier.class))
                                    .containsOnlyKeys("phases", "rounds");

                            FailoverWatchdog jobs = consumer.jobs;
                            assertThat(jobs.file()).isEqualTo(directory().resolve("jobs.watchdog"));
                            assertThat(jobs.workPerSlot()).isEqualTo(16);
                            assertThat(jobs.heartbeatTable())
                                    .isSameAs(context.getBean(HeartbeatTable.class));

                            // Used, then seen with op counts in the endpoint and in cxc.ops.
                            int epoch = phases.join();
                            phases.await(epoch, Duration.ofSeconds(5));
                            CxcEndpoint.CxcDescriptor described =
                                    context.getBean(CxcEndpoint.class).cxc();
                            assertThat(described.primitives())
                                    .anySatisfy(
                                            p -> {
                                                assertThat(p.name()).isEqualTo("phases.barrier");
                                                assertThat(p.kind()).isEqualTo("epoch-barrier");
                                                assertThat(p.ops().get("register")).isEqualTo(1);
                                            })
                                    .anySatisfy(
                                            p -> {
                                                assertThat(p.name()).isEqualTo("jobs.watchdog");
                                                assertThat(p.kind()).isEqualTo("failover-watchdog");
                                                assertThat(p.ops().get("scan")).isPositive();
                                            });
                            assertThat(
                                            meters.get("cxc.ops")
                                                    .tags(
                                                            "primitive",
                                                            "phases.barrier",
                                                            "op",
                                                            "register")
                                                    .functionCounter()
                                                    .count())
                                    .isEqualTo(1);
                        });
    }

    /** Injects the declared primitives as an application would. */
    static class DeclaredPrimitivesUser {
        final EpochBarrier phases;
        final EpochBarrier rounds;
        final FailoverWatchdog jobs;

        DeclaredPrimitivesUser(
                @Qualifier("phases") EpochBarrier phases,
                @Qualifier("rounds") EpochBarrier rounds,
                @Qualifier("jobs") FailoverWatchdog jobs) {
            this.phases = phases;
            this.rounds = rounds;
            this.jobs = jobs;
        }
    }

    @Test
    void theTickerScansEachWatchdogAndMovesADeadParticipantsWork() {
        Path table = directory().resolve("participants.heartbeat");
        long dead = deadPid();
        List<WorkReclaimedEvent> events = new CopyOnWriteArrayList<>();
        try (HeartbeatTable other =
                        HeartbeatTable.TYPE.openOrCreate(
                                table, new HeartbeatTable.Settings(64), CxcFileOptions.defaults());
                FailoverWatchdog theirs =
                        FailoverWatchdog.openOrCreate(
                                directory().resolve("jobs.watchdog"),
                                other,
                                64,
                                CxcFileOptions.defaults())) {
            int deadSlot = other.register(dead);
            theirs.assign(deadSlot, 42);
            theirs.assign(deadSlot, 43);
            runner().withPropertyValues("cxc.watchdogs.jobs.grace-epochs=5")
                    .withBean(
                            "reclaimRecorder",
                            ReclaimRecorder.class,
                            () -> new ReclaimRecorder(events::add))
                    .run(
                            context -> {
                                assertThat(context).hasNotFailed();
                                ParticipantRegistration self =
                                        context.getBean(ParticipantRegistration.class);
                                FailoverWatchdog jobs =
                                        context.getBean("jobs", FailoverWatchdog.class);
                                await().atMost(Duration.ofSeconds(10))
                                        .untilAsserted(
                                                () ->
                                                        assertThat(jobs.workOf(self.slot()))
                                                                .containsExactly(42L, 43L));
                                assertThat(events)
                                        .singleElement()
                                        .satisfies(
                                                e -> {
                                                    assertThat(e.watchdog()).isEqualTo("jobs");
                                                    assertThat(e.report().movedWorkIds())
                                                            .containsExactly(42L, 43L);
                                                    assertThat(e.report().moves())
                                                            .allSatisfy(
                                                                    m -> {
                                                                        assertThat(m.fromPid())
                                                                                .isEqualTo(dead);
                                                                        assertThat(m.toPid())
                                                                                .isEqualTo(
                                                                                        Pids
                                                                                                .current());
                                                                    });
                                                });
                            });
        }
    }

    /** Hands reclaim events to a test's list. */
    static final class ReclaimRecorder implements ApplicationListener<WorkReclaimedEvent> {
        private final Consumer<WorkReclaimedEvent> delegate;

        ReclaimRecorder(Consumer<WorkReclaimedEvent> delegate) {
            this.delegate = delegate;
        }

        @Override
        public void onApplicationEvent(WorkReclaimedEvent event) {
            delegate.accept(event);
        }
    }

    @Test
    void aPrimitiveRegisteredAfterTheMetersWereBoundIsMeteredUntilTheContextCloses() {
        PrimitiveRegistry registry = new PrimitiveRegistry();
        MeterRegistry meters = new SimpleMeterRegistry();
        runner().withBean(PrimitiveRegistry.class, () -> registry)
                .run(
                        context -> {
                            context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);
                            assertThat(
                                            meters.find("cxc.ops")
                                                    .tag("primitive", "late.heartbeat")
                                                    .meters())
                                    .isEmpty();
                            try (HeartbeatTable late =
                                    registry.register(
                                            HeartbeatTable.TYPE.create(
                                                    temp.resolve("late.heartbeat"),
                                                    new HeartbeatTable.Settings(4)))) {
                                late.register(Pids.current());
                                assertThat(
                                                meters.get("cxc.ops")
                                                        .tags(
                                                                "primitive",
                                                                "late.heartbeat",
                                                                "op",
                                                                "register")
                                                        .functionCounter()
                                                        .count())
                                        .isEqualTo(1);
                            }
                        });
        // The context (and its binder) is closed: a registry that outlives it no longer feeds it.
        try (HeartbeatTable after =
                registry.register(
                        HeartbeatTable.TYPE.create(
                                temp.resolve("after.heartbeat"), new HeartbeatTable.Settings(4)))) {
            assertThat(meters.find("cxc.ops").tag("primitive", "after.heartbeat").meters())
                    .isEmpty();
        }
    }
}
