package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.election.ElectionParticipant.TickOutcome;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every field of what a tick reports, edge by edge: gaining, keeping, losing to a lower PID,
 * staying out, gaining again, and losing and regaining under a new term between two ticks. PID 1 is
 * the lower rival (always alive).
 */
class ElectionParticipantOutcomeTest {

    static final long ME = Pids.current();
    static final long NONE = -1;

    @TempDir Path dir;

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
