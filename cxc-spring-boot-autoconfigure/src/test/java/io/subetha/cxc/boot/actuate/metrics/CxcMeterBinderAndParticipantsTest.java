package io.subetha.cxc.boot.actuate.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.liveness.CxcParticipants;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.ManualTicks;
import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.process.Pids;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The meters' values as the election and the table change (not that they were registered), what a
 * binder without a ticker or a table binds, that closing it stops metering later primitives; and
 * who the participants' view marks alive and leading. Real files, a simple meter registry.
 */
class CxcMeterBinderAndParticipantsTest {

    private static final long ME = Pids.current();

    @TempDir Path temp;

    /** A PID no process has now, below ours (the kernel hands out PIDs upwards). */
    private static long deadPid() {
        long pid = ME - 1;
        while (pid > 1 && Files.exists(Path.of("/proc", Long.toString(pid)))) {
            pid--;
        }
        assertThat(pid).as("a free PID below ours").isGreaterThan(1);
        return pid;
    }

    @Test
    void theLeaderGaugesFollowTheElectionAndTheLiveGaugeTheTable() {
        try (SharedLeaderElection election =
                        SharedLeaderElection.openOrCreate(
                                temp.resolve("leader.cxc"),
                                new SharedLeaderElection.Settings(Duration.ofHours(1), 5));
                HeartbeatTable table =
                        HeartbeatTable.TYPE.openOrCreate(
                                temp.resolve("crew.heartbeat"),
                                new HeartbeatTable.Settings(4),
                                CxcFileOptions.defaults())) {
            LeaderTicker ticker =
                    new LeaderTicker(
                            new ElectionParticipant(election, ME, 5, Duration.ofHours(1)),
                            event -> {},
                            true,
                            List.of());
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            new CxcMeterBinder(
                            new PrimitiveRegistry(),
                            ticker,
                            new CxcParticipants(table, 3, election))
                    .bindTo(meters);
            assertThat(meters.get("cxc.leader.self").gauge().value()).isZero();
            assertThat(meters.get("cxc.participants.live").gauge().value()).isZero();

            ManualTicks.tick(ticker);
            table.register(ME);
            assertThat(meters.get("cxc.leader.self").gauge().value()).isEqualTo(1);
            assertThat(meters.get("cxc.leader.term").gauge().value())
                    .isEqualTo(election.electionTerm());
            assertThat(meters.get("cxc.leader.grace").gauge().value()).isEqualTo(5);
            assertThat(meters.get("cxc.participants.live").gauge().value()).isEqualTo(1);
            long epoch = election.tickEpoch();
            election.tickEpoch();
            assertThat(meters.get("cxc.epoch").gauge().value()).isEqualTo(epoch + 1);
            assertThat(meters.get("cxc.leader.heartbeat.lag").gauge().value())
                    .isEqualTo(election.snapshot().heartbeatLag())
                    .isPositive();

            assertThat(election.stepDown(ME)).isTrue();
            assertThat(meters.get("cxc.leader.self").gauge().value()).isZero();
        }
    }

    @Test
    void withoutATickerOrATableOnlyThePrimitivesOpsAreMeteredAndOnlyUntilClosed() {
        PrimitiveRegistry primitives = new PrimitiveRegistry();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        CxcMeterBinder binder = new CxcMeterBinder(primitives, null, null);
        binder.bindTo(meters);
        assertThat(meters.getMeters()).isEmpty();
        try (HeartbeatTable early =
                        primitives.register(
                                HeartbeatTable.TYPE.openOrCreate(
                                        temp.resolve("early.heartbeat"),
                                        new HeartbeatTable.Settings(2),
                                        CxcFileOptions.defaults()));
                HeartbeatTable late =
                        HeartbeatTable.TYPE.openOrCreate(
                                temp.resolve("late.heartbeat"),
                                new HeartbeatTable.Settings(2),
                                CxcFileOptions.defaults())) {
            early.register(ME);
            assertThat(
                            meters.get("cxc.ops")
                                    .tags("primitive", "early.heartbeat", "op", "register")
                                    .functionCounter()
                                    .count())
                    .isEqualTo(1);
            assertThat(meters.find("cxc.leader.term").gauge()).isNull();
            assertThat(meters.find("cxc.participants.live").gauge()).isNull();

            binder.close();
            primitives.register(late);
            assertThat(meters.find("cxc.ops").tag("primitive", "late.heartbeat").meters())
                    .isEmpty();
        }
    }

    @Test
    void theParticipantsViewMarksTheLiveAndTheLeaderOnly() {
        long dead = deadPid();
        try (SharedLeaderElection election =
                        SharedLeaderElection.openOrCreate(temp.resolve("leader.cxc"));
                HeartbeatTable table =
                        HeartbeatTable.TYPE.openOrCreate(
                                temp.resolve("crew.heartbeat"),
                                new HeartbeatTable.Settings(4),
                                CxcFileOptions.defaults())) {
            int mine = table.register(ME);
            int theirs = table.register(dead);
            CxcParticipants unled = new CxcParticipants(table, 3, election);
            assertThat(unled.participants())
                    .extracting(CxcParticipants.Participant::leader)
                    .containsExactly(false, false); // no one leads yet
            assertThat(election.tryClaimLeadership(ME)).isTrue();

            CxcParticipants view = new CxcParticipants(table, 3, election);
            assertThat(view.table()).isSameAs(table);
            assertThat(view.graceEpochs()).isEqualTo(3);
            assertThat(view.liveCount()).isEqualTo(1);
            assertThat(view.participants())
                    .extracting(p -> List.of(p.slot(), p.pid(), p.alive(), p.leader()))
                    .containsExactly(
                            List.of(mine, ME, true, true), List.of(theirs, dead, false, false));
            assertThat(new CxcParticipants(table, 3, null).participants())
                    .extracting(CxcParticipants.Participant::leader)
                    .containsExactly(false, false);
        }
    }
}
