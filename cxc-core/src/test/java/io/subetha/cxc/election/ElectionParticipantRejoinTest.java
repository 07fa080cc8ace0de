package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.LogCapture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A participant whose file was replaced: the loss reported even when the file now at the path
 * cannot be opened yet (and the opener's failure thrown once there is no loss to report), the
 * warnings that say what happened, a participant that saw a lower live candidate on the old file
 * deferring to it on the new one, and a step-down that leaves the candidate seat so nobody defers
 * to a process that stepped down.
 */
class ElectionParticipantRejoinTest {

    static final long ME = Pids.current();
    static final SharedLeaderElection.Settings HOUR =
            new SharedLeaderElection.Settings(Duration.ofHours(1), 3);

    @TempDir Path dir;

    @RegisterExtension final LogCapture log = new LogCapture(ElectionParticipant.class);
    final List<String> warnings = log.messages;

    void awaitWarning(String text) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> warnings.stream().anyMatch(w -> w.contains(text)));
    }

    /** A new election file (with {@code settings}) renamed over {@code at}. */
    void replace(Path at, SharedLeaderElection.Settings settings) {
        try {
            Path fresh = at.resolveSibling("fresh-" + System.nanoTime() + ".cxc");
            SharedLeaderElection.TYPE.create(fresh, settings).close();
            Files.move(fresh, at, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aLossIsReportedEvenWhenTheNewFileCannotBeOpenedYetAndTheOpenersErrorComesAfter() {
        Path path = dir.resolve("l.cxc");
        AtomicInteger failures = new AtomicInteger(2);
        try (var election = SharedLeaderElection.TYPE.create(path, HOUR)) {
            var participant =
                    new ElectionParticipant(
                            election,
                            ME,
                            3,
                            Duration.ofHours(1),
                            Preemption.LOWEST_PID,
                            (at, settings) -> {
                                if (failures.getAndDecrement() > 0) {
                                    throw new IllegalStateException("not yet");
                                }
                                return SharedLeaderElection.openOrCreate(at, settings);
                            });
            long term = participant.tick().term();
            replace(path, HOUR);

            var lost = participant.tick();
            assertThat(lost.leader()).isFalse();
            assertThat(lost.lost()).isTrue();
            assertThat(lost.lostTerm()).isEqualTo(term);
            assertThat(lost.leaderPid()).isEqualTo(SharedLeaderElection.NO_LEADER);
            assertThat(lost.term()).isEqualTo(-1);
            assertThat(participant.isHeir()).isFalse();
            awaitWarning("cannot re-join the leader election at " + path);
            awaitWarning("it stopped leading term " + term + " at once");

            assertThatThrownBy(participant::tick).hasMessage("not yet"); // nothing left to report

            var rejoined = participant.tick();
            assertThat(rejoined.gained()).isTrue();
            assertThat(rejoined.lost()).isFalse();
            assertThat(rejoined.term()).isGreaterThan(term);
            awaitWarning("pid " + ME + " re-joined the leader election on the file now at " + path);
            participant.election().close();
        }
    }

    @Test
    void aParticipantThatDidNotLeadSaysSoAndReportsNoLoss() {
        Path path = dir.resolve("l.cxc");
        try (var election = SharedLeaderElection.TYPE.create(path, HOUR)) {
            assertThat(election.tryClaimLeadership(1, 3)).isTrue(); // init leads, alive
            var participant = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            assertThat(participant.tick().leader()).isFalse();
            replace(path, HOUR);

            var outcome = participant.tick();
            assertThat(outcome.lost()).isFalse();
            assertThat(outcome.lostTerm()).isEqualTo(-1);
            awaitWarning("it did not lead and re-joins the election");
            participant.election().close();
        }
    }

    @Test
    void aParticipantThatSawALowerLiveCandidateOnTheOldFileDefersToItOnTheNewOne() {
        Path path = dir.resolve("l.cxc");
        try (var election = SharedLeaderElection.TYPE.create(path, HOUR)) {
            int seat = election.registerCandidate(1, 3); // init: a lower live candidate
            assertThat(election.beatCandidate(seat, 1)).isTrue();
            assertThat(election.tryClaimLeadership(1, 3)).isTrue();
            var participant = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            assertThat(participant.tick().leader()).isFalse();
            replace(path, HOUR);

            var outcome = participant.tick(); // re-joined: the new file has no candidate below
            assertThat(outcome.leader()).as("PID 1 re-joins too: its turn first").isFalse();
            assertThat(participant.isHeir()).isFalse();
            assertThat(participant.wantsPoll()).isTrue();
            assertThat(participant.poll()).isNull();
            assertThat(participant.election().currentLeader()).isEmpty();
            participant.election().close();
        }
    }

    @Test
    void theWaitForTheLowerCandidateEndsWhenItLeadsTheNewFileSoTheHeirPollsFromThen() {
        // The chaos run's tail: a leader killed just after the file was replaced was seen by the
        // heir only at its next tick, because it still waited for that leader to re-join.
        Path path = dir.resolve("l.cxc");
        try (var election = SharedLeaderElection.TYPE.create(path, HOUR)) {
            int seat = election.registerCandidate(1, 3); // init: the lower candidate, leading
            assertThat(election.beatCandidate(seat, 1)).isTrue();
            assertThat(election.tryClaimLeadership(1, 3)).isTrue();
            var participant = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            assertThat(participant.tick().leader()).isFalse();
            replace(path, HOUR);
            assertThat(participant.tick().leader()).isFalse(); // re-joined: waits for PID 1
            assertThat(participant.isHeir()).isFalse();
            assertThat(participant.poll()).as("PID 1 not on the new file yet").isNull();

            try (var next = SharedLeaderElection.open(path)) { // PID 1 re-joins and leads it
                assertThat(next.beatCandidate(next.registerCandidate(1, 3), 1)).isTrue();
                assertThat(next.tryClaimLeadership(1, 3)).isTrue();
            }
            var round = participant.poll();
            assertThat(round)
                    .as("a round at once, not at the next tick (an hour away)")
                    .isNotNull();
            assertThat(round.leaderPid()).isEqualTo(1);
            assertThat(participant.isHeir()).as("the lowest candidate but the leader").isTrue();
            assertThat(participant.wantsPoll()).isTrue();
            participant.election().close();
        }
    }

    @Test
    void aParticipantThatSawNoLowerCandidateClaimsTheNewFileAtOnce() {
        Path path = dir.resolve("l.cxc");
        try (var election = SharedLeaderElection.TYPE.create(path, HOUR)) {
            var participant = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            assertThat(participant.tick().leader()).isTrue();
            replace(path, HOUR);
            var outcome = participant.tick();
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.gained()).isTrue();
            assertThat(outcome.leader()).isTrue();
            participant.election().close();
        }
    }

    @Test
    void aFileInAReplacedDirectoryIsNamedSo() throws Exception {
        Path directory = dir.resolve("run");
        Files.createDirectory(directory);
        Path path = directory.resolve("l.cxc");
        try (var election = SharedLeaderElection.TYPE.create(path, HOUR)) {
            var participant = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            participant.tick();
            Files.move(directory, dir.resolve("old-run"));
            Files.createDirectory(directory);
            SharedLeaderElection.TYPE.create(path, HOUR).close();

            assertThat(participant.tick().lost()).isTrue();
            awaitWarning("l.cxc is in a directory that was replaced under this running process");
            participant.election().close();
        }
    }

    @Test
    void aStepDownLeavesTheCandidateSeatAndIsNotReportedAsALossLater() {
        Path path = dir.resolve("l.cxc");
        try (var election = SharedLeaderElection.TYPE.create(path, HOUR)) {
            var participant = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            assertThat(participant.tick().leader()).isTrue();
            assertThat(election.candidates()).containsExactly(ME);

            assertThat(participant.stepDown()).isTrue();
            assertThat(election.candidates()).isEmpty();
            assertThat(participant.isHeir()).isFalse();
            assertThat(election.tryClaimLeadership(1, 3)).isTrue(); // someone else leads now

            var next = participant.tick();
            assertThat(next.lost()).as("the step-down was the loss").isFalse();
            assertThat(next.leader()).isFalse();
            assertThat(election.candidates()).containsExactly(ME); // registered again
            assertThat(participant.stepDown()).isFalse();
            assertThat(election.candidates()).isEmpty();
        }
    }
}
