package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessStatus;
import io.subetha.cxc.testing.RawBody;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handle whose file was deleted, replaced or truncated under it: {@link
 * SharedLeaderElection#retire} tombstones the orphan's leader word (only over its own or an empty
 * seat, once, recording the term it hid for a reviver, a maximum never lowered), and every call
 * then refuses (no successor yet) or forwards to the handle open on the file now at the path, with
 * that handle's rules and op counts, through a chain of successors too; a floor is never written
 * over a retired word; and the incarnation that tells a replaced file is read from a file too short
 * to hold one as zero. Live rivals are PID 1 or {@code sleep} children, killed after each test.
 */
class RetiredElectionHandleTest {
    /** Above any kernel's pid_max (2^22): never a live process. */
    static final long NEVER_LIVE = 4_194_400;

    @TempDir Path dir;
    SharedLeaderElection orphan;
    SharedLeaderElection next;

    @BeforeEach
    void open() {
        orphan =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("orphan.cxc"), SharedLeaderElection.Settings.DEFAULTS);
        next =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("next.cxc"), SharedLeaderElection.Settings.DEFAULTS);
    }

    @AfterEach
    void close() {
        orphan.close(); // closes next, its successor, too (closing twice is harmless)
        next.close();
    }

    private long rawLeaderWord(SharedLeaderElection election) {
        return RawBody.of(election.file())
                .getLongVolatile(LeaderElectionDescriptor.LEADER_WORD_OFFSET);
    }

    @Test
    void retiringTheLeaderTombstonesTheWordAndReturnsTheTermItLed() {
        assertThat(orphan.tryClaimLeadership(NEVER_LIVE, 3)).isTrue();
        long term = orphan.electionTerm();

        assertThat(orphan.retire(NEVER_LIVE, false)).isEqualTo(term);

        assertThat(orphan.isRetired()).isTrue();
        assertThat(orphan.isDamaged()).isFalse();
        assertThat(rawLeaderWord(orphan)).isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
        assertThat(orphan.retire(NEVER_LIVE, false)).isEqualTo(-1); // already retired
    }

    @Test
    void retiringAnEmptySeatTombstonesItWithNoTerm() {
        assertThat(orphan.retire(NEVER_LIVE, false)).isEqualTo(-1);
        assertThat(rawLeaderWord(orphan)).isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
    }

    @Test
    void retiringLeavesARivalsClaimOnTheOrphanAlone() {
        assertThat(orphan.tryClaimLeadership(300, 3)).isTrue();
        long word = rawLeaderWord(orphan);

        assertThat(orphan.retire(NEVER_LIVE, false)).isEqualTo(-1);

        assertThat(rawLeaderWord(orphan)).isEqualTo(word);
        assertThat(orphan.isRetired()).isTrue();
    }

    @Test
    void aTruncatedRetireLeavesTheMappingAloneAndTheFastPathsAnswerNotLeader() {
        assertThat(orphan.tryClaimLeadership(NEVER_LIVE, 3)).isTrue();
        long word = rawLeaderWord(orphan);

        assertThat(orphan.retire(NEVER_LIVE, true)).isEqualTo(-1);

        assertThat(orphan.isDamaged()).isTrue();
        assertThat(rawLeaderWord(orphan)).isEqualTo(word); // untouched
        assertThat(orphan.isLeader(NEVER_LIVE)).isFalse();
        assertThat(orphan.termIfLeader(NEVER_LIVE)).isEqualTo(-1);
        assertThat(orphan.tryClaimLeadership(NEVER_LIVE, 3)).isFalse();
    }

    @Test
    void withNoSuccessorEveryCallRefusesOrSaysWhy() {
        assertThat(orphan.tryClaimLeadership(NEVER_LIVE, 3)).isTrue();
        orphan.retire(NEVER_LIVE, false);

        assertThat(orphan.tryClaimLeadership(NEVER_LIVE, 3)).isFalse();
        assertThat(orphan.tryClaimLeadership(NEVER_LIVE, 3, Preemption.NONE)).isFalse();
        assertThat(orphan.tryClaimLeadership(NEVER_LIVE - 1, 3)).isFalse();
        assertThat(orphan.isLeader(NEVER_LIVE)).isFalse();
        assertThat(orphan.beatAsLeader(NEVER_LIVE)).isFalse();
        assertThat(orphan.stepDown(NEVER_LIVE)).isFalse();
        assertThat(orphan.claimIfLeaderDead(NEVER_LIVE, 3)).isFalse();
        assertThat(orphan.describe())
                .containsEntry("retired", true)
                .containsEntry("damaged", false);
        assertThatThrownBy(orphan::currentLeader)
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("no longer the election");
        assertThatThrownBy(orphan::active).isInstanceOf(CxcFormatException.class);
        assertThat(rawLeaderWord(orphan)).isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
    }

    @Test
    void claimsBeatsAndStepDownsForwardToTheSuccessorWithItsRules() {
        orphan.retire(NEVER_LIVE, false);
        orphan.forwardTo(next);
        assertThat(orphan.active()).isSameAs(next);

        assertThat(orphan.tryClaimLeadership(NEVER_LIVE, 3)).isTrue();
        assertThat(next.currentLeader()).hasValue(NEVER_LIVE);
        assertThat(orphan.isLeader(NEVER_LIVE)).isTrue();
        assertThat(orphan.termIfLeader(NEVER_LIVE)).isEqualTo(next.electionTerm());
        // Preemption is forwarded as asked: without it a lower PID is refused, with it it wins.
        assertThat(orphan.tryClaimLeadership(NEVER_LIVE - 100, 3, Preemption.NONE)).isFalse();
        assertThat(next.currentLeader()).hasValue(NEVER_LIVE);

        next.tickEpoch();
        assertThat(orphan.beatAsLeader(NEVER_LIVE)).isTrue();
        assertThat(next.leaderHeartbeat()).isEqualTo(1);
        assertThat(orphan.beatAsLeader(NEVER_LIVE + 1)).isFalse();

        assertThat(orphan.stepDown(NEVER_LIVE + 1)).isFalse();
        assertThat(orphan.stepDown(NEVER_LIVE)).isTrue();
        assertThat(next.currentLeader()).isEmpty();

        assertThat(orphan.claimIfLeaderDead(NEVER_LIVE, 3)).isTrue();
        assertThat(next.currentLeader()).hasValue(NEVER_LIVE);
        assertThat(orphan.tryClaimLeadership(NEVER_LIVE - 100, 3, Preemption.LOWEST_PID)).isTrue();
        assertThat(next.currentLeader()).hasValue(NEVER_LIVE - 100);
        assertThat(orphan.leaderStatus()).isEqualTo(ProcessStatus.DEAD); // no such PID
        // The orphan's own word is still the tombstone: nothing was written there.
        assertThat(rawLeaderWord(orphan)).isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
    }

    @Test
    void readsAndTicksForwardToTheSuccessor() {
        orphan.retire(NEVER_LIVE, false);
        orphan.forwardTo(next);
        next.tryClaimLeadership(NEVER_LIVE, 3);

        assertThat(orphan.tickEpoch()).isEqualTo(1);
        assertThat(orphan.tickEpochIfDue(Duration.ofHours(1))).isTrue();
        assertThat(next.globalEpoch()).isEqualTo(2);
        assertThat(orphan.tickEpochIfDue(Duration.ofHours(1))).isFalse();

        assertThat(orphan.globalEpoch()).isEqualTo(2);
        assertThat(orphan.currentLeader()).hasValue(NEVER_LIVE);
        assertThat(orphan.electionTerm()).isEqualTo(next.electionTerm());
        assertThat(orphan.leaderWord()).isEqualTo(next.leaderWord());
        assertThat(orphan.leaderHeartbeat()).isEqualTo(next.leaderHeartbeat());
        assertThat(orphan.snapshot()).isEqualTo(next.snapshot());
        assertThat(orphan.describe()).isEqualTo(next.describe());
        assertThat(orphan.describe()).containsEntry("leaderPid", NEVER_LIVE);
    }

    @Test
    void candidateSeatsAndTheTermFloorForwardToTheSuccessor() {
        orphan.retire(NEVER_LIVE, false);
        orphan.forwardTo(next);

        int seat = orphan.registerCandidate(NEVER_LIVE, 3);
        assertThat(seat).isNotNegative();
        assertThat(next.candidates()).containsExactly(NEVER_LIVE);
        assertThat(orphan.candidates()).containsExactly(NEVER_LIVE);
        assertThat(orphan.beatCandidate(seat, NEVER_LIVE)).isTrue();
        assertThat(orphan.lowestLiveCandidateBelow(Long.MAX_VALUE, 0, 3))
                .isEqualTo(0); // NEVER_LIVE is no process

        // Leaving is refused on a retired handle: the seat it names is the orphan's, not next's.
        orphan.leaveCandidates(seat, NEVER_LIVE);
        assertThat(next.candidates()).containsExactly(NEVER_LIVE);

        long floor = next.electionTerm() + 10;
        assertThat(orphan.raiseTermFloor(floor)).isTrue();
        assertThat(next.electionTerm()).isEqualTo(floor);
    }

    @Test
    void eachForwardedOpIsCountedOnceIntoTheCountersTheRetiredHandleShows() {
        orphan.retire(NEVER_LIVE, false);
        orphan.forwardTo(next);

        orphan.tryClaimLeadership(NEVER_LIVE, 3);
        orphan.beatAsLeader(NEVER_LIVE);
        orphan.tickEpoch();
        orphan.currentLeader();
        orphan.stepDown(NEVER_LIVE);
        orphan.claimIfLeaderDead(NEVER_LIVE, 3);

        // The successor counts into the first handle's counters (what the starter's meters hold):
        // one set of counts, each op once, seen through either handle.
        assertThat(next.opCounters()).isSameAs(orphan.opCounters());
        assertThat(orphan.opCounts())
                .containsEntry("try_claim", 1L)
                .containsEntry("beat", 1L)
                .containsEntry("tick_epoch", 1L)
                .containsEntry("read", 1L)
                .containsEntry("step_down", 1L)
                .containsEntry("liveness_check", 1L);
    }

    @Test
    void forwardingToItselfIsIgnored() {
        orphan.retire(NEVER_LIVE, false);
        orphan.forwardTo(orphan);
        assertThatThrownBy(orphan::currentLeader).isInstanceOf(CxcFormatException.class);
    }

    @Test
    void closingTheOrphanClosesItsSuccessor() {
        orphan.retire(NEVER_LIVE, false);
        orphan.forwardTo(next);
        orphan.close();
        assertThat(next.isClosed()).isTrue();
    }

    @Test
    void aRetiredHandleLeavesTheOrphansSeatsAlone() {
        int seat = orphan.registerCandidate(NEVER_LIVE, 3);
        long word =
                OwnerRecord.ownerWord(
                        RawBody.of(orphan.file()),
                        LeaderElectionDescriptor.candidateRecordOffset(seat));
        orphan.retire(NEVER_LIVE, false);

        orphan.leaveCandidates(seat, NEVER_LIVE);

        assertThat(
                        OwnerRecord.ownerWord(
                                RawBody.of(orphan.file()),
                                LeaderElectionDescriptor.candidateRecordOffset(seat)))
                .isEqualTo(word);
    }

    // ------------------------------------------------------ retiring, the floor, the incarnation

    static final long ME = Pids.current();

    @Test
    void retiringReturnsTheTermLedAndRecordsItForAReviver() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            assertThat(election.tryClaimLeadership(ME, 3)).isTrue();
            long term = election.electionTerm();
            AtomicBuffer raw = RawBody.of(election.file());
            assertThat(election.retire(ME, false)).isEqualTo(term);
            assertThat(raw.getLongVolatile(LeaderElectionDescriptor.LEADER_WORD_OFFSET))
                    .isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
            assertThat(raw.getLongVolatile(LeaderElectionDescriptor.RETIRED_TERM_OFFSET))
                    .isEqualTo(term);
            assertThat(election.retire(ME, false)).as("retired already").isEqualTo(-1);
        }
    }

    @Test
    void retiringOverAnotherLeaderLeavesItsSeatAndAnEmptySeatIsRetiredWithItsTerm() {
        try (var election =
                        SharedLeaderElection.TYPE.create(
                                dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS);
                var other =
                        SharedLeaderElection.TYPE.create(
                                dir.resolve("m.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            assertThat(election.tryClaimLeadership(1, 3)).isTrue();
            long word = election.leaderWord();
            assertThat(election.retire(ME, false)).isEqualTo(-1);
            AtomicBuffer raw = RawBody.of(election.file());
            assertThat(raw.getLongVolatile(LeaderElectionDescriptor.LEADER_WORD_OFFSET))
                    .isEqualTo(word);
            long seed = other.electionTerm();
            assertThat(other.retire(ME, false)).as("nobody led").isEqualTo(-1);
            assertThat(
                            RawBody.of(other.file())
                                    .getLongVolatile(LeaderElectionDescriptor.RETIRED_TERM_OFFSET))
                    .isEqualTo(seed);
        }
    }

    @Test
    void aFloorIsNeverWrittenOverARetiredWord() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            AtomicBuffer raw = RawBody.of(election.file());
            // Retired by another process still on this file; this handle has not noticed.
            raw.setLongVolatile(
                    LeaderElectionDescriptor.LEADER_WORD_OFFSET,
                    LeaderElectionDescriptor.RETIRED_WORD);
            assertThat(election.raiseTermFloor(0xFFFF_FFFEL)).isFalse();
            assertThat(raw.getLongVolatile(LeaderElectionDescriptor.LEADER_WORD_OFFSET))
                    .isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
            assertThat(election.tryClaimLeadership(ME, 3)).isFalse();
        }
    }

    @Test
    void aForwardedLeadershipReadNeverNamesPidZeroAndKeepsTermZero() {
        try (var old =
                        SharedLeaderElection.TYPE.create(
                                dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS);
                var next =
                        SharedLeaderElection.TYPE.create(
                                dir.resolve("m.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            old.retire(ME, false);
            old.forwardTo(next);
            assertThat(old.termIfLeader(0)).as("no leader is nobody's term").isEqualTo(-1);
            assertThat(old.isLeader(0)).isFalse();
            // The successor's seat at term 0 (a file whose terms wrapped): still a term.
            RawBody.of(next.file())
                    .setLongVolatile(
                            LeaderElectionDescriptor.LEADER_WORD_OFFSET,
                            LeaderElectionDescriptor.packLeaderWord(ME, 0));
            assertThat(old.termIfLeader(ME)).isZero();
            assertThat(old.tryClaimLeadership(ME, 3)).isTrue();
        }
    }

    @Test
    void aRetiredHandleWithNoSuccessorRefusesATakeOverAndTheStatusOfNoLeaderIsDead() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            assertThat(election.leaderStatus()).as("no leader").isEqualTo(ProcessStatus.DEAD);
            election.retire(ME, false);
            assertThat(election.claimIfLeaderDead(ME, 3)).isFalse();
            assertThat(election.tryClaimLeadership(ME, 3)).isFalse();
        }
    }

    @Test
    void theIncarnationOfAFileTooShortToHoldOneOrMissingIsZero() throws Exception {
        Path path = dir.resolve("l.cxc");
        long incarnation;
        try (var election =
                SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS)) {
            incarnation = election.incarnation();
        }
        assertThat(SharedLeaderElection.incarnationAt(path)).isEqualTo(incarnation);
        int end = HeaderDescriptor.HEADER_LENGTH + LeaderElectionDescriptor.INCARNATION_OFFSET + 8;
        Path exact = dir.resolve("exact.cxc");
        Files.write(exact, java.util.Arrays.copyOf(Files.readAllBytes(path), end));
        assertThat(SharedLeaderElection.incarnationAt(exact)).isEqualTo(incarnation);
        Path shorter = dir.resolve("short.cxc");
        Files.write(shorter, java.util.Arrays.copyOf(Files.readAllBytes(path), end - 1));
        assertThat(SharedLeaderElection.incarnationAt(shorter)).isZero();
        assertThat(SharedLeaderElection.incarnationAt(dir.resolve("missing.cxc"))).isZero();
    }

    // ---------------------------------------------------- claims judged by the successor's rules

    static final long GRACE = 3;

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
                var next = create("successor.cxc")) {
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
                var next = create("successor.cxc")) {
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
                var next = create("successor.cxc");
                var orphan = create("retired.cxc")) {
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

    // ------------------------------------------------- forwarded status, pacing, seats and floor

    @Test
    void aRetiredHandleForwardsStatusPacingSeatsAndTheFloorToItsSuccessor() {
        orphan.retire(ME, false);
        orphan.forwardTo(next);

        next.tryClaimLeadership(ME, 3);
        assertThat(orphan.leaderStatus()).isEqualTo(ProcessStatus.ALIVE);

        assertThat(next.tickEpochIfDue(Duration.ofHours(1))).isTrue();
        assertThat(orphan.tickEpochIfDue(Duration.ofHours(1))).isFalse(); // next's pace
        next.beatAsLeader(ME);
        assertThat(orphan.leaderHeartbeat()).isEqualTo(1);

        long parent = ProcessHandle.current().parent().orElseThrow().pid(); // alive
        assertThat(next.registerCandidate(parent, 3)).isZero();
        assertThat(orphan.registerCandidate(ME, 3)).isEqualTo(1);
        assertThat(orphan.beatCandidate(0, ME)).isFalse(); // seat 0 is not ME's
        assertThat(orphan.lowestLiveCandidateBelow(Long.MAX_VALUE, parent, 3)).isEqualTo(ME);

        long term = next.electionTerm();
        assertThat(orphan.raiseTermFloor(term)).isFalse();
        assertThat(next.currentLeader()).hasValue(ME);
    }
}
