package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The election's edges that the rule-by-rule tests left open (found by a mutation run): the
 * arguments' limits on every path, preemption as asked, a tombstoned word written by another
 * process, the term floor, and one op count per call.
 */
class ElectionClaimBoundaryTest {

    /** Above any kernel's pid_max (2^22): never a live process. */
    static final long LEADER = 4_194_400;

    @TempDir Path dir;
    SharedLeaderElection election;
    AtomicBuffer raw;

    @BeforeEach
    void create() {
        election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("leader.cxc"), SharedLeaderElection.Settings.DEFAULTS);
        raw = RawBody.of(election.file());
    }

    @AfterEach
    void close() {
        election.close();
    }

    private long rawWord() {
        return raw.getLongVolatile(LeaderElectionDescriptor.LEADER_WORD_OFFSET);
    }

    @Test
    void theLeadersOwnClaimStillRejectsANegativeGrace() {
        assertThat(election.tryClaimLeadership(LEADER, 3)).isTrue();

        assertThatThrownBy(() -> election.tryClaimLeadership(LEADER, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("graceEpochs")
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> election.tryClaimLeadership(LEADER, -1, Preemption.NONE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("graceEpochs");
    }

    @Test
    void pidZeroIsRejectedEvenWhenTheSeatIsEmpty() {
        // An empty seat holds PID 0: the fast path must not read that as "0 already leads".
        assertThatThrownBy(() -> election.tryClaimLeadership(0, 3, Preemption.NONE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
        assertThatThrownBy(() -> election.tryClaimLeadership(Pids.MAX_PID + 1, 3, Preemption.NONE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(election.isLeader(0)).isFalse();
        assertThat(election.termIfLeader(0)).isEqualTo(-1);
        assertThat(rawWord() & 0xFFFF_FFFFL).isZero();
    }

    @Test
    void aGraceOfZeroIsAcceptedAndMeansAnyLagDeposes() {
        assertThat(election.tryClaimLeadership(LEADER, 0)).isTrue();
        assertThat(election.tryClaimLeadership(LEADER + 1, 0)).isFalse(); // lag 0
        election.tickEpoch();
        assertThat(election.tryClaimLeadership(LEADER + 1, 0, Preemption.NONE)).isTrue();
        assertThat(election.claimIfLeaderDead(LEADER + 2, 0)).isTrue(); // LEADER + 1 is no process
    }

    @Test
    void withoutPreemptionALowerPidWaitsAndWithItItWins() {
        assertThat(election.tryClaimLeadership(LEADER, 3, Preemption.NONE)).isTrue();
        long term = election.electionTerm();
        assertThat(election.tryClaimLeadership(LEADER, 3, Preemption.NONE)).isTrue(); // idempotent
        assertThat(election.electionTerm()).isEqualTo(term);

        assertThat(election.tryClaimLeadership(LEADER - 100, 3, Preemption.NONE)).isFalse();
        assertThat(election.currentLeader()).hasValue(LEADER);

        assertThat(election.tryClaimLeadership(LEADER - 100, 3, Preemption.LOWEST_PID)).isTrue();
        assertThat(election.currentLeader()).hasValue(LEADER - 100);
        assertThat(election.electionTerm()).isEqualTo(term + 1);

        assertThat(election.tryClaimLeadership(LEADER + 100, 3, Preemption.LOWEST_PID)).isFalse();
    }

    @Test
    void aWordTombstonedByAnotherProcessIsNeverClaimed() {
        // Another participant on this (orphaned) file retired it; this handle has not noticed.
        raw.setLongVolatile(
                LeaderElectionDescriptor.LEADER_WORD_OFFSET, LeaderElectionDescriptor.RETIRED_WORD);

        assertThat(election.tryClaimLeadership(LEADER, 3)).isFalse();
        assertThat(election.tryClaimLeadership(LEADER, 3, Preemption.NONE)).isFalse();
        assertThat(election.claimIfLeaderDead(LEADER, 3)).isFalse();
        assertThat(election.raiseTermFloor(5)).isFalse();
        assertThat(rawWord()).isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
    }

    @Test
    void claimIfLeaderDeadTakesTheDeadLeadersSeatEvenFromAHigherPid() {
        assertThat(election.tryClaimLeadership(LEADER, 3)).isTrue(); // no such process
        long term = election.electionTerm();

        // Higher PID, fresh dead leader: the plain claim refuses, the liveness check takes over.
        assertThat(election.tryClaimLeadership(LEADER + 1, 3)).isFalse();
        assertThat(election.claimIfLeaderDead(LEADER + 1, 3)).isTrue();
        assertThat(election.currentLeader()).hasValue(LEADER + 1);
        assertThat(election.electionTerm()).isEqualTo(term + 1);
        assertThat(election.opCounts()).containsEntry("liveness_check", 1L);
    }

    @Test
    void claimIfLeaderDeadLeavesALiveLeaderAndCountsItsCheck() {
        long me = Pids.current();
        assertThat(election.tryClaimLeadership(me, 3)).isTrue();
        long word = rawWord();

        assertThat(election.claimIfLeaderDead(me + 1, 3)).isFalse();
        assertThat(election.claimIfLeaderDead(me, 3)).isTrue(); // its own seat
        assertThat(rawWord()).isEqualTo(word);
        assertThat(election.opCounts()).containsEntry("liveness_check", 2L);
    }

    @Test
    void theTermFloorRisesOnlyAboveTheCurrentTermAndDeposesTheLeader() {
        assertThat(election.tryClaimLeadership(LEADER, 3)).isTrue();
        long term = election.electionTerm();

        assertThat(election.raiseTermFloor(term)).isFalse(); // equal: nothing to lift
        assertThat(election.raiseTermFloor(0)).isFalse();
        assertThat(election.currentLeader()).hasValue(LEADER);

        assertThat(election.raiseTermFloor(term + 5)).isTrue();
        assertThat(election.currentLeader()).isEmpty();
        assertThat(election.electionTerm()).isEqualTo(term + 5);
        assertThat(election.tryClaimLeadership(LEADER, 3)).isTrue();
        assertThat(election.electionTerm()).isEqualTo(term + 6);

        assertThat(election.raiseTermFloor(0xFFFF_FFFEL)).isTrue();
        assertThatThrownBy(() -> election.raiseTermFloor(0xFFFF_FFFFL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("4294967294")
                .hasMessageContaining("4294967295");
        assertThatThrownBy(() -> election.raiseTermFloor(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }

    @Test
    void termZeroStillCountsAsLeading() {
        raw.setLongVolatile(
                LeaderElectionDescriptor.LEADER_WORD_OFFSET,
                LeaderElectionDescriptor.packLeaderWord(LEADER, 0));

        assertThat(election.isLeader(LEADER)).isTrue();
        assertThat(election.termIfLeader(LEADER)).isZero();
        assertThat(election.isLeader(LEADER + 1)).isFalse();
    }

    @Test
    void everyReadIsCountedOnce() {
        election.tryClaimLeadership(LEADER, 3);
        long before = election.opCounts().get("read");

        election.isLeader(LEADER);
        election.termIfLeader(LEADER);
        election.currentLeader();
        election.electionTerm();
        election.leaderWord();
        election.globalEpoch();
        election.leaderHeartbeat();
        election.snapshot();

        assertThat(election.opCounts().get("read") - before).isEqualTo(8);
        election.leaderStatus();
        assertThat(election.opCounts()).containsEntry("liveness_check", 1L);
    }

    @Test
    void readsReturnTheFilesValues() {
        election.tryClaimLeadership(LEADER, 3);
        election.tickEpoch();
        election.tickEpoch();
        election.beatAsLeader(LEADER);

        long word = rawWord();
        assertThat(election.leaderWord()).isEqualTo(word);
        assertThat(election.electionTerm()).isEqualTo(LeaderElectionDescriptor.term(word));
        assertThat(election.globalEpoch()).isEqualTo(2);
        assertThat(election.leaderHeartbeat()).isEqualTo(2);
        assertThat(election.tickEpoch()).isEqualTo(3);
        assertThat(election.describe())
                .containsEntry("leaderPid", LEADER)
                .containsEntry("globalEpoch", 3L)
                .containsEntry("leaderHeartbeat", 2L)
                .containsEntry("heartbeatLagEpochs", 1L);
        assertThat(election.incarnation())
                .isNotZero()
                .isEqualTo(raw.getLongVolatile(LeaderElectionDescriptor.INCARNATION_OFFSET));
    }

    @Test
    void theBootSeedIsTheWholeSecondsSinceBoot() {
        long before = System.nanoTime() / 1_000_000_000L;
        long seed = LeaderSeat.bootTermSeed();
        long after = System.nanoTime() / 1_000_000_000L;
        assertThat(seed).isBetween(Math.min(before, 0x7FFF_FFFFL), Math.min(after, 0x7FFF_FFFFL));
    }
}
