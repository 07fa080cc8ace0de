package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The election's CASes raced at their exact steps, each held with a {@link StepGate} or an {@link
 * Interleaving} point while another process's part is played: a step-down that loses to a take-over
 * reports "was not the leader" and leaves the new leader seated, one that loses to its own re-claim
 * under a new term steps down from that one, a retire that loses to a rival's claim reports no term
 * led and leaves the rival seated, a take-over of a dead leader (or of a dead holder of this PID)
 * that loses reports "not leading", a candidate whose seat claim loses takes the next seat; and a
 * seat that changes between a participant's read of the leader word and its judgement of the seat
 * ({@link Point#SEAT_JUDGING}). Live rivals are {@code sleep} children, killed after each test.
 */
class ElectionRaceTest {
    static final long GRACE = 3;
    static final long ME = Pids.current();

    @TempDir Path dir;

    static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }

    @Test
    void aStepDownThatLosesItsCasToATakeOverReportsNotLeaderAndLeavesTheNewLeader() {
        Path path = dir.resolve("leader.cxc");
        try (SharedLeaderElection election =
                        SharedLeaderElection.TYPE.create(
                                path, SharedLeaderElection.Settings.DEFAULTS);
                SharedLeaderElection stepping = SharedLeaderElection.open(path)) {
            assertThat(election.tryClaimLeadership(200, GRACE)).isTrue();
            // 200 read its own word and is about to CAS it to "no leader".
            StepGate<Boolean> down =
                    StepGate.holdAt(Point.STEP_DOWN_JUDGED, () -> stepping.stepDown(200));
            assertThat(election.tryClaimLeadership(100, GRACE)).isTrue(); // preempts: lower PID
            long term = election.electionTerm();

            assertThat(down.release()).isFalse();

            assertThat(election.currentLeader()).hasValue(100);
            assertThat(election.electionTerm()).isEqualTo(term);
        }
    }

    @Test
    void aStepDownWhoseWordMovedToItsOwnNewTermStepsDownFromThatTerm() {
        Path path = dir.resolve("leader.cxc");
        try (SharedLeaderElection election =
                        SharedLeaderElection.TYPE.create(
                                path, SharedLeaderElection.Settings.DEFAULTS);
                SharedLeaderElection stepping = SharedLeaderElection.open(path)) {
            assertThat(election.tryClaimLeadership(200, GRACE)).isTrue();
            StepGate<Boolean> down =
                    StepGate.holdAt(Point.STEP_DOWN_JUDGED, () -> stepping.stepDown(200));
            // Another thread of 200 steps down and claims again: the same PID, the next term.
            assertThat(election.stepDown(200)).isTrue();
            assertThat(election.tryClaimLeadership(200, GRACE)).isTrue();
            long term = election.electionTerm();

            assertThat(down.release()).isTrue();

            assertThat(election.currentLeader()).isEmpty();
            assertThat(election.electionTerm()).as("the term is kept").isEqualTo(term);
        }
    }

    @Test
    void aRetireThatLosesItsCasToARivalsClaimReportsNoTermLedAndLeavesTheRivalSeated() {
        Path path = dir.resolve("leader.cxc");
        try (SharedLeaderElection election =
                        SharedLeaderElection.TYPE.create(
                                path, SharedLeaderElection.Settings.DEFAULTS);
                SharedLeaderElection retiring = SharedLeaderElection.open(path)) {
            assertThat(election.tryClaimLeadership(200, GRACE)).isTrue();
            // 200 judged the file replaced, read its own word and is about to tombstone it.
            StepGate<Long> retire =
                    StepGate.holdAt(Point.RETIRE_JUDGED, () -> retiring.retire(200, false));
            assertThat(election.tryClaimLeadership(100, GRACE)).isTrue(); // preempts: lower PID
            long term = election.electionTerm();

            assertThat(retire.release()).as("200 no longer led when its retire took").isEqualTo(-1);

            assertThat(election.currentLeader()).hasValue(100);
            assertThat(election.electionTerm()).isEqualTo(term);
        }
    }

    @Test
    void aTakeOverOfADeadLeaderThatLosesItsCasReportsNotLeading() throws Exception {
        Path path = dir.resolve("leader.cxc");
        try (SharedLeaderElection election =
                        SharedLeaderElection.TYPE.create(
                                path, SharedLeaderElection.Settings.DEFAULTS);
                SharedLeaderElection late = SharedLeaderElection.open(path)) {
            assertThat(election.tryClaimLeadership(deadPid(), GRACE)).isTrue();
            // 300 judged the leader dead and is about to CAS from its word.
            StepGate<Boolean> takeOver =
                    StepGate.holdAt(Point.JUDGED, () -> late.claimIfLeaderDead(300, GRACE));
            assertThat(election.claimIfLeaderDead(ME, GRACE)).isTrue();
            long term = election.electionTerm();

            assertThat(takeOver.release()).isFalse();

            assertThat(election.currentLeader()).hasValue(ME);
            assertThat(election.electionTerm()).isEqualTo(term);
            assertThat(late.isLeader(300)).isFalse();
        }
    }

    // -------------------------------------------------------------------------- lost seat claims

    final List<Process> children = new ArrayList<>();

    @AfterEach
    void killChildren() {
        children.forEach(Process::destroyForcibly);
    }

    private long liveChild() throws IOException {
        Process child = new ProcessBuilder("sleep", "300").start();
        children.add(child);
        return child.pid();
    }

    private SharedLeaderElection create(String name) {
        return SharedLeaderElection.TYPE.create(
                dir.resolve(name), SharedLeaderElection.Settings.DEFAULTS);
    }

    @Test
    void aTakeOverOfADeadHolderOfThisPidThatLosesItsCasToALowerPidDoesNotLead() {
        Path path = dir.resolve("l.cxc");
        try (var election =
                        SharedLeaderElection.TYPE.create(
                                path, SharedLeaderElection.Settings.DEFAULTS);
                var late = SharedLeaderElection.open(path)) {
            long term = election.electionTerm();
            AtomicBuffer raw = RawBody.of(path);
            // A dead process that had this PID: another start time under the seat's key.
            raw.setLongVolatile(
                    LeaderElectionDescriptor.LEADER_IDENTITY_OFFSET, (term << 32) | 12345);
            raw.setLongVolatile(
                    LeaderElectionDescriptor.LEADER_WORD_OFFSET,
                    LeaderElectionDescriptor.packLeaderWord(ME, term));
            StepGate<Boolean> takeOver =
                    StepGate.holdAt(Point.JUDGED, () -> late.claimIfLeaderDead(ME, GRACE));
            assertThat(election.tryClaimLeadership(1, GRACE)).isTrue(); // lower: preempts it
            assertThat(takeOver.release()).isFalse();
            assertThat(election.currentLeader()).hasValue(1);
            assertThat(election.electionTerm()).isEqualTo(term + 1);
        }
    }

    @Test
    void aCandidateWhoseSeatClaimLosesItsCasTakesTheNextSeat() throws Exception {
        Path path = dir.resolve("l.cxc");
        try (var election =
                        SharedLeaderElection.TYPE.create(
                                path, SharedLeaderElection.Settings.DEFAULTS);
                var late = SharedLeaderElection.open(path)) {
            long rival = liveChild();
            // ME judged seat 0 free and is about to CAS it; the rival takes it first.
            StepGate<Integer> register =
                    StepGate.holdAt(Point.JUDGED, () -> late.registerCandidate(ME, GRACE));
            assertThat(election.registerCandidate(rival, GRACE)).isZero();
            assertThat(register.release()).as("seat 0 is the rival's").isEqualTo(1);
            assertThat(election.candidates()).containsExactlyInAnyOrder(rival, ME);
        }
    }

    // ----------------------------------------- a seat that changes while a participant judges it

    private SharedLeaderElection election() {
        var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"),
                        new SharedLeaderElection.Settings(Duration.ofHours(1), 3));
        int seat = election.registerCandidate(1, 3); // the heir, lower than us: we only defer
        assertThat(election.beatCandidate(seat, 1)).isTrue();
        return election;
    }

    /** Runs {@code change} once, the first time a thread reaches {@link Point#SEAT_JUDGING}. */
    private static Interleaving.Installed onceAtSeatJudging(Runnable change) {
        AtomicBoolean done = new AtomicBoolean();
        return Interleaving.install(
                point -> {
                    if (point == Point.SEAT_JUDGING && done.compareAndSet(false, true)) {
                        change.run();
                    }
                });
    }

    @Test
    void aLeaderReplacedByAnotherLiveOneMeanwhileLeavesTheSeatHeld() throws Exception {
        try (var election = election()) {
            long first = liveChild();
            long second = liveChild();
            assertThat(election.tryClaimLeadership(first, 3)).isTrue();
            var survivor = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            ElectionParticipant.TickOutcome outcome;
            try (var race =
                    onceAtSeatJudging(
                            () -> {
                                assertThat(election.stepDown(first)).isTrue();
                                assertThat(election.tryClaimLeadership(second, 3)).isTrue();
                            })) {
                outcome = survivor.tick();
            }
            assertThat(outcome.leader()).isFalse();
            assertThat(election.currentLeader()).hasValue(second);
            assertThat(survivor.wantsPoll()).as("a held seat: nothing to defer").isFalse();
        }
    }

    @Test
    void aLeaderThatSteppedDownMeanwhileLeavesTheSeatVacant() throws Exception {
        try (var election = election()) {
            long first = liveChild();
            assertThat(election.tryClaimLeadership(first, 3)).isTrue();
            var survivor = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            try (var race =
                    onceAtSeatJudging(() -> assertThat(election.stepDown(first)).isTrue())) {
                assertThat(survivor.tick().leader()).as("the heir's turn first").isFalse();
            }
            assertThat(election.currentLeader()).isEmpty();
            assertThat(survivor.wantsPoll()).as("vacant: the deferral started").isTrue();
        }
    }
}
