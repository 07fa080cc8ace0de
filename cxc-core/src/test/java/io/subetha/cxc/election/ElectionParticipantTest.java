package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.election.ElectionParticipant.TickOutcome;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.process.Pids;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The participant's tick: gaining, keeping, losing and regaining leadership, every field of what a
 * tick reports edge by edge, and what it does with its seat and its file.
 */
class ElectionParticipantTest {
    @TempDir Path dir;

    @Test
    void firstTickGainsAnEmptyElectionAndLaterTicksKeepIt() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            var me = new ElectionParticipant(election, Pids.current(), 3, Duration.ofMillis(1));
            long seed = election.electionTerm();

            var first = me.tick();
            assertThat(first.leader()).isTrue();
            assertThat(first.gained()).isTrue();
            assertThat(first.term()).isEqualTo(seed + 1);

            var second = me.tick();
            assertThat(second.leader()).isTrue();
            assertThat(second.gained()).isFalse();
            assertThat(second.lost()).isFalse();
            assertThat(me.isLeader()).isTrue();
        }
    }

    @Test
    void lowerPidTakingOverIsReportedAsLost() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            long me = Pids.current();
            var participant = new ElectionParticipant(election, me, 3, Duration.ofMillis(1));
            long seed = election.electionTerm();
            participant.tick();

            // PID 1 is lower and always alive, so the liveness check must not take it back
            assertThat(election.tryClaimLeadership(1, 3)).isTrue();

            var outcome = participant.tick();
            assertThat(outcome.leader()).isFalse();
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.lostTerm()).isEqualTo(seed + 1);
            assertThat(outcome.leaderPid()).isEqualTo(1);
        }
    }

    @Test
    void lostAndRegainedBetweenTicksReportsBothEdges() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            long me = Pids.current();
            var participant = new ElectionParticipant(election, me, 3, Duration.ofMillis(1));
            long seed = election.electionTerm();
            participant.tick();
            election.stepDown(me);
            election.tryClaimLeadership(me, 3); // someone claimed for us in between: term 2

            var outcome = participant.tick();
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.gained()).isTrue();
            assertThat(outcome.term()).isEqualTo(seed + 2);
        }
    }

    @Test
    void stepDownReleasesLeadership() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            var participant =
                    new ElectionParticipant(election, Pids.current(), 3, Duration.ofMillis(1));
            participant.tick();
            assertThat(participant.stepDown()).isTrue();
            assertThat(election.currentLeader()).isEmpty();
            assertThat(participant.stepDown()).isFalse();
        }
    }

    @Test
    void invalidArgumentsAreRejected() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            assertThatThrownBy(() -> new ElectionParticipant(election, 0, 3, Duration.ofMillis(1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new ElectionParticipant(election, 5, -1, Duration.ofMillis(1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new ElectionParticipant(election, 5, 3, Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aFileReplacedUnderTheLeaderIsRetiredAndTheParticipantRejoinsWithAHigherTerm()
            throws Exception {
        Path path = dir.resolve("l.cxc");
        long me = Pids.current();
        try (var election =
                        SharedLeaderElection.TYPE.create(
                                path, SharedLeaderElection.Settings.DEFAULTS);
                var orphanView = SharedLeaderElection.open(path)) {
            var participant = new ElectionParticipant(election, me, 3, Duration.ofMillis(1));
            long oldTerm = participant.tick().term();

            // Someone renames a fresh file over the path: a new inode, term at the boot seed.
            replace(path);

            var outcome = participant.tick();
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.lostTerm()).isEqualTo(oldTerm);
            assertThat(outcome.gained()).isTrue(); // re-joined and claimed the new file
            assertThat(outcome.term()).isGreaterThan(oldTerm);
            assertThat(election.isRetired()).isTrue();
            assertThat(participant.election().fileKey()).isNotEqualTo(election.fileKey());
            // The old handle forwards to the new one...
            assertThat(election.termIfLeader(me)).isEqualTo(outcome.term());
            // ...and nobody still on the orphaned inode can lead there again.
            assertThat(orphanView.leaderWord()).isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
            assertThat(orphanView.isLeader(me)).isFalse();
            assertThat(orphanView.tryClaimLeadership(1, 3)).isFalse();
            assertThat(orphanView.claimIfLeaderDead(1, 3)).isFalse();
            participant.election().close();
        }
    }

    @Test
    void theOpCountsOfAReplacedFilesHandleGoOnAfterTheRejoinEachOpOnce() throws Exception {
        Path path = dir.resolve("l.cxc");
        long me = Pids.current();
        try (var election =
                SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS)) {
            var participant = new ElectionParticipant(election, me, 3, Duration.ofMillis(1));
            participant.tick();
            replace(path);
            assertThat(participant.tick().gained()).isTrue(); // on the new file now

            // The starter's meters hold the first handle's counters: they must keep counting.
            var counts = election.opCounters();
            long beats = counts.get(SharedLeaderElection.Op.BEAT);
            participant.tick();
            assertThat(counts.get(SharedLeaderElection.Op.BEAT)).isEqualTo(beats + 1);
            long reads = counts.get(SharedLeaderElection.Op.READ);
            assertThat(election.isLeader(me)).isTrue(); // forwarded to the new file
            assertThat(counts.get(SharedLeaderElection.Op.READ)).isEqualTo(reads + 1);
            long claims = counts.get(SharedLeaderElection.Op.TRY_CLAIM);
            assertThat(election.tryClaimLeadership(me, 3)).isTrue();
            assertThat(counts.get(SharedLeaderElection.Op.TRY_CLAIM)).isEqualTo(claims + 1);
            participant.election().close();
        }
    }

    /**
     * The 1,000-handover chaos run once had a participant re-join a file that was replaced again
     * while it was being opened (a slow open on a loaded host), claim there, and issue a term the
     * file at the path had issued too.
     */
    @Test
    void aFileReplacedWhileTheParticipantReopensItIsNeitherClaimedNorRevived() throws Exception {
        Path path = dir.resolve("l.cxc");
        long me = Pids.current();
        try (var election =
                SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS)) {
            boolean[] replaceDuringOpen = {true};
            var participant =
                    new ElectionParticipant(
                            election,
                            me,
                            3,
                            Duration.ofMillis(1),
                            Preemption.NONE,
                            (at, settings) -> {
                                var opened = SharedLeaderElection.openOrCreate(at, settings);
                                if (replaceDuringOpen[0]) {
                                    replaceDuringOpen[0] = false;
                                    replace(at); // what the opener mapped is an orphan now
                                }
                                return opened;
                            });
            long oldTerm = participant.tick().term();
            replace(path);

            var outcome = participant.tick();
            assertThat(outcome.lostTerm()).isEqualTo(oldTerm);
            assertThat(outcome.leader()).as("claimed a file replaced while it opened").isFalse();
            outcome = participant.tick(); // re-joins the file now at the path
            assertThat(outcome.leader()).isTrue();
            assertThat(participant.election().incarnation())
                    .isEqualTo(SharedLeaderElection.incarnationAt(path));
            participant.election().close();
        }
    }

    @Test
    void aRetiredFileIsNotRevivedByAnOpenThatMappedItJustBeforeItWasReplaced() throws Exception {
        Path path = dir.resolve("l.cxc");
        long me = Pids.current();
        try (var election =
                SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS)) {
            var participant = new ElectionParticipant(election, me, 3, Duration.ofMillis(1));
            participant.tick();
            Path kept = dir.resolve("kept.cxc");
            Files.createLink(kept, path); // the same inode, to open again below
            replace(path);
            participant.tick(); // retires the orphan, re-joins the new file
            assertThat(election.isRetired()).isTrue();
            // An open of the orphan that is slow: by the time it checks, the path names another
            // file. Simulated by replacing "kept" itself while the open is held after validation.
            try (Interleaving.Installed replacer =
                            Interleaving.install(
                                    point -> {
                                        if (point == Interleaving.Point.OPEN_VALIDATED) {
                                            replace(kept);
                                        }
                                    });
                    var late = SharedLeaderElection.open(kept)) {
                assertThat(late.leaderWord()).isEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
                assertThat(late.tryClaimLeadership(me, 3)).isFalse();
            }
            participant.election().close();
        }
    }

    /** A new election file renamed over {@code at}, as an operator's script does. */
    private void replace(Path at) {
        try {
            Path fresh = dir.resolve("fresh-" + System.nanoTime() + ".cxc");
            SharedLeaderElection.TYPE.create(fresh, SharedLeaderElection.Settings.DEFAULTS).close();
            Files.move(fresh, at, StandardCopyOption.REPLACE_EXISTING);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aRetiredFileOpenedAgainIsRevivedWithTermsAboveTheOneItWasRetiredAt() throws Exception {
        Path path = dir.resolve("l.cxc");
        Path moved = dir.resolve("moved.cxc");
        long me = Pids.current();
        long ledTerm;
        try (var election =
                SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS)) {
            var participant = new ElectionParticipant(election, me, 3, Duration.ofMillis(1));
            ledTerm = participant.tick().term();
            Files.move(path, moved); // the old inode lives on under another name
            participant.tick();
            participant.election().close();
        }
        // Opened at a path, it is in use: it once refused everyone until deleted.
        try (var revived = SharedLeaderElection.open(moved)) {
            assertThat(revived.leaderWord()).isNotEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
            assertThat(revived.snapshot().leaderPid()).isEqualTo(SharedLeaderElection.NO_LEADER);
            assertThat(revived.tryClaimLeadership(me, 3)).isTrue();
            assertThat(revived.termIfLeader(me)).isGreaterThan(ledTerm);
        }
    }

    @Test
    void aTruncatedFileAnswersNotLeaderInsteadOfFaultingAndIsRejoinedOnceRecreated()
            throws Exception {
        Path path = dir.resolve("l.cxc");
        long me = Pids.current();
        try (var election =
                SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS)) {
            var participant = new ElectionParticipant(election, me, 3, Duration.ofMillis(1));
            long oldTerm = participant.tick().term();
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
                channel.truncate(0); // reads of the mapping now fault (SIGBUS)
            }

            var outcome = participant.tick(); // the file at the path cannot be opened yet
            assertThat(outcome.leader()).isFalse();
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.lostTerm()).isEqualTo(oldTerm);
            assertThat(election.isDamaged()).isTrue();
            assertThat(election.isLeader(me)).isFalse(); // no InternalError
            assertThat(election.termIfLeader(me)).isEqualTo(-1);
            assertThat(election.tryClaimLeadership(me, 3)).isFalse();
            assertThat(participant.isLeader()).isFalse();
            assertThatThrownBy(participant::tick).isInstanceOf(CxcFormatException.class);

            Files.delete(path); // the operator removes the damaged file
            var rejoined = participant.tick();
            assertThat(rejoined.gained()).isTrue();
            assertThat(rejoined.term()).isGreaterThan(oldTerm);
            assertThat(election.isLeader(me)).isTrue();
            participant.election().close();
        }
    }

    // ------------------------------------------------------------ one handover per failover

    private static long deadPid() throws Exception {
        Process child = new ProcessBuilder("true").start();
        child.waitFor();
        return child.pid();
    }

    @Test
    void aSurvivorThatIsNotTheLowestLiveCandidateLetsTheHeirClaimTheDeadLeadersSeat()
            throws Exception {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            long me = Pids.current();
            assertThat(election.tryClaimLeadership(deadPid(), 3)).isTrue();
            long deadTerm = election.electionTerm();
            // PID 1 (always alive, lower than us) is a candidate too.
            int seat = election.registerCandidate(1, 3);
            assertThat(election.beatCandidate(seat, 1)).isTrue();

            var survivor = new ElectionParticipant(election, me, 3, Duration.ofMillis(50));
            var first = survivor.tick();
            assertThat(first.leader()).as("defers to the heir").isFalse();
            assertThat(survivor.isHeir()).isFalse();
            assertThat(election.electionTerm()).isEqualTo(deadTerm);

            var heir = new ElectionParticipant(election, 1, 3, Duration.ofMillis(50));
            assertThat(heir.tick().leader()).isTrue();
            assertThat(survivor.tick().leader()).isFalse();
            assertThat(election.electionTerm())
                    .as("one handover, one term")
                    .isEqualTo(deadTerm + 1);
        }
    }

    @Test
    void aHeirThatDoesNotClaimWithinTheDeferLimitIsPassedOver() throws Exception {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            assertThat(election.tryClaimLeadership(deadPid(), 3)).isTrue();
            int seat = election.registerCandidate(1, 3); // a hung heir: registered, never claims
            election.beatCandidate(seat, 1);

            var survivor =
                    new ElectionParticipant(election, Pids.current(), 3, Duration.ofMillis(50));
            assertThat(survivor.tick().leader()).isFalse();
            assertThat(survivor.deferLimit()).isEqualTo(Duration.ofMillis(50));
            assertThat(survivor.wantsPoll()).as("polls for the end of the deferral").isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> survivor.tick().leader());
        }
    }

    @Test
    void theHeirPollsAVacantSeatBetweenTicks() throws Exception {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            long me = Pids.current();
            var heir = new ElectionParticipant(election, me, 3, Duration.ofMillis(50));
            assertThat(election.tryClaimLeadership(1, 3)).isTrue(); // a live lower leader
            assertThat(heir.tick().leader()).isFalse();
            assertThat(heir.isHeir()).isTrue();
            assertThat(heir.poll()).as("the seat is held: nothing to do").isNull();

            assertThat(election.stepDown(1)).isTrue();
            var polled = heir.poll();
            assertThat(polled).isNotNull();
            assertThat(polled.gained()).isTrue();
        }
    }

    @Test
    void withoutPreemptionAHealthyLeaderKeepsItsSeatAgainstALowerPid() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            long me = Pids.current();
            var leader = new ElectionParticipant(election, me, 3, Duration.ofMillis(50));
            long term = leader.tick().term();
            ElectionParticipant.Opener opener =
                    (path, settings) -> SharedLeaderElection.openOrCreate(path, settings);

            var stable =
                    new ElectionParticipant(
                            election, 1, 3, Duration.ofMillis(50), Preemption.NONE, opener);
            assertThat(stable.tick().leader()).isFalse();
            assertThat(election.electionTerm()).isEqualTo(term);

            var preempting =
                    new ElectionParticipant(
                            election, 1, 3, Duration.ofMillis(50), Preemption.LOWEST_PID, opener);
            assertThat(preempting.tick().leader()).isTrue();
            assertThat(election.electionTerm()).isEqualTo(term + 1);
        }
    }

    // ---------------------------------------------------------------- the file's settings

    @Test
    void everyParticipantRunsAtTheSettingsStoredInTheFile() {
        var stored = new SharedLeaderElection.Settings(Duration.ofMillis(20), 4);
        try (var election = SharedLeaderElection.TYPE.create(dir.resolve("l.cxc"), stored)) {
            assertThat(election.settings()).isEqualTo(stored);
            var slow = new ElectionParticipant(election, Pids.current(), 9, Duration.ofMillis(500));
            assertThat(slow.tickInterval()).isEqualTo(Duration.ofMillis(20));
            assertThat(slow.graceEpochs()).isEqualTo(4);
            assertThat(slow.pollInterval()).isEqualTo(Duration.ofMillis(2));
            assertThat(election.describe())
                    .containsEntry("tickIntervalMillis", 20L)
                    .containsEntry("graceEpochs", 4L);
        }
        try (var reopened = SharedLeaderElection.open(dir.resolve("l.cxc"))) {
            assertThat(reopened.settings()).isEqualTo(stored);
        }
    }

    // ----------------------------------------------------------------------- what a tick reports

    static final long ME = Pids.current();
    static final long NONE = -1;

    @Test
    void eachTickReportsExactlyItsEdges() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"),
                        new SharedLeaderElection.Settings(Duration.ofHours(1), 3))) {
            var p = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            long t = election.electionTerm() + 1;

            assertThat(p.tick())
                    .as("gains")
                    .isEqualTo(new TickOutcome(true, ME, t, true, false, NONE));
            assertThat(p.tick())
                    .as("keeps")
                    .isEqualTo(new TickOutcome(true, ME, t, false, false, NONE));

            assertThat(election.tryClaimLeadership(1, 3)).isTrue();
            assertThat(p.tick())
                    .as("loses to PID 1")
                    .isEqualTo(new TickOutcome(false, 1, t + 1, false, true, t));
            assertThat(p.tick())
                    .as("stays out")
                    .isEqualTo(new TickOutcome(false, 1, t + 1, false, false, NONE));

            assertThat(election.stepDown(1)).isTrue();
            assertThat(p.tick())
                    .as("gains again")
                    .isEqualTo(new TickOutcome(true, ME, t + 2, true, false, NONE));

            assertThat(election.stepDown(ME)).isTrue(); // another thread of ours steps down
            assertThat(election.tryClaimLeadership(ME, 3)).isTrue(); // and claims again
            assertThat(p.tick())
                    .as("lost and regained under a new term between ticks")
                    .isEqualTo(new TickOutcome(true, ME, t + 3, true, true, t + 2));
            assertThat(p.tick()).isEqualTo(new TickOutcome(true, ME, t + 3, false, false, NONE));
        }
    }
}
