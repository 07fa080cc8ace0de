package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.process.Pids;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who is the heir and what it and the others do about a vacant seat: the heir claims a seat left
 * stale (not only one left by a dead process), a survivor that is not the heir neither claims nor
 * preempts and polls only once the defer limit has passed, a seat filled again ends the deferral,
 * and the heir's cadence between ticks. Live rivals are real processes ({@code sleep} children,
 * killed after each test), so the {@code /proc} checks see them alive.
 */
class ElectionParticipantHeirTest {

    static final long ME = Pids.current();

    @TempDir Path dir;
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

    private SharedLeaderElection election(Duration tick) {
        return SharedLeaderElection.TYPE.create(
                dir.resolve("l.cxc"), new SharedLeaderElection.Settings(tick, 3));
    }

    private static void registerLive(SharedLeaderElection election, long pid) {
        int seat = election.registerCandidate(pid, 3);
        assertThat(seat).isNotNegative();
        assertThat(election.beatCandidate(seat, pid)).isTrue();
    }

    @Test
    void theHeirClaimsASeatWhoseLiveLeaderStoppedBeating() {
        try (var election = election(Duration.ofHours(1))) {
            // init: alive and lower than us, so only its silence lets the heir claim
            assertThat(election.tryClaimLeadership(1, 3)).isTrue();
            long term = election.electionTerm();
            var heir = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            for (int i = 0; i <= 3; i++) {
                election.tickEpoch(); // alive, but its beat lags past the grace
            }
            var outcome = heir.tick();
            assertThat(outcome.leader()).isTrue();
            assertThat(outcome.gained()).isTrue();
            assertThat(outcome.term()).isEqualTo(term + 1);
            assertThat(heir.isHeir()).as("a leader is nobody's heir").isFalse();
            assertThat(heir.wantsPoll()).isFalse();
        }
    }

    @Test
    void aHealthyLeaderIsLeftAloneByTheHeirWhenItHasTheLowerPid() throws Exception {
        try (var election = election(Duration.ofHours(1))) {
            assertThat(election.tryClaimLeadership(1, 3)).isTrue(); // init: alive, lowest
            var heir = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            var outcome = heir.tick();
            assertThat(outcome.leader()).isFalse();
            assertThat(outcome.gained()).isFalse();
            assertThat(outcome.leaderPid()).isEqualTo(1);
            assertThat(outcome.term()).isEqualTo(election.electionTerm());
            assertThat(heir.isHeir()).isTrue();
            assertThat(heir.wantsPoll()).as("the heir polls").isTrue();
            assertThat(heir.poll()).isNull();
        }
    }

    @Test
    void aSurvivorThatIsNotTheHeirDoesNotPreemptAHigherLiveLeader() throws Exception {
        try (var election = election(Duration.ofHours(1))) {
            long leader = liveChild();
            assertThat(election.tryClaimLeadership(leader, 3)).isTrue();
            long term = election.electionTerm();
            registerLive(election, 1); // the heir: lower than us, alive
            // A survivor just below the leader (its own PID matters only as a number here).
            var survivor = new ElectionParticipant(election, leader - 1, 3, Duration.ofHours(1));
            assertThat(survivor.tick().leader()).isFalse();
            assertThat(survivor.isHeir()).isFalse();
            assertThat(survivor.wantsPoll()).as("nothing to poll for").isFalse();
            assertThat(survivor.poll()).isNull();
            assertThat(election.currentLeader()).hasValue(leader);
            assertThat(election.electionTerm()).isEqualTo(term);

            var heir = new ElectionParticipant(election, 1, 3, Duration.ofHours(1));
            assertThat(heir.tick().leader()).as("the heir preempts it").isTrue();
        }
    }

    @Test
    void aSurvivorThatIsNotTheHeirWaitsOutTheDeferLimitBeforePollingAVacantSeat() throws Exception {
        try (var election = election(Duration.ofHours(1))) {
            registerLive(election, 1); // a hung heir: registered, never claims
            assertThat(election.tryClaimLeadership(liveChild(), 3)).isTrue();
            var survivor = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            long leader = election.currentLeader().orElseThrow();
            assertThat(election.stepDown(leader)).isTrue(); // the seat falls vacant

            assertThat(survivor.tick().leader()).isFalse();
            assertThat(survivor.wantsPoll()).isTrue();
            assertThat(survivor.poll()).as("within the hour: the heir's turn").isNull();
            assertThat(election.currentLeader()).isEmpty();
            assertThat(survivor.deferLimit()).isEqualTo(Duration.ofHours(1));
            assertThat(survivor.pollInterval()).isEqualTo(Duration.ofMinutes(6));
        }
    }

    @Test
    void aSurvivorPollsAndClaimsOnceTheDeferLimitHasPassed() throws Exception {
        try (var election = election(Duration.ofMillis(20))) {
            registerLive(election, 1); // a hung heir
            var survivor = new ElectionParticipant(election, ME, 3, Duration.ofMillis(20));
            assertThat(survivor.tick().leader()).isFalse(); // the seat is vacant: defers
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(5))
                    .until(
                            () -> {
                                registerLive(election, 1); // keep the hung heir fresh
                                var polled = survivor.poll();
                                return polled != null && polled.gained();
                            });
            assertThat(survivor.isLeader()).isTrue();
            assertThat(survivor.wantsPoll()).isFalse();
        }
    }

    @Test
    void aSeatFilledAgainEndsTheDeferral() throws Exception {
        try (var election = election(Duration.ofHours(1))) {
            registerLive(election, 1);
            var survivor = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            assertThat(survivor.tick().leader()).isFalse(); // vacant: deferring to PID 1
            assertThat(survivor.wantsPoll()).isTrue();
            long rival = liveChild();
            assertThat(election.tryClaimLeadership(rival, 3)).isTrue(); // another survivor's claim
            var outcome = survivor.tick();
            assertThat(outcome.leader()).isFalse();
            assertThat(outcome.leaderPid()).isEqualTo(rival);
            assertThat(survivor.isHeir()).as("PID 1 is lower").isFalse();
            assertThat(survivor.wantsPoll()).isFalse();
        }
    }

    @Test
    void theHeirsPollIntervalIsATenthOfATickAndAtLeastOneMillisecond() {
        try (var election = election(Duration.ofMillis(5))) {
            var p = new ElectionParticipant(election, ME, 3, Duration.ofMillis(5));
            assertThat(p.pollInterval()).isEqualTo(Duration.ofMillis(1));
            assertThat(p.deferLimit()).isEqualTo(Duration.ofMillis(5));
        }
    }

    @Test
    void aRetiredElectionIsNotPolled() throws Exception {
        try (var election = election(Duration.ofHours(1))) {
            var heir = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            assertThat(election.tryClaimLeadership(1, 3)).isTrue();
            heir.tick();
            assertThat(heir.isHeir()).isTrue();
            election.stepDown(1); // vacant
            election.retire(ME, false); // and retired under it before the next poll
            assertThat(heir.poll()).isNull();
        }
    }
}
