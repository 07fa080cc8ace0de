package io.subetha.cxc.badinput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.process.Pids;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file truncated and grown back under a handle that is already working (its file check not due):
 * its pages read zero without a fault, and a fencing token read from them would restart. A handle
 * about to issue a token refuses instead, naming the file.
 */
class TokensAfterTruncationTest {

    static final long PID = Pids.current();

    @TempDir Path dir;

    /** Cuts the file to nothing and grows it back to its length: every page reads zero. */
    static void truncateAndGrowBack(Path file) throws Exception {
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            channel.truncate(0);
            channel.write(ByteBuffer.allocate(1), size - 1);
        }
    }

    @Test
    void aLeaseTokenNeverRestartsOnAFileGrownBack() throws Exception {
        Path file = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.TYPE.create(file, new OwnerLease.Settings(4))) {
            long token = 0;
            for (int i = 0; i < 3; i++) {
                OwnerLease.Lease lease =
                        leases.tryAcquire("job", PID, Duration.ofSeconds(5)).orElseThrow();
                token = lease.token();
                leases.release(lease);
            }
            assertThat(token).isEqualTo(3);
            truncateAndGrowBack(file);

            assertThatThrownBy(() -> leases.tryAcquire("job", PID, Duration.ofSeconds(5)))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("truncated and grown back");
            // Retired for good: later operations refuse too.
            assertThatThrownBy(() -> leases.holder("job")).isInstanceOf(CxcFormatException.class);
        }
    }

    @Test
    void aLedgerNeverAcceptsATermBelowOneItAcceptedOnAFileGrownBack() throws Exception {
        Path file = dir.resolve("ledger.cxc");
        try (FencedLedger ledger = FencedLedger.TYPE.create(file, new FencedLedger.Settings())) {
            assertThat(ledger.write(7, PID).accepted()).isTrue();
            truncateAndGrowBack(file);

            assertThatThrownBy(() -> ledger.write(3, PID))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("truncated and grown back");
        }
    }
}
