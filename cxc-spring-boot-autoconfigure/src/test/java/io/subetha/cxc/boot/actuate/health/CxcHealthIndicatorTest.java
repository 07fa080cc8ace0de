package io.subetha.cxc.boot.actuate.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.LeadershipTier;
import io.subetha.cxc.boot.ticker.ManualTicks;
import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.election.Preemption;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code cxc} health contributor's details and each of its DOWN reasons, in the order it checks
 * them (ticker stopped, file closed, file deleted or replaced, then the global tier's problem). A
 * real election file and ticker (an hour's tick: only the test ticks).
 */
class CxcHealthIndicatorTest {

    private static final long ME = Pids.current();

    @TempDir Path temp;

    private Path file;
    private SharedLeaderElection election;
    private LeaderTicker ticker;

    @BeforeEach
    void open() {
        file = temp.resolve("leader.cxc");
        election = SharedLeaderElection.openOrCreate(file);
        ticker =
                new LeaderTicker(
                        new ElectionParticipant(
                                election,
                                ME,
                                3,
                                Duration.ofHours(1),
                                Preemption.LOWEST_PID,
                                (path, settings) -> {
                                    throw new IllegalStateException("no directory for it");
                                }),
                        event -> {},
                        false,
                        List.of());
    }

    @AfterEach
    void close() {
        ticker.stop();
        election.close();
    }

    /** A tier above the host election whose problem the test sets. */
    static final class Tier implements LeadershipTier {
        volatile @Nullable String problem;

        @Override
        public void afterHostRound() {}

        @Override
        public CxcLeadership leadership(CxcLeadership host) {
            return host;
        }

        @Override
        public Map<String, Object> describe() {
            return Map.of("leader", "zk-host-1");
        }

        @Override
        public @Nullable String problem() {
            return problem;
        }
    }

    private static String reason(Health health) {
        return String.valueOf(health.getDetails().get("reason"));
    }

    @Test
    void upWithTheLeadersDetailsWhileThisProcessLeads() {
        ticker.start();
        Health health = new CxcHealthIndicator(ticker).health();
        LeaderSnapshot snapshot = election.snapshot();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails())
                .containsEntry("pid", ME)
                .containsEntry("leader", ME)
                .containsEntry("self", true)
                .containsEntry("term", election.electionTerm())
                .containsEntry("globalEpoch", snapshot.globalEpoch())
                .containsEntry("heartbeatLagEpochs", snapshot.heartbeatLag())
                .containsEntry("file", file.toString())
                .doesNotContainKeys("reason", "global");
        assertThat(election.electionTerm()).isPositive();
    }

    @Test
    void selfIsFalseWhileAnotherLiveProcessLeads() {
        assertThat(election.tryClaimLeadership(1)).isTrue(); // PID 1 is always alive
        ticker.start();
        Health health = new CxcHealthIndicator(ticker).health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails())
                .containsEntry("pid", ME)
                .containsEntry("leader", 1L)
                .containsEntry("self", false);
    }

    @Test
    void downWhileTheTickerIsNotRunning() {
        Health health = new CxcHealthIndicator(ticker).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(reason(health))
                .isEqualTo("the cxc ticker is not running: this process neither beats nor claims");
    }

    @Test
    void downOnceTheElectionFileIsClosed() {
        ticker.start();
        election.close();
        Health health = new CxcHealthIndicator(ticker).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(reason(health)).isEqualTo("the election file is closed");
    }

    @Test
    void downNamingTheFileWhileARoundCannotRejoinTheDeletedFile() throws Exception {
        assertThat(election.tryClaimLeadership(1)).isTrue(); // not ours: nothing lost to report
        ticker.start();
        Files.delete(file);
        ManualTicks.tick(
                ticker); // the re-join's opener throws: the round fails on a retired handle
        assertThat(ticker.lastFailure()).hasMessage("no directory for it");
        // The retired handle refuses the snapshot itself, so the check ends there, DOWN.
        Health health = new CxcHealthIndicator(ticker).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(String.valueOf(health.getDetails().get("error")))
                .contains(file + " is no longer the election this handle mapped");
    }

    @Test
    void downWhenTheFileAtThePathIsAnotherOne() throws Exception {
        ticker.start();
        assertThat(new CxcHealthIndicator(ticker).health().getStatus()).isEqualTo(Status.UP);
        Files.delete(file);
        SharedLeaderElection.openOrCreate(file).close();
        Health health = new CxcHealthIndicator(ticker).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(reason(health))
                .isEqualTo(
                        file
                                + " was replaced by another file: processes that open it now"
                                + " elect separately from this one");
    }

    @Test
    void downWhenTheFileWasDeleted() throws Exception {
        ticker.start();
        Files.delete(file);
        Health health = new CxcHealthIndicator(ticker).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(reason(health))
                .isEqualTo(
                        file
                                + " was deleted: processes that start now would create a new one"
                                + " and elect a second leader");
    }

    @Test
    void aGlobalTiersStateIsShownAndItsProblemTurnsHealthDown() {
        ticker.start();
        Tier tier = new Tier();
        CxcHealthIndicator indicator = new CxcHealthIndicator(ticker, tier);
        Health up = indicator.health();
        assertThat(up.getStatus()).isEqualTo(Status.UP);
        assertThat(up.getDetails())
                .containsEntry("global", Map.of("leader", "zk-host-1"))
                .containsEntry("self", true)
                .doesNotContainKey("reason");

        tier.problem = "no ZooKeeper connection";
        Health down = indicator.health();
        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
        assertThat(reason(down)).isEqualTo("no ZooKeeper connection");
        assertThat(down.getDetails()).containsEntry("global", Map.of("leader", "zk-host-1"));
    }

    @Test
    void theHostsOwnProblemIsTheReasonWhenBothTiersHaveOne() {
        Tier tier = new Tier();
        tier.problem = "no ZooKeeper connection";
        Health health = new CxcHealthIndicator(ticker, tier).health(); // ticker not started
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(reason(health)).startsWith("the cxc ticker is not running");
        assertThat(health.getDetails()).containsEntry("global", Map.of("leader", "zk-host-1"));
    }
}
