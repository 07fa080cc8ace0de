package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The election's CASes that lose to another process between the read and the CAS, replayed by
 * holding the caller with a {@link StepGate}: a step-down that loses to a take-over reports "was
 * not the leader" and leaves the new leader seated; one that loses to its own re-claim under a new
 * term steps down from that one; a take-over of a dead leader that loses reports "not leading".
 */
class ElectionLostCasTest {

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
}
