package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
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

/**
 * The election's rules, one by one, on a real mapped file: claims and their arguments' limits on
 * every path, preemption as asked, a grace of zero, a word tombstoned by another process never
 * claimed, the take-over of a dead leader (and of a dead process that had this PID, under the next
 * term, never continued, while a seat whose identity is not yet published is this process's own
 * claim in flight), the term floor, the boot seed, and one op count per call.
 */
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
        raw = RawBody.of(election.file());
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

    // -------------------------------------------------- limits, preemption, the floor, op counts

    /** Above any kernel's pid_max (2^22): never a live process. */
    static final long LEADER = 4_194_400;

    AtomicBuffer raw;

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

    // --------------------------------------------------------- a seat holding this process's PID

    static final long ME = Pids.current();

    /** Above any kernel's pid_max (2^22): never a live process. */
    static final long NO_SUCH_PID = 4_194_400;

    private void plantSeat(long pid, long term, long identity) {
        raw.setLongVolatile(LeaderElectionDescriptor.LEADER_IDENTITY_OFFSET, identity);
        raw.setLongVolatile(
                LeaderElectionDescriptor.LEADER_WORD_OFFSET,
                LeaderElectionDescriptor.packLeaderWord(pid, term));
    }

    @Test
    void aDeadProcessWithThisPidIsTakenOverUnderTheNextTerm() {
        long term = election.electionTerm();
        plantSeat(ME, term, (term << 32) | 12345); // another start time: not this process

        assertThat(election.claimIfLeaderDead(ME, 3)).isTrue();

        assertThat(election.electionTerm()).isEqualTo(term + 1);
        assertThat(election.snapshot().leaderStartTime())
                .isEqualTo(OwnerRecord.startTimeOf(ME) & 0xFFFF_FFFFL);
    }

    @Test
    void aSeatOfThisPidWithNoIdentityYetIsThisProcesssOwnClaimInFlight() {
        long term = election.electionTerm();
        plantSeat(ME, term, 0); // identity of key 0: not this term's

        assertThat(election.claimIfLeaderDead(ME, 3)).isTrue();

        assertThat(election.electionTerm()).isEqualTo(term);
    }

    @Test
    void theDefaultGraceOverloadClaimsAndRefuses() {
        assertThat(election.tryClaimLeadership(NO_SUCH_PID)).isTrue();
        assertThat(election.tryClaimLeadership(NO_SUCH_PID + 1)).isFalse();
        for (int i = 0; i < SharedLeaderElection.DEFAULT_GRACE_EPOCHS + 1; i++) {
            election.tickEpoch();
        }
        assertThat(election.tryClaimLeadership(NO_SUCH_PID + 1)).isTrue();
    }

    @Test
    void claimsWithoutPreemptionAreCountedOnBothPaths() {
        election.tryClaimLeadership(NO_SUCH_PID, 3, Preemption.NONE); // slow path
        election.tryClaimLeadership(NO_SUCH_PID, 3, Preemption.NONE); // fast path
        assertThat(election.opCounts()).containsEntry("try_claim", 2L);
    }

    // ----------------------------------------------------- the dead check and the floor's answer

    static final long GRACE = 3;

    private SharedLeaderElection create(String name) {
        return SharedLeaderElection.TYPE.create(
                dir.resolve(name), SharedLeaderElection.Settings.DEFAULTS);
    }

    @Test
    void theLeaderAskingWhetherItIsDeadKeepsItsTerm() {
        try (var election = create("l.cxc")) {
            assertThat(election.tryClaimLeadership(ME, GRACE)).isTrue();
            long term = election.electionTerm();
            assertThat(election.claimIfLeaderDead(ME, GRACE)).isTrue();
            assertThat(election.electionTerm()).isEqualTo(term);
        }
    }

    @Test
    void aRaisedTermFloorSaysSoAndAFloorAtTheTermDoesNot() {
        try (var election = create("l.cxc")) {
            long term = election.electionTerm();
            assertThat(election.raiseTermFloor(term + 10)).isTrue();
            assertThat(election.electionTerm()).isEqualTo(term + 10);
            assertThat(election.raiseTermFloor(term + 10)).isFalse();
        }
    }

    // ---------------------------------------------------------------------------- an invalid PID

    @Test
    void anInvalidPidIsNamedEvenWithAGraceOfZero() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            assertThatThrownBy(() -> election.tryClaimLeadership(0, 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PID 0");
            assertThatThrownBy(() -> election.tryClaimLeadership(ME, -1))
                    .hasMessage("graceEpochs must be 0 or more, got -1");
        }
    }
}
