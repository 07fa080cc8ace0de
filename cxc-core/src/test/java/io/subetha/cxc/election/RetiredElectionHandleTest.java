package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.process.ProcessStatus;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handle whose file was replaced under it: {@link SharedLeaderElection#retire} tombstones the
 * orphan's leader word, and every call then refuses (no successor yet) or forwards to the handle
 * open on the file now at the path, with that handle's rules and op counts. Pins each forwarding
 * branch of the election on its own (a mutation run showed none was checked but the fast path).
 */
class RetiredElectionHandleTest {

    /** Above any kernel's pid_max (2^22): never a live process. */
    static final long ME = 4_194_400;

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
        assertThat(orphan.tryClaimLeadership(ME, 3)).isTrue();
        long term = orphan.electionTerm();

        assertThat(orphan.retire(ME, false)).isEqualTo(term);

        assertThat(orphan.isRetired()).isTrue();
        assertThat(orphan.isDamaged()).isFalse();
        assertThat(rawLeaderWord(orphan)).isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
        assertThat(orphan.retire(ME, false)).isEqualTo(-1); // already retired
    }

    @Test
    void retiringAnEmptySeatTombstonesItWithNoTerm() {
        assertThat(orphan.retire(ME, false)).isEqualTo(-1);
        assertThat(rawLeaderWord(orphan)).isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
    }

    @Test
    void retiringLeavesARivalsClaimOnTheOrphanAlone() {
        assertThat(orphan.tryClaimLeadership(300, 3)).isTrue();
        long word = rawLeaderWord(orphan);

        assertThat(orphan.retire(ME, false)).isEqualTo(-1);

        assertThat(rawLeaderWord(orphan)).isEqualTo(word);
        assertThat(orphan.isRetired()).isTrue();
    }

    @Test
    void aTruncatedRetireLeavesTheMappingAloneAndTheFastPathsAnswerNotLeader() {
        assertThat(orphan.tryClaimLeadership(ME, 3)).isTrue();
        long word = rawLeaderWord(orphan);

        assertThat(orphan.retire(ME, true)).isEqualTo(-1);

        assertThat(orphan.isDamaged()).isTrue();
        assertThat(rawLeaderWord(orphan)).isEqualTo(word); // untouched
        assertThat(orphan.isLeader(ME)).isFalse();
        assertThat(orphan.termIfLeader(ME)).isEqualTo(-1);
        assertThat(orphan.tryClaimLeadership(ME, 3)).isFalse();
    }

    @Test
    void withNoSuccessorEveryCallRefusesOrSaysWhy() {
        assertThat(orphan.tryClaimLeadership(ME, 3)).isTrue();
        orphan.retire(ME, false);

        assertThat(orphan.tryClaimLeadership(ME, 3)).isFalse();
        assertThat(orphan.tryClaimLeadership(ME, 3, Preemption.NONE)).isFalse();
        assertThat(orphan.tryClaimLeadership(ME - 1, 3)).isFalse();
        assertThat(orphan.isLeader(ME)).isFalse();
        assertThat(orphan.beatAsLeader(ME)).isFalse();
        assertThat(orphan.stepDown(ME)).isFalse();
        assertThat(orphan.claimIfLeaderDead(ME, 3)).isFalse();
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
        orphan.retire(ME, false);
        orphan.forwardTo(next);
        assertThat(orphan.active()).isSameAs(next);

        assertThat(orphan.tryClaimLeadership(ME, 3)).isTrue();
        assertThat(next.currentLeader()).hasValue(ME);
        assertThat(orphan.isLeader(ME)).isTrue();
        assertThat(orphan.termIfLeader(ME)).isEqualTo(next.electionTerm());
        // Preemption is forwarded as asked: without it a lower PID is refused, with it it wins.
        assertThat(orphan.tryClaimLeadership(ME - 100, 3, Preemption.NONE)).isFalse();
        assertThat(next.currentLeader()).hasValue(ME);

        next.tickEpoch();
        assertThat(orphan.beatAsLeader(ME)).isTrue();
        assertThat(next.leaderHeartbeat()).isEqualTo(1);
        assertThat(orphan.beatAsLeader(ME + 1)).isFalse();

        assertThat(orphan.stepDown(ME + 1)).isFalse();
        assertThat(orphan.stepDown(ME)).isTrue();
        assertThat(next.currentLeader()).isEmpty();

        assertThat(orphan.claimIfLeaderDead(ME, 3)).isTrue();
        assertThat(next.currentLeader()).hasValue(ME);
        assertThat(orphan.tryClaimLeadership(ME - 100, 3, Preemption.LOWEST_PID)).isTrue();
        assertThat(next.currentLeader()).hasValue(ME - 100);
        assertThat(orphan.leaderStatus()).isEqualTo(ProcessStatus.DEAD); // no such PID
        // The orphan's own word is still the tombstone: nothing was written there.
        assertThat(rawLeaderWord(orphan)).isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
    }

    @Test
    void readsAndTicksForwardToTheSuccessor() {
        orphan.retire(ME, false);
        orphan.forwardTo(next);
        next.tryClaimLeadership(ME, 3);

        assertThat(orphan.tickEpoch()).isEqualTo(1);
        assertThat(orphan.tickEpochIfDue(Duration.ofHours(1))).isTrue();
        assertThat(next.globalEpoch()).isEqualTo(2);
        assertThat(orphan.tickEpochIfDue(Duration.ofHours(1))).isFalse();

        assertThat(orphan.globalEpoch()).isEqualTo(2);
        assertThat(orphan.currentLeader()).hasValue(ME);
        assertThat(orphan.electionTerm()).isEqualTo(next.electionTerm());
        assertThat(orphan.leaderWord()).isEqualTo(next.leaderWord());
        assertThat(orphan.leaderHeartbeat()).isEqualTo(next.leaderHeartbeat());
        assertThat(orphan.snapshot()).isEqualTo(next.snapshot());
        assertThat(orphan.describe()).isEqualTo(next.describe());
        assertThat(orphan.describe()).containsEntry("leaderPid", ME);
    }

    @Test
    void candidateSeatsAndTheTermFloorForwardToTheSuccessor() {
        orphan.retire(ME, false);
        orphan.forwardTo(next);

        int seat = orphan.registerCandidate(ME, 3);
        assertThat(seat).isNotNegative();
        assertThat(next.candidates()).containsExactly(ME);
        assertThat(orphan.candidates()).containsExactly(ME);
        assertThat(orphan.beatCandidate(seat, ME)).isTrue();
        assertThat(orphan.lowestLiveCandidateBelow(Long.MAX_VALUE, 0, 3))
                .isEqualTo(0); // ME is no process

        // Leaving is refused on a retired handle: the seat it names is the orphan's, not next's.
        orphan.leaveCandidates(seat, ME);
        assertThat(next.candidates()).containsExactly(ME);

        long floor = next.electionTerm() + 10;
        assertThat(orphan.raiseTermFloor(floor)).isTrue();
        assertThat(next.electionTerm()).isEqualTo(floor);
    }

    @Test
    void eachForwardedOpIsCountedOnceIntoTheCountersTheRetiredHandleShows() {
        orphan.retire(ME, false);
        orphan.forwardTo(next);

        orphan.tryClaimLeadership(ME, 3);
        orphan.beatAsLeader(ME);
        orphan.tickEpoch();
        orphan.currentLeader();
        orphan.stepDown(ME);
        orphan.claimIfLeaderDead(ME, 3);

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
        orphan.retire(ME, false);
        orphan.forwardTo(orphan);
        assertThatThrownBy(orphan::currentLeader).isInstanceOf(CxcFormatException.class);
    }

    @Test
    void closingTheOrphanClosesItsSuccessor() {
        orphan.retire(ME, false);
        orphan.forwardTo(next);
        orphan.close();
        assertThat(next.isClosed()).isTrue();
    }

    @Test
    void aRetiredHandleLeavesTheOrphansSeatsAlone() {
        int seat = orphan.registerCandidate(ME, 3);
        long word =
                OwnerRecord.ownerWord(
                        RawBody.of(orphan.file()),
                        LeaderElectionDescriptor.candidateRecordOffset(seat));
        orphan.retire(ME, false);

        orphan.leaveCandidates(seat, ME);

        assertThat(
                        OwnerRecord.ownerWord(
                                RawBody.of(orphan.file()),
                                LeaderElectionDescriptor.candidateRecordOffset(seat)))
                .isEqualTo(word);
    }
}
