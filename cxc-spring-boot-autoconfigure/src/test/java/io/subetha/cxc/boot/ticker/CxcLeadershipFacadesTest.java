package io.subetha.cxc.boot.ticker;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.LeadershipLostEvent;
import io.subetha.cxc.boot.autoconfigure.LogLines;
import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What application code reads through {@code CxcLeadership}: the ticker's facade answers from the
 * election file (and steps down through the ticker), the non-participant's never leads, and the
 * leadership log says each edge. Direct, on a real election file; no context.
 */
class CxcLeadershipFacadesTest {

    private static final long ME = Pids.current();

    @TempDir Path temp;

    @Test
    void theTickersLeadershipAnswersFromTheElectionAndStepsDownThroughTheTicker() {
        try (SharedLeaderElection election =
                SharedLeaderElection.openOrCreate(temp.resolve("leader.cxc"))) {
            LeaderTicker ticker =
                    new LeaderTicker(
                            new ElectionParticipant(election, ME, 3, Duration.ofHours(1)),
                            event -> {},
                            true,
                            List.of());
            TickerLeadership leadership = new TickerLeadership(ticker);
            assertThat(leadership.pid()).isEqualTo(ME);
            assertThat(leadership.isLeader()).isFalse();
            assertThat(leadership.termIfLeader()).isEqualTo(-1);
            assertThat(leadership.currentLeader()).isEmpty();

            ticker.tick();
            long term = election.electionTerm();
            assertThat(term).isPositive();
            assertThat(leadership.isLeader()).isTrue();
            assertThat(leadership.term()).isEqualTo(term);
            assertThat(leadership.termIfLeader()).isEqualTo(term);
            assertThat(leadership.currentLeader()).isEqualTo(OptionalLong.of(ME));
            assertThat(leadership.snapshot()).isEqualTo(election.snapshot());
            assertThat(leadership.snapshot().leaderPid()).isEqualTo(ME);
            assertThat(leadership).hasToString("CxcLeadership[pid=" + ME + ", " + election + "]");

            assertThat(leadership.stepDown()).isTrue();
            assertThat(election.currentLeader()).isEmpty();
            assertThat(leadership.isLeader()).isFalse();
            assertThat(leadership.stepDown()).isFalse();
            ticker.tick(); // held off: the ticker, not the file, refused the claim
            assertThat(leadership.isLeader()).isFalse();
        }
    }

    @Test
    void aNonParticipantNeverLeadsAndSaysWhichSwitchIsOff() {
        NonParticipantLeadership leadership =
                new NonParticipantLeadership(ME, "cxc.leader.enabled=false");
        assertThat(leadership.pid()).isEqualTo(ME);
        assertThat(leadership.isLeader()).isFalse();
        assertThat(leadership.currentLeader()).isEmpty();
        assertThat(leadership.term()).isZero();
        assertThat(leadership.termIfLeader()).isEqualTo(-1);
        assertThat(leadership.stepDown()).isFalse();
        assertThat(leadership.snapshot())
                .isEqualTo(new LeaderSnapshot(SharedLeaderElection.NO_LEADER, 0, 0, 0, 0));
        assertThat(leadership)
                .hasToString(
                        "CxcLeadership[pid=" + ME + ", not taking part: cxc.leader.enabled=false]");
    }

    @Test
    void theLeadershipLogSaysEachEdgeWithItsTerm() {
        try (LogLines log = LogLines.of(LeadershipLog.class)) {
            LeadershipLog leadershipLog = new LeadershipLog();
            leadershipLog.onApplicationEvent(new LeadershipGainedEvent(this, 4242, 7));
            leadershipLog.onApplicationEvent(new LeadershipLostEvent(this, 4242, 7));
            assertThat(log.lines())
                    .containsExactly(
                            "INFO cxc: pid 4242 leads, term 7",
                            "INFO cxc: pid 4242 no longer leads (term 7)");
        }
    }
}
