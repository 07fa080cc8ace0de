package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessStatus;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The election's rules, one by one, on a real mapped file. */
class SharedLeaderElectionTest {

    @TempDir Path dir;
    SharedLeaderElection election;

    /** A new file's term: the seconds since boot, so terms rise across a recreated file. */
    private long seed;

    @BeforeEach
    void create() {
        election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("leader.cxc"), SharedLeaderElection.Settings.DEFAULTS);
        seed = // read raw: the op counts are under test
                LeaderElectionDescriptor.term(
                        RawBody.of(election.file())
                                .getLongVolatile(LeaderElectionDescriptor.LEADER_WORD_OFFSET));
    }

    @AfterEach
    void close() {
        election.close();
    }

    @Test
    void emptyElectionIsClaimedAndTermStartsOneAboveTheBootSeed() {
        assertThat(election.currentLeader()).isEmpty();
        assertThat(seed).isBetween(1L, LeaderSeat.bootTermSeed());

        assertThat(election.tryClaimLeadership(500, 3)).isTrue();

        assertThat(election.currentLeader()).isEqualTo(OptionalLong.of(500));
        assertThat(election.electionTerm() - seed).isEqualTo(1);
    }

    @Test
    void lowerPidPreemptsAndHigherPidIsRefused() {
        election.tryClaimLeadership(500, 3);

        assertThat(election.tryClaimLeadership(700, 3)).isFalse();
        assertThat(election.currentLeader()).hasValue(500);

        assertThat(election.tryClaimLeadership(300, 3)).isTrue();
        assertThat(election.currentLeader()).hasValue(300);
        assertThat(election.electionTerm() - seed).isEqualTo(2);
    }

    @Test
    void idempotentClaimBySameLeaderDoesNotAdvanceTerm() {
        election.tryClaimLeadership(500, 3);
        for (int i = 0; i < 10; i++) {
            assertThat(election.tryClaimLeadership(500, 3)).isTrue();
        }
        assertThat(election.electionTerm() - seed).isEqualTo(1);
    }

    @Test
    void staleLeaderIsReplacedOnlyAfterTheGraceWindow() {
        election.tryClaimLeadership(500, 3);
        assertThat(election.leaderHeartbeat()).isZero();

        for (int i = 0; i < 3; i++) {
            election.tickEpoch();
        }
        // exactly at grace: lag 3 is not more than 3
        assertThat(election.tryClaimLeadership(700, 3)).isFalse();

        election.tickEpoch(); // grace + 1
        assertThat(election.tryClaimLeadership(700, 3)).isTrue();
        assertThat(election.currentLeader()).hasValue(700);
        assertThat(election.electionTerm() - seed).isEqualTo(2);
        assertThat(election.leaderHeartbeat()).isEqualTo(election.globalEpoch());
    }

    @Test
    void beatingKeepsTheLeaderFresh() {
        election.tryClaimLeadership(500, 3);
        for (int i = 0; i < 20; i++) {
            election.tickEpoch();
            assertThat(election.beatAsLeader(500)).isTrue();
        }
        assertThat(election.tryClaimLeadership(700, 3)).isFalse();
        assertThat(election.snapshot().heartbeatLag()).isZero();
    }

    @Test
    void beatByNonLeaderIsRefused() {
        election.tryClaimLeadership(500, 3);
        election.tickEpoch();
        assertThat(election.beatAsLeader(700)).isFalse();
        assertThat(election.leaderHeartbeat()).isZero();
    }

    @Test
    void stepDownByLeaderReleasesAndByOthersIsRefused() {
        election.tryClaimLeadership(500, 3);

        assertThat(election.stepDown(700)).isFalse();
        assertThat(election.currentLeader()).hasValue(500);

        assertThat(election.stepDown(500)).isTrue();
        assertThat(election.currentLeader()).isEmpty();
        assertThat(election.electionTerm() - seed).isEqualTo(1);

        // the next claim wins at once, whatever its PID, and raises the term
        assertThat(election.tryClaimLeadership(900, 3)).isTrue();
        assertThat(election.electionTerm() - seed).isEqualTo(2);
    }

    @Test
    void termAdvancesOncePerHandover() {
        long[] pids = {900, 800, 700, 600};
        for (int i = 0; i < pids.length; i++) {
            assertThat(election.tryClaimLeadership(pids[i], 3)).isTrue();
            assertThat(election.tryClaimLeadership(pids[i], 3)).isTrue();
            assertThat(election.electionTerm() - seed).isEqualTo(i + 1);
        }
    }

    @Test
    void pidZeroAndOutOfRangePidsAreRejected() {
        assertThatThrownBy(() -> election.tryClaimLeadership(0, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PID 0");
        assertThatThrownBy(() -> election.tryClaimLeadership(-5, 3))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> election.tryClaimLeadership(1L << 32, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside");
        assertThatThrownBy(() -> election.tryClaimLeadership(10, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("graceEpochs");
        assertThatThrownBy(() -> election.beatAsLeader(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> election.stepDown(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> election.claimIfLeaderDead(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(election.currentLeader()).isEmpty();
    }

    @Test
    void largestU32PidIsAccepted() {
        assertThat(election.tryClaimLeadership(Pids.MAX_PID, 3)).isTrue();
        assertThat(election.currentLeader()).hasValue(Pids.MAX_PID);
        assertThat(election.tryClaimLeadership(1, 3)).isTrue();
        assertThat(election.electionTerm() - seed).isEqualTo(2);
    }

    @Test
    void deadLeaderIsTakenOverAtOnceWithoutWaitingForGrace() throws Exception {
        Process child = new ProcessBuilder("true").start();
        long deadPid = child.pid();
        child.waitFor();
        assertThat(election.tryClaimLeadership(deadPid, 3)).isTrue();
        long me = Pids.current();
        long claimant =
                me > deadPid ? me : deadPid + 1; // higher PID: lower-PID preemption won't apply

        assertThat(election.leaderStatus()).isEqualTo(ProcessStatus.DEAD);
        assertThat(election.tryClaimLeadership(claimant, 3)).isFalse();
        assertThat(election.claimIfLeaderDead(claimant)).isTrue();
        assertThat(election.currentLeader()).hasValue(claimant);
        assertThat(election.electionTerm() - seed).isEqualTo(2);
    }

    @Test
    void liveLeaderIsNotTakenOverByTheLivenessCheck() {
        long me = Pids.current();
        assertThat(election.tryClaimLeadership(me, 3)).isTrue();
        assertThat(election.leaderStatus()).isEqualTo(ProcessStatus.ALIVE);
        assertThat(election.claimIfLeaderDead(me + 1)).isFalse();
        assertThat(election.currentLeader()).hasValue(me);
        assertThat(election.electionTerm() - seed).isEqualTo(1);
    }

    @Test
    void claimIfLeaderDeadWithNoLeaderJudgesARivalByTheCallersGrace() {
        long grace = 10; // more than DEFAULT_GRACE_EPOCHS (3)
        long rival = 1;
        long claimant = Pids.current();
        // The claimant finds the seat empty and is held just before its CAS...
        StepGate<Boolean> held =
                StepGate.holdAt(Point.JUDGED, () -> election.claimIfLeaderDead(claimant, grace));
        // ...while a lower PID claims and then lags 5 epochs: stale under the default grace,
        // not under the caller's.
        assertThat(election.tryClaimLeadership(rival, grace)).isTrue();
        for (int i = 0; i < 5; i++) {
            election.tickEpoch();
        }

        assertThat(held.release()).isFalse();
        assertThat(election.currentLeader()).hasValue(rival);
        assertThatThrownBy(() -> election.claimIfLeaderDead(claimant, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reusedPidIsDetectedByStartTime() {
        long me = Pids.current();
        // Claim as this process from another "process" view: record a start time that is not ours.
        assertThat(election.tryClaimLeadership(me, 3)).isTrue();
        RawBody.of(election.file())
                .setLongRelease(
                        LeaderElectionDescriptor.LEADER_IDENTITY_OFFSET,
                        (election.electionTerm() << 32) | 12345);
        assertThat(election.leaderStatus()).isEqualTo(ProcessStatus.DEAD);
        assertThat(election.claimIfLeaderDead(me + 1)).isTrue();
    }

    @Test
    void tickEpochIfDueTicksAtMostOncePerInterval() {
        Duration interval = Duration.ofHours(1);
        assertThat(election.tickEpochIfDue(interval)).isTrue();
        assertThat(election.tickEpochIfDue(interval)).isFalse();
        assertThat(election.globalEpoch()).isEqualTo(1);

        assertThat(election.tickEpochIfDue(Duration.ofNanos(1))).isTrue();
        assertThat(election.globalEpoch()).isEqualTo(2);

        assertThatThrownBy(() -> election.tickEpochIfDue(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tickFromTheFutureCountsAsDue() {
        // a file that survived a reboot holds a CLOCK_MONOTONIC reading from the old boot
        RawBody.of(election.file())
                .setLongRelease(
                        LeaderElectionDescriptor.LAST_TICK_NANOS_OFFSET,
                        System.nanoTime() + Duration.ofDays(30).toNanos());
        assertThat(election.tickEpochIfDue(Duration.ofHours(1))).isTrue();
    }

    @Test
    void opsAreCountedByKind() {
        election.tryClaimLeadership(500, 3);
        election.tryClaimLeadership(500, 3);
        election.beatAsLeader(500);
        election.tickEpoch();
        election.stepDown(500);
        election.currentLeader();

        assertThat(election.opCounts())
                .containsEntry("try_claim", 2L)
                .containsEntry("beat", 1L)
                .containsEntry("tick_epoch", 1L)
                .containsEntry("step_down", 1L)
                .containsEntry("read", 1L)
                .containsEntry("liveness_check", 0L);
    }

    @Test
    void stateIsSharedThroughTheFile() {
        election.tryClaimLeadership(500, 3);
        election.tickEpoch();
        try (SharedLeaderElection other = SharedLeaderElection.open(dir.resolve("leader.cxc"))) {
            assertThat(other.currentLeader()).hasValue(500);
            assertThat(other.globalEpoch()).isEqualTo(1);
            assertThat(other.tryClaimLeadership(400, 3)).isTrue();
        }
        assertThat(election.currentLeader()).hasValue(400);
    }
}
