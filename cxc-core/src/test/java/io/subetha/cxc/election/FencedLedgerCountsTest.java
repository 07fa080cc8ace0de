package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.election.FencedLedger.WriteOutcome;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a ledger counts and shows: each read op once, each write's outcome in exactly one of the
 * shared counters (a higher term raising the mark counted once), and the fence in {@code describe}.
 */
class FencedLedgerCountsTest {

    @TempDir Path dir;

    @Test
    void everyReadIsCountedOnce() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            ledger.holderPid();
            ledger.acceptedWrites();
            ledger.rejectedStaleWrites();
            ledger.rejectedConflictingWrites();
            ledger.highestTerm();
            assertThat(ledger.opCounts()).containsEntry("read", 5L).containsEntry("write", 0L);
        }
    }

    @Test
    void eachOutcomeIsCountedInItsOneCounter() {
        try (var ledger =
                FencedLedger.TYPE.create(dir.resolve("ledger.cxc"), FencedLedger.Settings.NONE)) {
            assertThat(ledger.write(7, 500)).isEqualTo(WriteOutcome.ACCEPTED);
            assertThat(ledger.acceptedWrites()).as("a raise is one accepted write").isEqualTo(1);
            assertThat(ledger.write(7, 500).accepted()).isTrue();
            assertThat(ledger.write(6, 500).accepted()).isFalse();
            assertThat(ledger.write(7, 501)).isEqualTo(WriteOutcome.REJECTED_TERM_CONFLICT);
            assertThat(ledger.write(7, 501).accepted()).isFalse();
            assertThat(ledger.acceptedWrites()).isEqualTo(2);
            assertThat(ledger.rejectedStaleWrites()).isEqualTo(1);
            assertThat(ledger.rejectedConflictingWrites()).isEqualTo(2);
            assertThat(ledger.describe())
                    .containsEntry("highestTerm", 7L)
                    .containsEntry("holderPid", 500L)
                    .containsEntry("acceptedWrites", 2L)
                    .containsEntry("rejectedStaleWrites", 1L)
                    .containsEntry("rejectedConflictingWrites", 2L);
        }
    }
}
