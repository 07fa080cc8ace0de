package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessStatus;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seat holding this process's PID under another process's identity (a dead process that had the
 * same PID) is taken over under the next term, never continued; one whose identity is not yet
 * published is this process's own claim in flight. Also the overloads and forwarded calls a second
 * mutation run still found unchecked.
 */
class ElectionSamePidTakeoverTest {

    static final long ME = Pids.current();

    /** Above any kernel's pid_max (2^22): never a live process. */
    static final long NO_SUCH_PID = 4_194_400;

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

    @Test
    void aRetiredHandleForwardsStatusPacingSeatsAndTheFloorToItsSuccessor() {
        try (SharedLeaderElection next =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("next.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            election.retire(ME, false);
            election.forwardTo(next);
            next.tryClaimLeadership(ME, 3);
            assertThat(election.leaderStatus()).isEqualTo(ProcessStatus.ALIVE);

            assertThat(next.tickEpochIfDue(Duration.ofHours(1))).isTrue();
            assertThat(election.tickEpochIfDue(Duration.ofHours(1))).isFalse(); // next's pace
            next.beatAsLeader(ME);
            assertThat(election.leaderHeartbeat()).isEqualTo(1);

            long parent = ProcessHandle.current().parent().orElseThrow().pid(); // alive
            assertThat(next.registerCandidate(parent, 3)).isZero();
            assertThat(election.registerCandidate(ME, 3)).isEqualTo(1);
            assertThat(election.beatCandidate(0, ME)).isFalse(); // seat 0 is not ME's
            assertThat(election.lowestLiveCandidateBelow(Long.MAX_VALUE, parent, 3)).isEqualTo(ME);

            long term = next.electionTerm();
            assertThat(election.raiseTermFloor(term)).isFalse();
            assertThat(next.currentLeader()).hasValue(ME);
        }
    }
}
