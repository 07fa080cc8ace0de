package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.election.LeaderElectionDescriptor;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.FailoverWatchdogDescriptor;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.liveness.SlotLostException;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claims across the families raced at their exact steps, each held there with a {@link StepGate}
 * while another process's part is played, then released: a claimant paused before its CAS writes
 * nothing over the owner that won meanwhile, a start time counts only under the key it was
 * published with, a PID match is not taken for identity, and a claim is not freed under a live
 * assigner.
 */
class ClaimRaceTest {

    static final long GRACE = 3;
    static final long ME = Pids.current();
    static final long MY_START_TIME = ProcessProbe.startTime(ME) & 0xFFFF_FFFFL;

    /** A live process other than this one, whose start time differs from ours. */
    static final long PARENT = ProcessHandle.current().parent().orElseThrow().pid();

    /** A PID beyond any pid_max: its process never exists. */
    static final long NOBODY = 4_000_000_000L;

    @TempDir Path dir;

    // ------------------------------------------------------------------ 1. paused claimant

    @Test
    void aClaimantPausedBeforeItsCasDoesNotDeposeTheHealthyLeaderThatWonMeanwhile() {
        Path path = dir.resolve("leader.cxc");
        try (SharedLeaderElection election =
                        SharedLeaderElection.TYPE.create(
                                path, SharedLeaderElection.Settings.DEFAULTS);
                SharedLeaderElection claimant = SharedLeaderElection.open(path)) {
            long seed = election.electionTerm();
            assertThat(election.tryClaimLeadership(100, GRACE)).isTrue();
            for (int i = 0; i <= GRACE; i++) {
                election.tickEpoch(); // 100 goes stale
            }
            // 200 judged the stale leader and is about to CAS when it is paused.
            StepGate<Boolean> paused =
                    StepGate.holdAt(Point.JUDGED, () -> claimant.tryClaimLeadership(200, GRACE));

            assertThat(election.tryClaimLeadership(150, GRACE)).isTrue(); // term 2
            for (int i = 0; i < GRACE + 2; i++) {
                election.tickEpoch();
                assertThat(election.beatAsLeader(150)).isTrue(); // healthy, beating
            }

            assertThat(paused.release()).isFalse();
            LeaderSnapshot after = election.snapshot();
            assertThat(after.leaderPid()).isEqualTo(150);
            assertThat(after.term()).isEqualTo(seed + 2);
            assertThat(after.heartbeat()).isEqualTo(after.globalEpoch());
        }
    }

    @Test
    void aRegistrantPausedBeforeItsCasDoesNotReclaimTheSlotAHealthyOwnerTookMeanwhile() {
        Path path = dir.resolve("heartbeat.cxc");
        try (HeartbeatTable table = HeartbeatTable.create(path, 1);
                HeartbeatTable registrant = HeartbeatTable.open(path, 1)) {
            int slot = table.register(PARENT, GRACE);
            for (int i = 0; i <= GRACE; i++) {
                table.tickGlobalEpoch();
            }
            StepGate<Integer> paused =
                    StepGate.holdAt(Point.JUDGED, () -> registrant.register(1, GRACE));

            assertThat(table.register(ME, GRACE)).isEqualTo(slot);
            for (int i = 0; i < GRACE + 2; i++) {
                table.tickGlobalEpoch();
                table.beat(slot);
            }

            assertThatThrownBy(paused::release).isInstanceOf(CxcCapacityException.class);
            assertThat(table.snapshot(slot).orElseThrow().pid()).isEqualTo(ME);
            assertThat(table.status(slot, GRACE)).isEqualTo(OwnerStatus.LIVE);
            table.beat(slot); // still ours
        }
    }

    @Test
    void aJoinerPausedBeforeItsCasDoesNotDropTheParticipantThatJoinedMeanwhile() {
        Path path = dir.resolve("barrier.cxc");
        Duration interval = Duration.ofSeconds(1);
        try (EpochBarrier first =
                        EpochBarrier.create(path, 1, interval, 5, CxcFileOptions.defaults());
                EpochBarrier second = EpochBarrier.open(path, 1);
                EpochBarrier third = EpochBarrier.open(path, 1)) {
            first.join();
            first.close(); // leaves: the slot is free
            StepGate<Integer> paused = StepGate.holdAt(Point.JUDGED, third::join);

            second.join();
            second.beat();

            assertThatThrownBy(paused::release).isInstanceOf(CxcCapacityException.class);
            assertThat(second.isParticipant()).isTrue();
            second.beat();
        }
    }

    // -------------------------------------------------------- 2. late identity publication

    @Test
    void aLeaderPausedBeforePublishingItsStartTimeCannotPoisonTheNextLeadersIdentity() {
        Path path = dir.resolve("leader.cxc");
        try (SharedLeaderElection election =
                        SharedLeaderElection.TYPE.create(
                                path, SharedLeaderElection.Settings.DEFAULTS);
                SharedLeaderElection paused = SharedLeaderElection.open(path)) {
            // PARENT wins the seat, then pauses before publishing its start time.
            StepGate<Boolean> parent =
                    StepGate.holdAt(
                            Point.HEARTBEAT_PUBLISHED,
                            () -> paused.tryClaimLeadership(PARENT, GRACE));
            for (int i = 0; i <= GRACE; i++) {
                election.tickEpoch(); // PARENT goes stale while paused
            }
            assertThat(election.tryClaimLeadership(ME, GRACE)).isTrue();
            long term = election.electionTerm();

            assertThat(parent.release()).isTrue(); // it did win, one term ago

            LeaderSnapshot now = election.snapshot();
            assertThat(now.leaderPid()).isEqualTo(ME);
            assertThat(now.term()).isEqualTo(term);
            assertThat(now.leaderStartTime()).isEqualTo(MY_START_TIME);
            assertThat(election.leaderStatus()).isEqualTo(ProcessStatus.ALIVE);
            assertThat(election.claimIfLeaderDead(NOBODY)).isFalse();
            assertThat(election.currentLeader()).hasValue(ME);
        }
    }

    @Test
    void aRegistrantPausedBeforePublishingItsStartTimeCannotPoisonTheNextOwnersIdentity() {
        Path path = dir.resolve("heartbeat.cxc");
        try (HeartbeatTable table = HeartbeatTable.create(path, 1);
                HeartbeatTable paused = HeartbeatTable.open(path, 1)) {
            StepGate<Integer> parent =
                    StepGate.holdAt(
                            Point.HEARTBEAT_PUBLISHED, () -> paused.register(PARENT, GRACE));
            for (int i = 0; i <= GRACE; i++) {
                table.tickGlobalEpoch();
            }
            int slot = table.register(ME, GRACE);

            assertThat(parent.release()).isEqualTo(slot);

            assertThat(table.snapshot(slot).orElseThrow().startTime()).isEqualTo(MY_START_TIME);
            assertThat(table.status(slot, GRACE)).isEqualTo(OwnerStatus.LIVE);
            assertThatThrownBy(() -> paused.beat(slot)).isInstanceOf(SlotLostException.class);
            table.beat(slot);
        }
    }

    // ---------------------------------------------------------------- 3. reused PID

    @Test
    void aProcessThatReusedTheDeadLeadersPidTakesTheNextTermInsteadOfContinuingIts()
            throws Exception {
        Path path = dir.resolve("leader.cxc");
        SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS).close();
        try (FencedLedger ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            // What a dead leader that had this process's PID left behind: term 7, its own start
            // time, a fresh heartbeat; and the write it made downstream.
            long predecessorStartTime = (MY_START_TIME + 1) & 0xFFFF_FFFFL;
            var body = RawBody.of(path);
            body.setLongVolatile(
                    LeaderElectionDescriptor.LEADER_IDENTITY_OFFSET,
                    (7L << 32) | predecessorStartTime);
            body.setLongVolatile(
                    LeaderElectionDescriptor.LEADER_WORD_OFFSET,
                    LeaderElectionDescriptor.packLeaderWord(ME, 7));
            assertThat(ledger.write(7, ME).accepted()).isTrue();

            try (SharedLeaderElection election = SharedLeaderElection.open(path)) {
                assertThat(election.isLeader(ME)).isFalse();
                assertThat(election.termIfLeader(ME)).isEqualTo(-1);
                assertThat(election.electionTerm()).isEqualTo(7);

                assertThat(election.tryClaimLeadership(ME, GRACE)).isTrue();
                assertThat(election.electionTerm()).isEqualTo(8);
                assertThat(election.termIfLeader(ME)).isEqualTo(8);
                assertThat(election.snapshot().leaderStartTime()).isEqualTo(MY_START_TIME);
                assertThat(ledger.write(8, ME).accepted()).isTrue();
                assertThat(ledger.write(7, ME).accepted()).isFalse();
            }
        }
    }

    @Test
    void aSeatOfThisPidWhoseIdentityNeverAppearsIsReleasedOnOpen() {
        Path path = dir.resolve("leader.cxc");
        SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS).close();
        // A process that had this PID died between winning the seat and publishing its identity.
        RawBody.of(path)
                .setLongVolatile(
                        LeaderElectionDescriptor.LEADER_WORD_OFFSET,
                        LeaderElectionDescriptor.packLeaderWord(ME, 4));
        try (SharedLeaderElection election = SharedLeaderElection.open(path)) {
            assertThat(election.currentLeader()).isEmpty();
            assertThat(election.tryClaimLeadership(ME, GRACE)).isTrue();
            assertThat(election.electionTerm()).isEqualTo(5);
        }
    }

    @Test
    void anotherHandleOfTheLeadingProcessConfirmsTheSameTerm() {
        Path path = dir.resolve("leader.cxc");
        try (SharedLeaderElection election =
                        SharedLeaderElection.TYPE.create(
                                path, SharedLeaderElection.Settings.DEFAULTS);
                SharedLeaderElection second = SharedLeaderElection.open(path)) {
            long seed = election.electionTerm();
            assertThat(election.tryClaimLeadership(ME, GRACE)).isTrue();
            assertThat(second.termIfLeader(ME)).isEqualTo(seed + 1);
            assertThat(second.tryClaimLeadership(ME, GRACE)).isTrue();
            assertThat(election.electionTerm()).isEqualTo(seed + 1);
        }
    }

    // ---------------------------------------------------------------- 4. watchdog assign

    @Test
    void anAssignerPausedBetweenItsClaimAndItsWorkIdLosesNoOnesWork() {
        Path heartbeat = dir.resolve("heartbeat.cxc");
        try (HeartbeatTable table = HeartbeatTable.create(heartbeat, 1);
                FailoverWatchdog watchdog =
                        FailoverWatchdog.create(
                                dir.resolve("watchdog.cxc"), table, 4, CxcFileOptions.defaults());
                FailoverWatchdog other =
                        FailoverWatchdog.open(
                                dir.resolve("watchdog.cxc"), table, CxcFileOptions.defaults())) {
            int slot = table.register(ME, GRACE);
            StepGate<Void> paused =
                    StepGate.holdAt(
                            Point.ENTRY_CLAIMED,
                            () -> {
                                watchdog.assign(slot, 111);
                                return null;
                            });

            // Its slot goes stale and is reclaimed by another holder, a scan runs, and the new
            // holder assigns its own work.
            for (int i = 0; i <= GRACE; i++) {
                table.tickGlobalEpoch();
            }
            assertThat(table.register(ME, GRACE)).isEqualTo(slot);
            assertThat(other.scan(GRACE).abandonedClaims()).isZero();
            other.assign(slot, 222);

            paused.release();

            // 111 names the old holder: the next scan moves it to the live one. Nothing is lost
            // and nothing is owned twice.
            other.scan(GRACE);
            assertThat(other.ownerOf(222)).isEqualTo(OptionalInt.of(slot));
            assertThat(other.ownerOf(111)).isEqualTo(OptionalInt.of(slot));
            assertThat(other.workOf(slot)).containsExactlyInAnyOrder(111L, 222L);
            assertThat(other.assignments()).hasSize(2);
        }
    }

    @Test
    void aDeadAssignersClaimIsFreedButALiveOnesIsNot() {
        Path heartbeat = dir.resolve("heartbeat.cxc");
        try (HeartbeatTable table = HeartbeatTable.create(heartbeat, 2);
                FailoverWatchdog watchdog =
                        FailoverWatchdog.create(
                                dir.resolve("watchdog.cxc"), table, 4, CxcFileOptions.defaults())) {
            int slot = table.register(ME, GRACE);
            var body = RawBody.of(watchdog.file());
            int word = FailoverWatchdogDescriptor.OWNER_WORD_OFFSET;
            int e0 = FailoverWatchdogDescriptor.entryOffset(0);
            int e1 = FailoverWatchdogDescriptor.entryOffset(1);
            body.setLongVolatile(e0 + word, FailoverWatchdogDescriptor.packClaimWord(1, slot, ME));
            body.setLongVolatile(
                    e1 + word, FailoverWatchdogDescriptor.packClaimWord(1, slot, NOBODY));

            assertThat(watchdog.scan(GRACE).abandonedClaims()).isEqualTo(1);
            assertThat(FailoverWatchdogDescriptor.state(body.getLongVolatile(e0 + word)))
                    .isEqualTo(FailoverWatchdogDescriptor.STATE_CLAIMING);
        }
    }
}
