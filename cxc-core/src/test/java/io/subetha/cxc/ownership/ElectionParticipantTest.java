package io.subetha.cxc.ownership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ElectionParticipantTest {

    @TempDir Path dir;

    @Test
    void firstTickGainsAnEmptyElectionAndLaterTicksKeepIt() {
        try (var election = SharedLeaderElection.create(dir.resolve("l.cxc"))) {
            long t0 = election.electionTerm();
            var me = new ElectionParticipant(election, Pids.current(), 3, Duration.ofMillis(1));

            var first = me.tick();
            assertThat(first.leader()).isTrue();
            assertThat(first.gained()).isTrue();
            assertThat(first.term()).isEqualTo(t0 + 1);

            var second = me.tick();
            assertThat(second.leader()).isTrue();
            assertThat(second.gained()).isFalse();
            assertThat(second.lost()).isFalse();
            assertThat(me.isLeader()).isTrue();
        }
    }

    @Test
    void lowerPidTakingOverIsReportedAsLost() {
        try (var election = SharedLeaderElection.create(dir.resolve("l.cxc"))) {
            long me = Pids.current();
            long t0 = election.electionTerm();
            var participant = new ElectionParticipant(election, me, 3, Duration.ofMillis(1));
            participant.tick();

            // PID 1 is lower and always alive, so the liveness check must not take it back
            assertThat(election.tryClaimLeadership(1, 3)).isTrue();

            var outcome = participant.tick();
            assertThat(outcome.leader()).isFalse();
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.lostTerm()).isEqualTo(t0 + 1);
            assertThat(outcome.leaderPid()).isEqualTo(1);
        }
    }

    @Test
    void lostAndRegainedBetweenTicksReportsBothEdges() {
        try (var election = SharedLeaderElection.create(dir.resolve("l.cxc"))) {
            long me = Pids.current();
            long t0 = election.electionTerm();
            var participant = new ElectionParticipant(election, me, 3, Duration.ofMillis(1));
            participant.tick();
            election.stepDown(me);
            election.tryClaimLeadership(me, 3); // someone claimed for us in between: term 2

            var outcome = participant.tick();
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.gained()).isTrue();
            assertThat(outcome.term()).isEqualTo(t0 + 2);
        }
    }

    @Test
    void stepDownReleasesLeadership() {
        try (var election = SharedLeaderElection.create(dir.resolve("l.cxc"))) {
            var participant =
                    new ElectionParticipant(election, Pids.current(), 3, Duration.ofMillis(1));
            participant.tick();
            assertThat(participant.stepDown()).isTrue();
            assertThat(election.currentLeader()).isEmpty();
            assertThat(participant.stepDown()).isFalse();
        }
    }

    @Test
    void invalidArgumentsAreRejected() {
        try (var election = SharedLeaderElection.create(dir.resolve("l.cxc"))) {
            assertThatThrownBy(() -> new ElectionParticipant(election, 0, 3, Duration.ofMillis(1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new ElectionParticipant(election, 5, -1, Duration.ofMillis(1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new ElectionParticipant(election, 5, 3, Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
