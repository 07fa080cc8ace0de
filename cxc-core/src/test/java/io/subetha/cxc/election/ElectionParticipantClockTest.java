package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.process.Pids;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The participant's timing rules on a clock the test drives (the package-private clock seam): a
 * survivor that is not the heir claims a vacant seat exactly when the defer limit has passed, by
 * tick or by poll, and not a nanosecond before; the deferral restarts when the seat is filled and
 * falls vacant again, and on a re-join; the wait for a lower candidate seen on a replaced file ends
 * exactly at the limit, when that candidate shows on the new file or leads it, or when it dies.
 * Lower live rivals are PID 1 (always alive) or {@code sleep} children, killed after each test.
 */
class ElectionParticipantClockTest {

    static final long ME = Pids.current();
    static final Duration HOUR = Duration.ofHours(1);
    static final long LIMIT = HOUR.toNanos();
    static final SharedLeaderElection.Settings SETTINGS =
            new SharedLeaderElection.Settings(HOUR, 3);

    @TempDir Path dir;

    /** Far from 0, which the participant reads as "not set". */
    final AtomicLong clock = new AtomicLong(1_000_000_000_000L);

    final List<Process> children = new ArrayList<>();

    /** While set, the participant's opener fails, as the starter's does on a bad directory. */
    final AtomicBoolean openFails = new AtomicBoolean();

    @AfterEach
    void killChildren() {
        children.forEach(Process::destroyForcibly);
    }

    private long liveChild() throws IOException {
        Process child = new ProcessBuilder("sleep", "300").start();
        children.add(child);
        return child.pid();
    }

    private Path path() {
        return dir.resolve("l.cxc");
    }

    private SharedLeaderElection election() {
        return SharedLeaderElection.TYPE.create(path(), SETTINGS);
    }

    private ElectionParticipant participant(SharedLeaderElection election, long pid) {
        return new ElectionParticipant(
                election,
                pid,
                3,
                HOUR,
                Preemption.LOWEST_PID,
                (at, settings) -> {
                    if (openFails.get()) {
                        throw new IllegalStateException("cannot open " + at + " yet");
                    }
                    return SharedLeaderElection.openOrCreate(at, settings);
                },
                clock::get);
    }

    private static void registerLive(SharedLeaderElection election, long pid) {
        int seat = election.registerCandidate(pid, 3);
        assertThat(seat).isNotNegative();
        assertThat(election.beatCandidate(seat, pid)).isTrue();
    }

    /** A new election file renamed over the path. */
    private void replace() {
        try {
            Path fresh = dir.resolve("fresh-" + System.nanoTime() + ".cxc");
            SharedLeaderElection.TYPE.create(fresh, SETTINGS).close();
            Files.move(fresh, path(), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private long at(long nanosAfter, long start) {
        clock.set(start + nanosAfter);
        return clock.get();
    }

    // ------------------------------------------------------------------------ the defer limit

    @Test
    void aSurvivorThatIsNotTheHeirClaimsAVacantSeatByTickExactlyAtTheDeferLimit() {
        try (var election = election()) {
            registerLive(election, 1); // a hung heir: registered, never claims
            var survivor = participant(election, ME);
            long t0 = clock.get();
            var first = survivor.tick();
            assertThat(first.leader()).as("the heir's turn").isFalse();
            assertThat(survivor.isHeir()).isFalse();
            assertThat(survivor.wantsPoll()).isTrue();

            at(LIMIT - 1, t0);
            assertThat(survivor.tick().leader()).as("a nanosecond before the limit").isFalse();
            assertThat(election.currentLeader()).isEmpty();

            at(LIMIT, t0);
            var claimed = survivor.tick();
            assertThat(claimed.leader()).as("at the limit").isTrue();
            assertThat(claimed.gained()).isTrue();
            assertThat(survivor.isHeir()).isFalse();
            assertThat(survivor.wantsPoll()).as("a leader has nothing to poll for").isFalse();
        }
    }

    @Test
    void aSurvivorThatIsNotTheHeirClaimsAVacantSeatByPollExactlyAtTheDeferLimit() {
        try (var election = election()) {
            registerLive(election, 1);
            var survivor = participant(election, ME);
            long t0 = clock.get();
            assertThat(survivor.tick().leader()).isFalse();

            at(LIMIT - 1, t0);
            assertThat(survivor.poll()).as("still the heir's turn").isNull();
            assertThat(election.currentLeader()).isEmpty();

            at(LIMIT, t0);
            var polled = survivor.poll();
            assertThat(polled).as("the limit passed: a round at once").isNotNull();
            assertThat(polled.gained()).isTrue();
            assertThat(election.currentLeader()).hasValue(ME);
        }
    }

    @Test
    void aNonHeirDoesNotPollASeatThatWasFilledMeanwhile() throws Exception {
        try (var election = election()) {
            registerLive(election, 1);
            var survivor = participant(election, ME);
            long t0 = clock.get();
            assertThat(survivor.tick().leader()).isFalse();
            long rival = liveChild();
            assertThat(election.tryClaimLeadership(rival, 3)).isTrue(); // filled, not yet ticked

            at(LIMIT, t0);
            assertThat(survivor.poll()).as("the seat is not vacant").isNull();
            assertThat(election.currentLeader()).hasValue(rival);
        }
    }

    @Test
    void theDeferralRestartsWhenTheSeatIsFilledAndFallsVacantAgain() throws Exception {
        try (var election = election()) {
            registerLive(election, 1);
            var survivor = participant(election, ME);
            long t0 = clock.get();
            assertThat(survivor.tick().leader()).isFalse(); // vacant from t0

            long rival = liveChild();
            assertThat(election.tryClaimLeadership(rival, 3)).isTrue();
            at(1, t0);
            var filled = survivor.tick();
            assertThat(filled.leaderPid()).isEqualTo(rival);
            assertThat(survivor.wantsPoll()).as("nothing vacant to wait on").isFalse();

            assertThat(election.stepDown(rival)).isTrue();
            long t1 = at(LIMIT + 5, t0); // past the first vacancy's limit
            assertThat(survivor.tick().leader())
                    .as("a new vacancy: the heir's turn again")
                    .isFalse();
            at(LIMIT - 1, t1);
            assertThat(survivor.tick().leader()).isFalse();
            at(LIMIT, t1);
            assertThat(survivor.tick().leader()).isTrue();
        }
    }

    @Test
    void aLeaderTakenOverByALowerPidReportsTheLossAndStartsNoDeferral() {
        try (var election = election()) {
            var p = participant(election, ME);
            long term = p.tick().term();
            assertThat(election.tryClaimLeadership(1, 3)).isTrue(); // lower, alive, preempts
            var lost = p.tick();
            assertThat(lost.lost()).isTrue();
            assertThat(lost.lostTerm()).isEqualTo(term);
            assertThat(lost.leaderPid()).isEqualTo(1);
            assertThat(p.isHeir()).as("the leader is not below this process's heir").isTrue();
            assertThat(p.wantsPoll()).isTrue();
            clock.addAndGet(LIMIT);
            assertThat(p.poll()).as("a healthy leader: nothing vacant").isNull();
        }
    }

    // ------------------------------------------------------------------------ the re-join wait

    /** PID 1 a live candidate leading the old file; the participant re-joins the replacement. */
    private ElectionParticipant rejoinedWaitingForPid1(SharedLeaderElection election) {
        registerLive(election, 1);
        assertThat(election.tryClaimLeadership(1, 3)).isTrue();
        var p = participant(election, ME);
        assertThat(p.tick().leader()).isFalse();
        replace();
        var rejoined = p.tick();
        assertThat(rejoined.leader()).as("PID 1's turn on the new file first").isFalse();
        assertThat(p.election()).isNotSameAs(election);
        assertThat(p.isHeir()).isFalse();
        assertThat(p.wantsPoll()).isTrue();
        return p;
    }

    @Test
    void theWaitForTheLowerCandidateOfTheOldFileEndsExactlyAtTheDeferLimitByPoll() {
        try (var election = election()) {
            long t1 = clock.get();
            var p = rejoinedWaitingForPid1(election);
            at(LIMIT - 1, t1);
            assertThat(p.poll()).as("PID 1 may still re-join").isNull();
            assertThat(p.election().currentLeader()).isEmpty();

            at(LIMIT, t1);
            var round = p.poll();
            assertThat(round).isNotNull();
            assertThat(round.gained()).as("the heir of the new file, after the limit").isTrue();
            assertThat(p.wantsPoll()).isFalse();
            p.election().close();
        }
    }

    @Test
    void theWaitForTheLowerCandidateOfTheOldFileEndsExactlyAtTheDeferLimitByTick() {
        try (var election = election()) {
            long t1 = clock.get();
            var p = rejoinedWaitingForPid1(election);
            at(LIMIT - 1, t1);
            assertThat(p.tick().leader()).isFalse();
            assertThat(p.isHeir()).as("still waiting for PID 1").isFalse();

            at(LIMIT, t1);
            assertThat(p.tick().gained()).isTrue();
            p.election().close();
        }
    }

    @Test
    void theWaitEndsWhenTheLowerCandidateTakesASeatOnTheNewFileWhichThenMakesItTheHeir() {
        try (var election = election()) {
            long t1 = clock.get();
            var p = rejoinedWaitingForPid1(election);
            registerLive(p.election(), 1); // PID 1 re-joined: a candidate, not leading

            at(1, t1);
            var round = p.poll();
            assertThat(round).as("a round at once: the new file's table decides now").isNotNull();
            assertThat(round.leader()).as("PID 1 is the heir there").isFalse();
            assertThat(p.isHeir()).isFalse();
            at(LIMIT - 1, t1);
            assertThat(p.tick().leader()).as("the deferral counts from the re-join").isFalse();
            at(LIMIT, t1);
            assertThat(p.tick().leader()).isTrue();
            p.election().close();
        }
    }

    @Test
    void theWaitEndsWhenTheLowerCandidateDies() throws Exception {
        try (var election = election()) {
            long lower = liveChild();
            // The child's PID is lower than ours only by luck: take the one below ours as the
            // participant's own PID if needed, so the child is the lower live candidate.
            long me = lower < ME ? ME : lower + 1;
            registerLive(election, lower);
            assertThat(election.tryClaimLeadership(lower, 3)).isTrue();
            var p = participant(election, me);
            assertThat(p.tick().leader()).isFalse();
            replace();
            assertThat(p.tick().leader()).isFalse();
            assertThat(p.poll()).as("the lower candidate is alive and may re-join").isNull();

            Process child = children.get(0);
            child.destroyForcibly();
            child.waitFor();
            var round = p.poll();
            assertThat(round).as("it died: no one to wait for").isNotNull();
            assertThat(round.gained()).isTrue();
            p.election().close();
        }
    }

    @Test
    void aParticipantThatLeadsAfterARejoinStopsWaiting() {
        try (var election = election()) {
            var p = rejoinedWaitingForPid1(election);
            assertThat(p.election().tryClaimLeadership(ME, 3)).isTrue(); // its own other handle
            var round = p.tick();
            assertThat(round.leader()).isTrue();
            assertThat(p.wantsPoll()).as("no wait left once it leads").isFalse();
            assertThat(p.poll()).isNull();
            p.election().close();
        }
    }

    @Test
    void aRejoinRestartsTheDeferralOfASeatVacantSinceBeforeTheReplacement() {
        try (var election = election()) {
            registerLive(election, 1); // a hung heir on the old file
            var p = participant(election, ME);
            long t0 = clock.get();
            assertThat(p.tick().leader()).isFalse(); // vacant from t0
            replace();
            try (var next = SharedLeaderElection.open(path())) {
                registerLive(next, 1); // it re-joined the new file first
            }
            long t1 = at(2 * LIMIT, t0);
            var rejoined = p.tick();
            assertThat(rejoined.leader())
                    .as("the new file's vacancy is new: the heir's turn")
                    .isFalse();
            at(LIMIT - 1, t1);
            assertThat(p.tick().leader()).isFalse();
            at(LIMIT, t1);
            assertThat(p.tick().leader()).isTrue();
            p.election().close();
        }
    }

    @Test
    void aParticipantWaitingAfterARejoinWhoseFileIsGoneAgainDoesNotPollTheRetiredHandle()
            throws Exception {
        try (var election = election()) {
            long t1 = clock.get();
            var p = rejoinedWaitingForPid1(election);
            var rejoinedOn = p.election();
            openFails.set(true);
            Files.delete(path());
            assertThatThrownBy(p::tick) // it led nothing: no loss to report, so the error
                    .hasMessageContaining("cannot open");
            assertThat(rejoinedOn.isRetired()).isTrue();
            assertThat(p.isHeir()).isFalse();
            at(LIMIT, t1);
            assertThat(p.wantsPoll()).as("still waiting from the re-join").isTrue();
            assertThat(p.poll()).as("a retired handle with nothing after it").isNull();

            openFails.set(false);
            assertThat(p.tick().gained()).isTrue();
            p.election().close();
        }
    }

    @Test
    void aHeirBelowAHealthyLowerLeaderDoesNotEvenTryToClaim() {
        try (var election = election()) {
            assertThat(election.tryClaimLeadership(1, 3)).isTrue(); // lower, alive, fresh
            var heir = participant(election, ME);
            long claims = election.opCounts().get("try_claim");
            var outcome = heir.tick();
            assertThat(outcome.leader()).isFalse();
            assertThat(heir.isHeir()).isTrue();
            assertThat(election.opCounts().get("try_claim")).isEqualTo(claims);
        }
    }

    @Test
    void aParticipantWithNothingToPollIgnoresASeatThatFellVacantSinceItsTick() throws Exception {
        try (var election = election()) {
            registerLive(election, 1); // the heir: lower than us
            long rival = liveChild();
            assertThat(election.tryClaimLeadership(rival, 3)).isTrue();
            var survivor = participant(election, ME);
            assertThat(survivor.tick().leaderPid()).isEqualTo(rival);
            assertThat(survivor.wantsPoll()).isFalse();
            assertThat(election.stepDown(rival)).isTrue(); // vacant since the tick
            clock.addAndGet(10 * LIMIT);
            assertThat(survivor.poll()).as("poll has no work: the next tick sees it").isNull();
            assertThat(election.currentLeader()).isEmpty();
        }
    }

    @Test
    void aRejoinWaitOutlastsASeatFilledByAnotherAndThenTheHeirPreemptsIt() throws Exception {
        try (var election = election()) {
            long t1 = clock.get();
            var p = rejoinedWaitingForPid1(election);
            long rival = liveChild(); // started after us: a higher PID unless PIDs wrapped
            assertThat(p.election().tryClaimLeadership(rival, 3)).isTrue();
            at(1, t1);
            assertThat(p.tick().leaderPid()).isEqualTo(rival);
            assertThat(p.wantsPoll()).as("still waiting for PID 1, the seat filled").isTrue();
            assertThat(p.poll()).isNull();

            at(LIMIT, t1);
            var round = p.poll();
            assertThat(round).as("the wait is over: a round at once").isNotNull();
            assertThat(p.isLeader() || p.isHeir()).as("the lowest candidate now").isTrue();
            p.election().close();
        }
    }

    @Test
    void aSeatOfThisProcessFoundAgainIsBeatenAtOnce() {
        try (var election = election()) {
            int seat = election.registerCandidate(ME, 3); // e.g. by this process's other handle
            assertThat(election.beatCandidate(seat, ME)).isTrue();
            for (int i = 0; i <= 3; i++) {
                election.tickEpoch(); // now stale
            }
            assertThat(election.lowestLiveCandidateBelow(Long.MAX_VALUE, 0, 3))
                    .isEqualTo(SharedLeaderElection.NO_LEADER);
            var p = participant(election, ME);
            p.tick();
            assertThat(election.candidates()).containsExactly(ME);
            assertThat(election.lowestLiveCandidateBelow(Long.MAX_VALUE, 0, 3))
                    .as("found again and beaten: fresh")
                    .isEqualTo(ME);
        }
    }

    /** A PID below ours that no process holds now. */
    private static long deadPidBelowMe() {
        for (long pid = 2; pid < ME; pid++) {
            if (!Files.exists(Path.of("/proc/" + pid))) {
                return pid;
            }
        }
        throw new AssertionError("every PID below " + ME + " is in use");
    }

    @Test
    void theHeirTakesTheSeatOfADeadLowerLeaderWhoseBeatIsStillFresh() {
        try (var election = election()) {
            long dead = deadPidBelowMe();
            assertThat(election.tryClaimLeadership(dead, 3)).isTrue();
            long term = election.electionTerm();
            var heir = participant(election, ME);
            var outcome = heir.tick();
            assertThat(outcome.leader()).as("dead, though lower and fresh").isTrue();
            assertThat(outcome.term()).isEqualTo(term + 1);
            assertThat(heir.isHeir()).as("a leader is nobody's heir").isFalse();
            assertThat(heir.wantsPoll()).isFalse();
        }
    }

    @Test
    void aSurvivorLetsTheHeirTakeTheSeatOfADeadLowerLeaderUntilTheDeferLimit() {
        try (var election = election()) {
            long dead = deadPidBelowMe();
            assertThat(election.tryClaimLeadership(dead, 3)).isTrue();
            registerLive(election, 1);
            var survivor = participant(election, ME);
            long t0 = clock.get();
            assertThat(survivor.tick().leader()).isFalse();
            assertThat(survivor.wantsPoll()).as("the seat is vacant: its leader is dead").isTrue();
            at(LIMIT, t0);
            var polled = survivor.poll();
            assertThat(polled).isNotNull();
            assertThat(polled.leader()).isTrue();
        }
    }

    @Test
    void theHeirThatPreemptsAHigherLeaderIsNoLongerTheHeir() throws Exception {
        try (var election = election()) {
            // Two live processes, whichever way PIDs wrapped: the lower one's participant preempts.
            long a = liveChild();
            long b = liveChild();
            long higher = Math.max(a, b);
            assertThat(election.tryClaimLeadership(higher, 3)).isTrue();
            var heir = participant(election, Math.min(a, b));
            var outcome = heir.tick();
            assertThat(outcome.leader()).as("preempts: the lowest live PID").isTrue();
            assertThat(heir.isHeir()).isFalse();
            assertThat(heir.wantsPoll()).isFalse();
        }
    }

    @Test
    void aStepDownByAnotherThreadKeepsTheTermYetIsReportedAsALoss() {
        try (var election = election()) {
            registerLive(election, 1); // the heir: this process only defers after the loss
            assertThat(election.tryClaimLeadership(ME, 3)).isTrue();
            var p = participant(election, ME);
            long term = p.tick().term();
            assertThat(election.stepDown(ME)).isTrue(); // the term is kept
            var outcome = p.tick();
            assertThat(outcome.leader()).isFalse();
            assertThat(outcome.term()).as("no new term yet").isEqualTo(term);
            assertThat(outcome.lost()).isTrue();
            assertThat(outcome.lostTerm()).isEqualTo(term);
        }
    }
}
