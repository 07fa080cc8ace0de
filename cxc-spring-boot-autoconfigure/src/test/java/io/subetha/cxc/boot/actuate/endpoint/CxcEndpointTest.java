package io.subetha.cxc.boot.actuate.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.liveness.CxcParticipants;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.LeadershipTier;
import io.subetha.cxc.boot.ticker.ManualTicks;
import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /actuator/cxc} without a context: the leader section from the election file (or none
 * without a ticker), the directory (given, else the election file's), the global tier and the
 * participants when there are some, and a step-down that hands the seat over (or does nothing).
 */
class CxcEndpointTest {

    private static final long ME = Pids.current();

    @TempDir Path temp;

    @Test
    void theLeaderSectionComesFromTheElectionAndTheDirectoryFromItsFileWhenNoneIsGiven() {
        try (SharedLeaderElection election =
                        SharedLeaderElection.openOrCreate(
                                temp.resolve("leader.cxc"),
                                new SharedLeaderElection.Settings(Duration.ofHours(1), 4));
                HeartbeatTable table =
                        HeartbeatTable.TYPE.openOrCreate(
                                temp.resolve("crew.heartbeat"),
                                new HeartbeatTable.Settings(2),
                                CxcFileOptions.defaults())) {
            LeaderTicker ticker =
                    new LeaderTicker(
                            new ElectionParticipant(election, ME, 4, Duration.ofHours(1)),
                            event -> {},
                            true,
                            List.of());
            PrimitiveRegistry registry = new PrimitiveRegistry();
            registry.register(election);
            CxcEndpoint endpoint =
                    new CxcEndpoint(
                            registry, ticker, null, new CxcParticipants(table, 3, election));

            CxcEndpoint.CxcDescriptor before = endpoint.cxc();
            assertThat(before.pid()).isEqualTo(ME);
            assertThat(before.directory()).isEqualTo(temp.toString());
            assertThat(before.global()).isNull();
            assertThat(before.participants()).isEmpty();
            assertThat(before.leader().pid()).isNull(); // no one leads yet
            assertThat(before.leader().self()).isFalse();
            assertThat(before.leader().ticking()).isFalse();
            assertThat(before.primitives())
                    .singleElement()
                    .satisfies(
                            p -> {
                                assertThat(p.name()).isEqualTo("leader.cxc");
                                assertThat(p.kind()).isEqualTo("leader-election");
                                assertThat(p.file()).isEqualTo(election.file().toString());
                            });

            ManualTicks.tick(ticker);
            table.register(ME);
            CxcEndpoint.LeaderDescriptor leader = endpoint.cxc().leader();
            assertThat(leader.pid()).isEqualTo(ME);
            assertThat(leader.self()).isTrue();
            assertThat(leader.term()).isEqualTo(election.electionTerm());
            assertThat(leader.graceEpochs()).isEqualTo(4);
            assertThat(leader.file()).isEqualTo(election.file().toString());
            assertThat(leader.tickIntervalMillis()).isEqualTo(3_600_000);
            assertThat(endpoint.cxc().participants())
                    .singleElement()
                    .satisfies(p -> assertThat(p.pid()).isEqualTo(ME));

            CxcEndpoint.CxcDescriptor after = endpoint.stepDown();
            assertThat(after.leader().pid()).isNull();
            assertThat(after.leader().self()).isFalse();
            assertThat(election.currentLeader()).isEmpty();
        }
    }

    @Test
    void withoutATickerThereIsNoLeaderSectionAndAStepDownChangesNothing() {
        LeadershipTier tier =
                new LeadershipTier() {
                    @Override
                    public void afterHostRound() {}

                    @Override
                    public CxcLeadership leadership(CxcLeadership host) {
                        return host;
                    }

                    @Override
                    public Map<String, Object> describe() {
                        return Map.of("connected", true);
                    }

                    @Override
                    public @Nullable String problem() {
                        return null;
                    }
                };
        CxcEndpoint endpoint = new CxcEndpoint(new PrimitiveRegistry(), null, temp, null, tier);
        CxcEndpoint.CxcDescriptor described = endpoint.stepDown();
        assertThat(described.leader()).isNull();
        assertThat(described.directory()).isEqualTo(temp.toString());
        assertThat(described.global()).isEqualTo(Map.of("connected", true));
        assertThat(described.participants()).isEmpty();
        assertThat(described.primitives()).isEmpty();
        assertThat(new CxcEndpoint(new PrimitiveRegistry(), null, null, null).cxc().directory())
                .isNull();
    }
}
