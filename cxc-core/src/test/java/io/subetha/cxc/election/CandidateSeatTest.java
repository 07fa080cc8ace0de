package io.subetha.cxc.election;

import static io.subetha.cxc.election.LeaderElectionDescriptor.CANDIDATE_CAPACITY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The election's candidate seats: which seat a registration takes (none from a full table of live
 * candidates, whose participant ticks without one), whose beat and leave count (never past the
 * table, whatever the word there holds), and which candidate is the lowest live one. Live
 * candidates are real processes ({@code sleep} children, killed after each test) so the {@code
 * /proc} checks see them alive.
 */
class CandidateSeatTest {
    static final long ME = Pids.current();

    /** Above any kernel's pid_max (2^22): never a live process. */
    static final long NO_SUCH_PID = 4_194_400;

    @TempDir Path dir;
    SharedLeaderElection election;
    AtomicBuffer raw;
    final List<Process> children = new ArrayList<>();

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
        children.forEach(Process::destroyForcibly);
    }

    private long liveChild() throws IOException {
        Process child = new ProcessBuilder("sleep", "300").start();
        children.add(child);
        return child.pid();
    }

    private static long deadPid() throws Exception {
        Process child = new ProcessBuilder("true").start();
        child.waitFor();
        return child.pid();
    }

    private long rawSeatWord(int index) {
        return OwnerRecord.ownerWord(raw, LeaderElectionDescriptor.candidateRecordOffset(index));
    }

    @Test
    void aRegistrationFindsItsOwnSeatAgainAndNeverTakesALiveOne() throws Exception {
        long other = liveChild();

        assertThat(election.registerCandidate(ME, 3)).isEqualTo(0);
        assertThat(election.registerCandidate(other, 3)).isEqualTo(1);
        assertThat(election.registerCandidate(ME, 3)).isEqualTo(0);
        assertThat(election.registerCandidate(other, 3)).isEqualTo(1);

        assertThat(OwnerRecord.pid(rawSeatWord(0))).isEqualTo(ME);
        assertThat(OwnerRecord.pid(rawSeatWord(1))).isEqualTo(other);
        assertThat(election.candidates()).containsExactlyInAnyOrder(ME, other);
    }

    @Test
    void aStaleOrDeadHoldersSeatIsTakenOverUnderTheNextGeneration() throws Exception {
        long other = liveChild();
        assertThat(election.registerCandidate(NO_SUCH_PID, 3)).isEqualTo(0);
        long deadWord = rawSeatWord(0);

        assertThat(election.registerCandidate(other, 3)).isEqualTo(0); // holder dead
        assertThat(OwnerRecord.key(rawSeatWord(0))).isEqualTo(OwnerRecord.key(deadWord) + 1);

        for (int i = 0; i < 4; i++) {
            election.tickEpoch(); // other's beat now lags 4 > 3
        }
        assertThat(election.registerCandidate(ME, 3)).isEqualTo(0);
        assertThat(OwnerRecord.pid(rawSeatWord(0))).isEqualTo(ME);
    }

    @Test
    void aFullTableOfLiveCandidatesRefusesAndTheWordsAfterItAreNotTouched() throws Exception {
        // Every seat held by this (live) process under its published identity, beaten now.
        long identity = (1L << 32) | (OwnerRecord.startTimeOf(ME) & 0xFFFF_FFFFL);
        for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
            int record = LeaderElectionDescriptor.candidateRecordOffset(i);
            raw.setLongVolatile(
                    record + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.ownerWord(ME, 1));
            raw.setLongVolatile(record + OwnerRecord.IDENTITY_OFFSET, identity);
        }
        long incarnation = raw.getLongVolatile(LeaderElectionDescriptor.INCARNATION_OFFSET);

        assertThat(election.registerCandidate(liveChild(), 3)).isEqualTo(-1);
        assertThat(election.registerCandidate(ME, 3)).isEqualTo(0);

        assertThat(raw.getLongVolatile(LeaderElectionDescriptor.INCARNATION_OFFSET))
                .isEqualTo(incarnation);
        assertThat(election.candidates()).hasSize(CANDIDATE_CAPACITY).containsOnly(ME);
    }

    @Test
    void onlyTheHolderBeatsItsSeatAndTheBeatIsTheCurrentEpoch() throws Exception {
        int seat = election.registerCandidate(ME, 3);
        for (int i = 0; i < 5; i++) {
            election.tickEpoch();
        }
        int record = LeaderElectionDescriptor.candidateRecordOffset(seat);

        assertThat(election.beatCandidate(seat, ME + 1)).isFalse();
        assertThat(OwnerRecord.heartbeat(raw, record)).isZero();
        assertThat(election.beatCandidate(seat, ME)).isTrue();
        assertThat(OwnerRecord.heartbeat(raw, record)).isEqualTo(5);
        assertThat(election.beatCandidate(CANDIDATE_CAPACITY - 1, ME)).isFalse(); // free seat
    }

    @Test
    void aSeatIndexOutsideTheTableIsRejectedByBeatAndIgnoredByLeave() {
        assertThatThrownBy(() -> election.beatCandidate(-1, ME))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0.." + (CANDIDATE_CAPACITY - 1))
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> election.beatCandidate(CANDIDATE_CAPACITY, ME))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got " + CANDIDATE_CAPACITY);
        long incarnation = raw.getLongVolatile(LeaderElectionDescriptor.INCARNATION_OFFSET);
        // The word right after the table is the incarnation: a leave past the end must not free
        // it even when its low half happens to match the caller.
        election.leaveCandidates(CANDIDATE_CAPACITY, OwnerRecord.pid(incarnation));
        election.leaveCandidates(-1, ME);
        assertThat(raw.getLongVolatile(LeaderElectionDescriptor.INCARNATION_OFFSET))
                .isEqualTo(incarnation);
    }

    @Test
    void onlyTheHolderLeavesItsSeatAndTheKeyIsKept() throws Exception {
        long other = liveChild();
        assertThat(election.registerCandidate(ME, 3)).isEqualTo(0);
        assertThat(election.registerCandidate(other, 3)).isEqualTo(1);
        long word = rawSeatWord(0);

        election.leaveCandidates(0, other);
        assertThat(rawSeatWord(0)).isEqualTo(word);

        election.leaveCandidates(0, ME);
        assertThat(rawSeatWord(0)).isEqualTo(OwnerRecord.freed(word));
        assertThat(election.candidates()).containsExactly(other);
    }

    @Test
    void candidatesListsTheHeldSeatsLowestFirst() throws Exception {
        long a = liveChild();
        long b = liveChild();
        long high = Math.max(a, b);
        long low = Math.min(a, b);
        election.registerCandidate(high, 3);
        election.registerCandidate(low, 3);
        election.registerCandidate(ME, 3);
        election.leaveCandidates(2, ME); // a released seat keeps its key but holds no PID

        assertThat(election.candidates()).containsExactly(low, high);
    }

    @Test
    void theLowestLiveCandidateSkipsTheDeadTheStaleTheExceptedAndThoseNotBelow() throws Exception {
        long dead = deadPid();
        long live = liveChild();
        long higher = liveChild();
        assumeThat(live).isGreaterThan(dead); // PIDs only wrap after pid_max processes
        assumeThat(higher).isGreaterThan(live);
        // Seats in an order that the lowest is never the first held: higher, live, free, dead.
        election.registerCandidate(higher, 3);
        election.registerCandidate(live, 3);
        election.registerCandidate(ME, 3);
        election.leaveCandidates(2, ME); // a released seat: key kept, no PID
        raw.setLongVolatile(
                LeaderElectionDescriptor.candidateRecordOffset(3), OwnerRecord.ownerWord(dead, 1));

        assertThat(election.lowestLiveCandidateBelow(Long.MAX_VALUE, 0, 3)).isEqualTo(live);
        assertThat(election.lowestLiveCandidateBelow(Long.MAX_VALUE, live, 3)).isEqualTo(higher);
        assertThat(election.lowestLiveCandidateBelow(higher, live, 3))
                .isEqualTo(SharedLeaderElection.NO_LEADER);
        assertThat(election.lowestLiveCandidateBelow(live, 0, 3))
                .isEqualTo(SharedLeaderElection.NO_LEADER);

        // Freshness: a lag of exactly the grace is fresh, one more is not.
        for (int i = 0; i < 3; i++) {
            election.tickEpoch();
        }
        assertThat(election.lowestLiveCandidateBelow(Long.MAX_VALUE, 0, 3)).isEqualTo(live);
        election.tickEpoch();
        assertThat(election.beatCandidate(0, higher)).isTrue();
        assertThat(election.lowestLiveCandidateBelow(Long.MAX_VALUE, 0, 3)).isEqualTo(higher);
    }

    @Test
    void theLowestLiveCandidateInTheFirstSeatIsNotPassedOverForAHigherOneAfterIt()
            throws Exception {
        long a = liveChild();
        long b = liveChild();
        long low = Math.min(a, b);
        long high = Math.max(a, b);
        election.registerCandidate(low, 3);
        election.registerCandidate(high, 3);

        assertThat(election.lowestLiveCandidateBelow(Long.MAX_VALUE, 0, 3)).isEqualTo(low);
    }

    // ------------------------------------------------------------ a full table, an index past it

    static final long GRACE = 3;

    private SharedLeaderElection create(String name) {
        return SharedLeaderElection.TYPE.create(
                dir.resolve(name), SharedLeaderElection.Settings.DEFAULTS);
    }

    @Test
    void aFullCandidateTableTakesNoLiveSeatAndAParticipantTicksWithoutOne() throws Exception {
        try (var election = create("l.cxc")) {
            List<Long> holders = new ArrayList<>();
            holders.add(1L);
            while (holders.size() < LeaderElectionDescriptor.CANDIDATE_CAPACITY) {
                holders.add(liveChild());
            }
            for (long pid : holders) {
                int seat = election.registerCandidate(pid, GRACE);
                assertThat(seat).isNotNegative();
                assertThat(election.beatCandidate(seat, pid)).isTrue();
            }
            assertThat(election.registerCandidate(ME, GRACE))
                    .as("every seat is live")
                    .isEqualTo(-1);
            assertThat(election.candidates()).hasSize(LeaderElectionDescriptor.CANDIDATE_CAPACITY);

            var p = new ElectionParticipant(election, ME, GRACE, java.time.Duration.ofHours(1));
            var outcome = p.tick();
            assertThat(outcome.leader()).as("PID 1 is a lower live candidate").isFalse();
            assertThat(election.candidates()).doesNotContain(ME);
            assertThat(election.candidates())
                    .containsExactlyInAnyOrder(
                            holders.stream().mapToLong(Long::longValue).toArray());
        }
    }

    @Test
    void aSeatIndexOutsideTheTableIsNeverWrittenEvenWhenTheWordThereHoldsTheCallersPid() {
        Path path = dir.resolve("l.cxc");
        try (var election =
                SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS)) {
            assertThat(election.tickEpochIfDue(java.time.Duration.ofHours(1))).isTrue();
            AtomicBuffer raw = RawBody.of(path);
            int past =
                    LeaderElectionDescriptor.candidateRecordOffset(
                            LeaderElectionDescriptor.CANDIDATE_CAPACITY);
            int before = LeaderElectionDescriptor.candidateRecordOffset(-1);
            long pastWord = raw.getLongVolatile(past);
            long beforeWord = raw.getLongVolatile(before);

            election.leaveCandidates(
                    LeaderElectionDescriptor.CANDIDATE_CAPACITY, OwnerRecord.pid(pastWord));
            election.leaveCandidates(-1, OwnerRecord.pid(beforeWord));

            assertThat(raw.getLongVolatile(past)).as("the incarnation").isEqualTo(pastWord);
            assertThat(raw.getLongVolatile(before)).as("the pacer's clock").isEqualTo(beforeWord);
            assertThat(SharedLeaderElection.incarnationAt(path)).isEqualTo(election.incarnation());
        }
    }
}
