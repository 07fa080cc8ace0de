package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.process.Pids;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader-election file truncated under a running handle and grown back to its length (the same
 * inode, its pages now zero): the mapping reads a zeroed seat. Fencing tokens must not go
 * backwards: the participant's tick judges the file damaged and retires the handle, and a claim on
 * the handle itself never issues a term below one it saw.
 */
class ElectionFileZeroedUnderHandleTest {

    static final long ME = Pids.current();
    static final SharedLeaderElection.Settings HOUR =
            new SharedLeaderElection.Settings(Duration.ofHours(1), 3);
    static final int FILE_LENGTH =
            HeaderDescriptor.HEADER_LENGTH + LeaderElectionDescriptor.BODY_LENGTH;
    static final long HIGH_TERM = 10_549;

    @TempDir Path dir;

    private void truncateAndRegrow(Path path) throws Exception {
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
            file.setLength(0);
            file.setLength(FILE_LENGTH);
        }
    }

    @Test
    void theTickRetiresAZeroedFileAndNeverLeadsUnderALowerTerm() throws Exception {
        Path path = dir.resolve("l.cxc");
        try (var election = SharedLeaderElection.TYPE.create(path, HOUR)) {
            election.raiseTermFloor(HIGH_TERM);
            var p = new ElectionParticipant(election, ME, 3, Duration.ofHours(1));
            long term = p.tick().term();
            assertThat(term).isGreaterThan(HIGH_TERM);

            truncateAndRegrow(path);

            ElectionParticipant.TickOutcome outcome;
            try {
                outcome = p.tick();
            } catch (CxcException refusedToRejoin) {
                outcome = null; // no file to re-join yet: not leading, which is what counts
            }
            if (outcome != null) {
                assertThat(outcome.leader() && outcome.term() <= term)
                        .as("leads under term %s after %s", outcome.term(), term)
                        .isFalse();
            }
            assertThat(election.isRetired()).as("the zeroed mapping is retired").isTrue();
            assertThat(election.isDamaged()).as("and not written through").isTrue();
        }
    }

    @Test
    void aClaimOnTheHandleNeverIssuesATermBelowOneItSaw() throws Exception {
        Path path = dir.resolve("l.cxc");
        try (var election = SharedLeaderElection.TYPE.create(path, HOUR)) {
            election.raiseTermFloor(HIGH_TERM);
            assertThat(election.tryClaimLeadership(ME, 3)).isTrue();
            long term = election.termIfLeader(ME);
            assertThat(term).isGreaterThan(HIGH_TERM);

            truncateAndRegrow(path);

            boolean claimed;
            try {
                claimed = election.tryClaimLeadership(ME, 3);
            } catch (CxcException damaged) {
                assertThat(damaged.getMessage()).contains(path.toString()).contains("damaged");
                claimed = false;
            }
            if (claimed) {
                assertThat(election.termIfLeader(ME))
                        .as("the fencing token went backwards")
                        .isGreaterThan(term);
            }
        }
    }
}
