package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.election.FencedLedger.WriteOutcome;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A raising write whose CAS loses (held with a {@link StepGate} between reading the fence word and
 * its CAS while another writer raises the mark higher) decides again against the new mark: it is
 * refused as stale, and the mark stays the higher writer's.
 */
class FencedLedgerRaceTest {

    static final long PID = Pids.current();

    @TempDir Path dir;

    @Test
    void aRaisingWriteWhoseCasLosesToAHigherTermIsRefusedAsStale() {
        try (FencedLedger ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            StepGate<WriteOutcome> lower =
                    StepGate.holdAt(Point.FENCE_READ, () -> ledger.write(5, PID));
            assertThat(ledger.write(7, 1)).isEqualTo(WriteOutcome.ACCEPTED);

            assertThat(lower.release()).isEqualTo(WriteOutcome.REJECTED_STALE_TERM);
            assertThat(ledger.highestTerm()).isEqualTo(7);
            assertThat(ledger.holderPid()).isEqualTo(1);
            assertThat(ledger.acceptedWrites()).isEqualTo(1);
            assertThat(ledger.rejectedStaleWrites()).isEqualTo(1);
        }
    }
}
