package io.subetha.cxc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.lease.OwnerLease.HeldName;
import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator lists of a lease table: every name with a live holder, seen through another
 * handle on the file; released and expired names are gone; a name too long to store whole is listed
 * by its digest; the listing counts no op.
 */
class OwnerLeaseHeldNamesTest {

    private static final long PID = Pids.current();

    @TempDir Path dir;

    @Test
    void everyLiveHolderIsListedWithItsTokenAndReleasedOrExpiredNamesAreNot() {
        Path file = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.TYPE.create(file, new OwnerLease.Settings(16));
                OwnerLease observer = OwnerLease.open(file, new OwnerLease.Settings(16))) {
            Lease report = leases.tryAcquire("report", PID, Duration.ofMinutes(1)).orElseThrow();
            Lease cleanup = leases.tryAcquire("cleanup", PID, Duration.ofMinutes(1)).orElseThrow();
            leases.tryAcquire("brief", PID, Duration.ofMillis(1)).orElseThrow();
            String longName = "x".repeat(OwnerLeaseDescriptor.MAX_NAME_BYTES + 1);
            leases.tryAcquire(longName, PID, Duration.ofMinutes(1)).orElseThrow();
            assertThat(leases.release(cleanup)).isTrue();
            Map<String, Long> before = observer.opCounts();

            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> observer.held().size() == 2);
            assertThat(observer.held())
                    .extracting(HeldName::name)
                    .containsExactlyInAnyOrder(
                            "report",
                            "sha256:"
                                    + java.util.HexFormat.of()
                                            .formatHex(
                                                    OwnerLeaseDescriptor.storedName(longName),
                                                    1,
                                                    OwnerLeaseDescriptor.DIGEST_NAME_BYTES));
            HeldName held =
                    observer.held().stream()
                            .filter(h -> h.name().equals("report"))
                            .findFirst()
                            .orElseThrow();
            assertThat(held.holder().pid()).isEqualTo(PID);
            assertThat(held.holder().token()).isEqualTo(report.token());
            assertThat(held.holder().expiresAtNanos()).isGreaterThan(System.nanoTime());
            assertThat(observer.opCounts()).isEqualTo(before);
        }
    }
}
