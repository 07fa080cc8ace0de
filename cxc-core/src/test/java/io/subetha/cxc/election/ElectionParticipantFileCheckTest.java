package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.LogCapture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a participant's per-tick check of its path makes of each thing it can find there: a file
 * whose incarnation cannot be read (kept: nothing is retired on a doubt), a deleted, truncated or
 * replaced file and a replaced directory (each named so in the one warning it logs), a file the
 * participant's own handle found retired by another handle, and a replacement replaced or deleted
 * again while it was being opened (closed, and retired only if a file is there). Also the
 * participant's candidate seat taken by another, and a step-down after a loss no tick saw.
 */
class ElectionParticipantFileCheckTest {

    static final long ME = Pids.current();
    static final SharedLeaderElection.Settings HOUR =
            new SharedLeaderElection.Settings(Duration.ofHours(1), 3);
    static final int FILE_LENGTH =
            HeaderDescriptor.HEADER_LENGTH + LeaderElectionDescriptor.BODY_LENGTH;

    @TempDir Path dir;

    @RegisterExtension final LogCapture log = new LogCapture(ElectionParticipant.class);
    final List<String> warnings = log.messages;

    private Path path() {
        return dir.resolve("l.cxc");
    }

    private void awaitWarning(String text) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> warnings.stream().anyMatch(w -> w.contains(text)));
    }

    private long warningsContaining(String text) {
        return warnings.stream().filter(w -> w.contains(text)).count();
    }

    private ElectionParticipant participant(SharedLeaderElection election) {
        return new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
    }

    /** A new election file (with {@code settings}) renamed over {@code at}. */
    private void replace(Path at, SharedLeaderElection.Settings settings) {
        try {
            Path fresh = at.resolveSibling("fresh-" + System.nanoTime() + ".cxc");
            SharedLeaderElection.TYPE.create(fresh, settings).close();
            Files.move(fresh, at, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aFileOfFullLengthWhoseIncarnationReadsZeroIsKeptNotRetired() throws Exception {
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            var p = participant(election);
            long term = p.tick().term();
            Path zeros = dir.resolve("zeros");
            Files.write(zeros, new byte[FILE_LENGTH]);
            Files.move(zeros, path(), StandardCopyOption.REPLACE_EXISTING);

            var outcome = p.tick();
            assertThat(outcome.leader()).as("a doubt never retires the mapping").isTrue();
            assertThat(outcome.lost()).isFalse();
            assertThat(outcome.term()).isEqualTo(term);
            assertThat(election.isRetired()).isFalse();
            assertThat(p.election()).isSameAs(election);
        }
    }

    @Test
    void aFileTruncatedToOneByteShortIsRetiredNamingItsSize() throws Exception {
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            var p = participant(election);
            long term = p.tick().term();
            try (FileChannel channel = FileChannel.open(path(), StandardOpenOption.WRITE)) {
                channel.truncate(FILE_LENGTH - 1);
            }
            var outcome = p.tick(); // the file at the path cannot be opened: not leading
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.lostTerm()).isEqualTo(term);
            assertThat(election.isDamaged()).as("not written through the mapping").isTrue();
            awaitWarning(
                    "l.cxc was truncated to "
                            + (FILE_LENGTH - 1)
                            + " bytes under this running process (pid "
                            + ME
                            + "); it stopped leading term "
                            + term
                            + " at once");
        }
    }

    @Test
    void aDeletedFileIsNamedSoAndRejoinedUnderAHigherTerm() throws Exception {
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            var p = participant(election);
            long term = p.tick().term();
            Files.delete(path());
            var outcome = p.tick();
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.gained()).isTrue();
            assertThat(outcome.term()).isGreaterThan(term);
            assertThat(election.isDamaged()).isFalse();
            awaitWarning("l.cxc was deleted under this running process");
            p.election().close();
        }
    }

    @Test
    void aReplacementWithALowerTermIsLiftedAboveTheOldTermAndSaysSo() {
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            // Far above the boot seed the replacement starts from.
            assertThat(election.raiseTermFloor(election.electionTerm() + 1000)).isTrue();
            var p = participant(election);
            long term = p.tick().term();
            replace(path(), HOUR);
            var outcome = p.tick();
            assertThat(outcome.term()).isEqualTo(term + 1);
            awaitWarning(
                    "had a lower term than the one it replaced; lifted to "
                            + term
                            + " so terms keep rising");
            p.election().close();
        }
    }

    @Test
    void afterARejoinInAReplacedDirectoryAFileReplacedInTheNewOneIsNamedAFileNotADirectory()
            throws Exception {
        Path run = dir.resolve("run");
        Files.createDirectory(run);
        Path path = run.resolve("l.cxc");
        try (var election = SharedLeaderElection.TYPE.create(path, HOUR)) {
            var p = participant(election);
            p.tick();
            Files.move(run, dir.resolve("old-run"));
            Files.createDirectory(run);
            SharedLeaderElection.TYPE.create(path, HOUR).close();
            assertThat(p.tick().lost()).isTrue();
            awaitWarning("l.cxc is in a directory that was replaced under this running process");

            replace(path, HOUR); // the directory is the one re-joined in
            assertThat(p.tick().lost()).isTrue();
            awaitWarning("l.cxc was replaced by another file under this running process");
            assertThat(warningsContaining("is in a directory that was replaced")).isEqualTo(1);
            p.election().close();
        }
    }

    @Test
    void eachWarningIsLoggedOnceNotAgainOnLaterTicks() {
        var asked = new SharedLeaderElection.Settings(Duration.ofMinutes(30), 3);
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            var p = new ElectionParticipant(election, ME, 3, Duration.ofMinutes(30));
            p.tick();
            p.tick();
            p.tick();
            replace(path(), asked); // the new file has the settings asked for: no new warning
            p.tick();
            // One logging thread, in order: once the re-join's warning is out, so is every
            // warning queued before it.
            awaitWarning(
                    "pid " + ME + " re-joined the leader election on the file now at " + path());
            assertThat(warningsContaining(path() + " was created with tick interval 3600000 ms"))
                    .isEqualTo(1);
            assertThat(
                            warningsContaining(
                                    "re-joined the leader election on the file now at " + path()))
                    .isEqualTo(1);
            p.election().close();
        }
    }

    @Test
    void aFileRetiredByAnotherHandleIsNeitherVacantNorATermToCarryOver() {
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            int seat = election.registerCandidate(1, 3); // a lower live candidate: not the heir
            assertThat(election.beatCandidate(seat, 1)).isTrue();
            var p = participant(election);
            try (var other = SharedLeaderElection.open(path())) {
                assertThat(other.retire(12345, false)).isEqualTo(-1); // no leader: retired
            }
            var outcome = p.tick();
            assertThat(outcome.leader()).isFalse();
            assertThat(outcome.leaderPid()).isEqualTo(SharedLeaderElection.NO_LEADER);
            assertThat(p.wantsPoll()).as("a retired seat is not a vacant one").isFalse();

            replace(path(), HOUR); // the re-join's floor is the highest real term seen: none
            var rejoined = p.tick();
            assertThat(rejoined.lost()).isFalse();
            assertThat(p.election()).isNotSameAs(election);
            assertThat(p.election().leaderWord())
                    .isNotEqualTo(LeaderElectionDescriptor.RETIRED_WORD);
            p.election().close();
        }
    }

    @Test
    void aReplacementDeletedWhileItWasOpenedIsClosedButNotRetired() {
        AtomicReference<SharedLeaderElection> opened = new AtomicReference<>();
        boolean[] deleteDuringOpen = {true};
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            var p =
                    new ElectionParticipant(
                            election,
                            ME,
                            3,
                            Duration.ofHours(1),
                            Preemption.LOWEST_PID,
                            (at, settings) -> {
                                var next = SharedLeaderElection.openOrCreate(at, settings);
                                if (deleteDuringOpen[0]) {
                                    deleteDuringOpen[0] = false;
                                    opened.set(next);
                                    try {
                                        Files.delete(at);
                                    } catch (IOException e) {
                                        throw new UncheckedIOException(e);
                                    }
                                }
                                return next;
                            });
            long term = p.tick().term();
            replace(path(), HOUR);
            var outcome = p.tick();
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.lostTerm()).isEqualTo(term);
            assertThat(outcome.leader()).isFalse();
            assertThat(opened.get().isClosed()).isTrue();
            assertThat(opened.get().isRetired()).as("no file at the path to tell").isFalse();

            assertThat(p.tick().gained()).as("re-joins the file created now").isTrue();
            p.election().close();
        }
    }

    @Test
    void aReplacementReplacedWhileItWasOpenedIsRetiredAndClosed() {
        AtomicReference<SharedLeaderElection> opened = new AtomicReference<>();
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            var p =
                    new ElectionParticipant(
                            election,
                            ME,
                            3,
                            Duration.ofHours(1),
                            Preemption.LOWEST_PID,
                            (at, settings) -> {
                                var next = SharedLeaderElection.openOrCreate(at, settings);
                                if (opened.get() == null) {
                                    opened.set(next);
                                    replace(at, HOUR);
                                }
                                return next;
                            });
            p.tick();
            replace(path(), HOUR);
            assertThat(p.tick().leader()).isFalse();
            assertThat(opened.get().isClosed()).isTrue();
            assertThat(opened.get().isRetired()).isTrue();
            assertThat(p.tick().leader()).isTrue();
            p.election().close();
        }
    }

    @Test
    void aCandidateSeatTakenByAnotherIsRegisteredAgainOnTheNextTick() {
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            var p = participant(election);
            p.tick();
            assertThat(election.candidates()).containsExactly(ME);
            election.leaveCandidates(0, ME);
            assertThat(election.registerCandidate(1, 3)).as("the freed seat").isZero();
            p.tick();
            assertThat(election.candidates()).containsExactly(1, ME);
        }
    }

    @Test
    void aStepDownAfterALossNoTickSawStillReportsThatLossOnTheNextTick() {
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            var p = participant(election);
            long term = p.tick().term();
            assertThat(election.tryClaimLeadership(1, 3)).isTrue(); // lower, alive: takes over
            assertThat(p.stepDown()).as("it no longer led").isFalse();
            var next = p.tick();
            assertThat(next.lost()).isTrue();
            assertThat(next.lostTerm()).isEqualTo(term);
        }
    }

    @Test
    void aTermSeenButNotLedIsCarriedOverToTheReplacement() {
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            assertThat(election.raiseTermFloor(election.electionTerm() + 1000)).isTrue();
            assertThat(election.tryClaimLeadership(1, 3)).isTrue(); // lower, alive
            var p = participant(election);
            var seen = p.tick();
            assertThat(seen.leader()).isFalse();
            replace(path(), HOUR);
            var rejoined = p.tick();
            assertThat(rejoined.lost()).isFalse();
            assertThat(rejoined.leader()).isTrue();
            assertThat(rejoined.term()).isEqualTo(seen.term() + 1);
            p.election().close();
        }
    }

    @Test
    void aReplacementWithAHigherTermIsNotLiftedNorWarnedAbout() throws Exception {
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            var p = participant(election);
            long term = p.tick().term();
            Path fresh = dir.resolve("fresh.cxc");
            try (var higher = SharedLeaderElection.TYPE.create(fresh, HOUR)) {
                assertThat(higher.raiseTermFloor(term + 1000)).isTrue();
            }
            Files.move(fresh, path(), StandardCopyOption.REPLACE_EXISTING);
            assertThat(p.tick().term()).isEqualTo(term + 1001);
            awaitWarning(
                    "pid " + ME + " re-joined the leader election on the file now at " + path());
            assertThat(warningsContaining("had a lower term")).isZero();
            p.election().close();
        }
    }

    @Test
    void theReplacementsSettingsAreTheOnesInForceAfterTheRejoin() {
        var other = new SharedLeaderElection.Settings(Duration.ofMinutes(30), 5);
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            var p = participant(election);
            p.tick();
            replace(path(), other);
            p.tick();
            assertThat(p.tickInterval()).isEqualTo(Duration.ofMinutes(30));
            assertThat(p.graceEpochs()).isEqualTo(5);
            assertThat(p.deferLimit()).isEqualTo(Duration.ofMinutes(30));
            awaitWarning(path() + " was created with tick interval 1800000 ms and grace 5 epochs");
            p.election().close();
        }
    }

    @Test
    void aTermLedThroughTheHandleBeforeAnyTickIsReportedLostWhenTheFileIsReplaced() {
        try (var election = SharedLeaderElection.TYPE.create(path(), HOUR)) {
            assertThat(election.tryClaimLeadership(ME, 3)).isTrue();
            long term = election.electionTerm();
            var p = participant(election);
            replace(path(), HOUR);
            var outcome = p.tick();
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.lostTerm()).isEqualTo(term);
            assertThat(outcome.gained()).isTrue();
            p.election().close();
        }
    }

    @Test
    void aPathThatCannotBeStatedIsNoReasonToRetire() throws Exception {
        Path run = dir.resolve("run");
        Files.createDirectory(run);
        Path path = run.resolve("l.cxc");
        try (var election = SharedLeaderElection.TYPE.create(path, HOUR)) {
            var p = participant(election);
            long term = p.tick().term();
            Files.move(run, dir.resolve("old-run"));
            Files.write(run, new byte[0]); // a file where the directory was: not a directory
            var outcome = p.tick();
            assertThat(outcome.leader()).as("cannot tell: keeps the mapping").isTrue();
            assertThat(outcome.term()).isEqualTo(term);
            assertThat(election.isRetired()).isFalse();
        }
    }
}
