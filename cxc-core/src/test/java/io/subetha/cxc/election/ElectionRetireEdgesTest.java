package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessStatus;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A retired election handle at its edges: what retiring returns and records (the term led, only
 * over its own or an empty seat, once), a floor never written over a retired word, a forwarded
 * leadership read for PID 0 and for term 0, a retired handle with no successor refusing a
 * take-over, and the incarnation read from a file too short to hold one.
 */
class ElectionRetireEdgesTest {

    static final long ME = Pids.current();

    @TempDir Path dir;

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
}
