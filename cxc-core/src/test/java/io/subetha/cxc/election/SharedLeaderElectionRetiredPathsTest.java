package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The election's paths off the fast path that the mutation run found unpinned: a retired handle's
 * claims judged by its successor's rules (and through a chain of two successors), a retire that
 * finds the file retired already, the retired term a maximum never lowered, a take-over of a dead
 * holder of this PID and a candidate seat claim that lose their CAS (held at {@code JUDGED}), the
 * term floor's answer, a full candidate table, and a seat index past the table never written. Live
 * rivals are PID 1 or {@code sleep} children, killed after each test.
 */
class SharedLeaderElectionRetiredPathsTest {

    static final long ME = Pids.current();
    static final long GRACE = 3;

    @TempDir Path dir;
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

    /** {@code old} retired and forwarding to {@code next}, as a participant leaves it. */
    private static void retireInto(SharedLeaderElection old, SharedLeaderElection next) {
        old.retire(ME, false);
        old.forwardTo(next);
    }

    @Test
    void aRetiredHandlesClaimIsRefusedWhenItsSuccessorHasALowerLiveLeader() {
        try (var old = create("old.cxc");
                var next = create("next.cxc")) {
            retireInto(old, next);
            assertThat(next.tryClaimLeadership(1, GRACE)).isTrue(); // lower than us, alive
            assertThat(old.tryClaimLeadership(ME, GRACE)).isFalse();
            assertThat(old.tryClaimLeadership(ME, GRACE, Preemption.NONE)).isFalse();
            assertThat(next.currentLeader()).hasValue(1);
        }
    }

    @Test
    void aRetiredHandlesTakeOverIsTheSuccessorsAndNeverPreemptsALiveLeader() throws Exception {
        try (var old = create("old.cxc");
                var next = create("next.cxc")) {
            retireInto(old, next);
            long higher = liveChild(); // started after us: a higher PID unless PIDs wrapped
            assertThat(next.tryClaimLeadership(higher, GRACE)).isTrue();
            long term = next.electionTerm();
            assertThat(old.claimIfLeaderDead(ME, GRACE))
                    .as("alive: a take-over, not a preemption")
                    .isFalse();
            assertThat(next.currentLeader()).hasValue(higher);
            assertThat(next.electionTerm()).isEqualTo(term);
        }
    }

    @Test
    void aRetiredHandlesTakeOverOfAnEmptySuccessorClaimsItAndWithoutOneRefuses() {
        try (var old = create("old.cxc");
                var next = create("next.cxc");
                var orphan = create("orphan.cxc")) {
            orphan.retire(ME, false);
            assertThat(orphan.claimIfLeaderDead(ME, GRACE)).as("nothing replaced it").isFalse();

            retireInto(old, next);
            assertThat(old.claimIfLeaderDead(ME, GRACE)).isTrue();
            assertThat(next.isLeader(ME)).isTrue();
            assertThat(old.isLeader(ME)).isTrue();
        }
    }

    @Test
    void leadershipIsReadThroughAChainOfTwoRetiredHandles() {
        try (var first = create("first.cxc");
                var second = create("second.cxc");
                var third = create("third.cxc")) {
            retireInto(first, second);
            retireInto(second, third);
            assertThat(third.tryClaimLeadership(ME, GRACE)).isTrue();
            long term = third.electionTerm();
            assertThat(first.termIfLeader(ME)).isEqualTo(term);
            assertThat(first.isLeader(ME)).isTrue();
            assertThat(first.tryClaimLeadership(ME, GRACE)).isTrue();
            assertThat(third.electionTerm()).as("the same term, no new claim").isEqualTo(term);
            assertThat(first.isLeader(1)).isFalse();
        }
    }

    @Test
    void retiringAFileRetiredAlreadyKeepsTheTermItHid() {
        Path path = dir.resolve("l.cxc");
        try (var election =
                        SharedLeaderElection.TYPE.create(
                                path, SharedLeaderElection.Settings.DEFAULTS);
                var other = SharedLeaderElection.open(path)) {
            assertThat(election.tryClaimLeadership(ME, GRACE)).isTrue();
            long term = election.electionTerm();
            assertThat(election.retire(ME, false)).isEqualTo(term);
            assertThat(other.retire(ME, false)).as("retired by the other handle").isEqualTo(-1);
            AtomicBuffer raw = RawBody.of(path);
            assertThat(raw.getLongVolatile(LeaderElectionDescriptor.RETIRED_TERM_OFFSET))
                    .as("not the retired word's own term")
                    .isEqualTo(term);
        }
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
    void aRaisedTermFloorSaysSoAndAFloorAtTheTermDoesNot() {
        try (var election = create("l.cxc")) {
            long term = election.electionTerm();
            assertThat(election.raiseTermFloor(term + 10)).isTrue();
            assertThat(election.electionTerm()).isEqualTo(term + 10);
            assertThat(election.raiseTermFloor(term + 10)).isFalse();
        }
    }

    @Test
    void aFullCandidateTableTakesNoLiveSeatAndAParticipantTicksWithoutOne() throws Exception {
        try (var election = create("l.cxc")) {
            List<Long> holders = new ArrayList<>();
            holders.add(1L);
            while (holders.size() < LeaderElectionDescriptor.CANDIDATE_CAPACITY) {
                holders.add(liveChild());
            }
            for (long pid : holders) {
                int seat = election.registerCandidate(pid, GRACE);
                assertThat(seat).isNotNegative();
                assertThat(election.beatCandidate(seat, pid)).isTrue();
            }
            assertThat(election.registerCandidate(ME, GRACE))
                    .as("every seat is live")
                    .isEqualTo(-1);
            assertThat(election.candidates()).hasSize(LeaderElectionDescriptor.CANDIDATE_CAPACITY);

            var p = new ElectionParticipant(election, ME, GRACE, java.time.Duration.ofHours(1));
            var outcome = p.tick();
            assertThat(outcome.leader()).as("PID 1 is a lower live candidate").isFalse();
            assertThat(election.candidates()).doesNotContain(ME);
            assertThat(election.candidates())
                    .containsExactlyInAnyOrder(
                            holders.stream().mapToLong(Long::longValue).toArray());
        }
    }

    @Test
    void aSeatIndexOutsideTheTableIsNeverWrittenEvenWhenTheWordThereHoldsTheCallersPid() {
        Path path = dir.resolve("l.cxc");
        try (var election =
                SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS)) {
            assertThat(election.tickEpochIfDue(java.time.Duration.ofHours(1))).isTrue();
            AtomicBuffer raw = RawBody.of(path);
            int past =
                    LeaderElectionDescriptor.candidateRecordOffset(
                            LeaderElectionDescriptor.CANDIDATE_CAPACITY);
            int before = LeaderElectionDescriptor.candidateRecordOffset(-1);
            long pastWord = raw.getLongVolatile(past);
            long beforeWord = raw.getLongVolatile(before);

            election.leaveCandidates(
                    LeaderElectionDescriptor.CANDIDATE_CAPACITY, OwnerRecord.pid(pastWord));
            election.leaveCandidates(-1, OwnerRecord.pid(beforeWord));

            assertThat(raw.getLongVolatile(past)).as("the incarnation").isEqualTo(pastWord);
            assertThat(raw.getLongVolatile(before)).as("the pacer's clock").isEqualTo(beforeWord);
            assertThat(SharedLeaderElection.incarnationAt(path)).isEqualTo(election.incarnation());
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

    @Test
    void theRetiredTermIsAMaximumAndIsNeverLowered() {
        Path path = dir.resolve("l.cxc");
        try (var election =
                SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS)) {
            assertThat(election.tryClaimLeadership(ME, GRACE)).isTrue();
            long term = election.electionTerm();
            AtomicBuffer raw = RawBody.of(path);
            // A higher term hidden by an earlier retirement of this file, since revived.
            raw.setLongVolatile(LeaderElectionDescriptor.RETIRED_TERM_OFFSET, term + 100);
            assertThat(election.retire(ME, false)).isEqualTo(term);
            assertThat(raw.getLongVolatile(LeaderElectionDescriptor.RETIRED_TERM_OFFSET))
                    .isEqualTo(term + 100);
        }
    }
}
