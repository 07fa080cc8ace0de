package io.subetha.cxc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Names that come and go: a slot whose name has no live holder is given to a new name when the
 * table is full, a handle whose cache still maps a name to a slot rebound since never holds the
 * wrong name, and a name's tokens keep rising across its rebinds. One process, several handles
 * (their caches apart); the child-JVM cases are in {@link OwnerLeaseProcessTest}.
 */
class OwnerLeaseSlotReuseTest {

    static final long PID = Pids.current();
    static final Duration MINUTE = Duration.ofMinutes(1);

    @TempDir Path dir;

    private OwnerLease table(int capacity) {
        return OwnerLease.TYPE.create(dir.resolve("leases.cxc"), new OwnerLease.Settings(capacity));
    }

    private OwnerLease handle(int capacity) {
        return OwnerLease.open(dir.resolve("leases.cxc"), new OwnerLease.Settings(capacity));
    }

    @Test
    void the257thDistinctNameAfterTheFirst256WereReleasedGetsASlot() {
        try (OwnerLease leases = table(256)) {
            for (int i = 0; i < 256; i++) {
                leases.release(leases.tryAcquire("group-" + i, PID, MINUTE).orElseThrow());
            }
            Lease lease = leases.tryAcquire("group-256", PID, MINUTE).orElseThrow();
            assertThat(leases.holder("group-256").orElseThrow().token()).isEqualTo(lease.token());
            assertThat(leases.describe()).containsEntry("boundNames", 256).containsEntry("held", 1);
        }
    }

    @Test
    void tenThousandNamesTakenAndReleasedOneAfterAnotherShareTwoHundredFiftySixSlots() {
        try (OwnerLease leases = table(256)) {
            for (int i = 0; i < 10_000; i++) {
                Lease lease = leases.tryAcquire("order-" + i, PID, MINUTE).orElseThrow();
                assertThat(leases.release(lease)).isTrue();
            }
            assertThat(leases.describe()).containsEntry("boundNames", 256).containsEntry("held", 0);
            assertThat(leases.cachedNames()).as("names cached").isLessThanOrEqualTo(2 * 256);
        }
    }

    @Test
    void aFullTableOfLiveHoldersStillRefusesANewName() {
        try (OwnerLease leases = table(2)) {
            leases.tryAcquire("a", PID, MINUTE).orElseThrow();
            leases.tryAcquire("b", PID, MINUTE).orElseThrow();
            assertThatThrownBy(() -> leases.tryAcquire("c", PID, MINUTE))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("\"c\" cannot be leased")
                    .hasMessageContaining("all 2 name slots");
        }
    }

    @Test
    void aLingeringNamesSlotIsNotGivenAway() {
        try (OwnerLease leases = table(1)) {
            Lease lease = leases.tryAcquire("a", PID, MINUTE).orElseThrow();
            leases.releaseNoEarlierThan(lease, System.nanoTime() + MINUTE.toNanos());
            assertThatThrownBy(() -> leases.tryAcquire("b", PID, MINUTE))
                    .isInstanceOf(CxcCapacityException.class);
            assertThat(leases.holder("a").orElseThrow().lingering()).isTrue();
        }
    }

    @Test
    void anExpiredNamesSlotIsGivenAwayAndItsExHolderCanNeitherExtendNorRelease() {
        try (OwnerLease leases = table(1)) {
            Lease expired = leases.tryAcquire("a", PID, Duration.ofNanos(1)).orElseThrow();
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> leases.holder("a").isEmpty());
            Lease b = leases.tryAcquire("b", PID, MINUTE).orElseThrow();
            assertThat(b.token()).isGreaterThan(expired.token());
            assertThat(leases.extend(expired, MINUTE)).isFalse();
            assertThat(leases.release(expired)).isFalse();
            assertThat(leases.isHeld(b)).isTrue();
        }
    }

    @Test
    void aSecondHandlesStaleCacheNeverHoldsTheNameNowBoundToItsSlot() {
        try (OwnerLease one = table(1);
                OwnerLease two = handle(1)) {
            Lease x = two.tryAcquire("x", PID, MINUTE).orElseThrow(); // two caches x -> slot 0
            two.release(x);
            Lease y = one.tryAcquire("y", PID, MINUTE).orElseThrow(); // slot 0 rebound to y
            // Two's cache still maps x to slot 0: it must see y's binding, not take y's lease.
            assertThatThrownBy(() -> two.tryAcquire("x", PID, MINUTE))
                    .isInstanceOf(CxcCapacityException.class);
            assertThat(one.isHeld(y)).isTrue();
            assertThat(two.holder("x")).isEmpty();
            assertThat(two.holder("y").orElseThrow().token()).isEqualTo(y.token());
            one.release(y);
            Lease again = two.tryAcquire("x", PID, MINUTE).orElseThrow();
            assertThat(again.token()).isGreaterThan(y.token()).isGreaterThan(x.token());
            assertThat(one.holder("x").orElseThrow().token()).isEqualTo(again.token());
            assertThat(one.holder("y")).isEmpty();
        }
    }

    @Test
    void aStaleCacheWithARoomierTableFindsTheNamesNewSlot() {
        try (OwnerLease one = table(2);
                OwnerLease two = handle(2)) {
            two.release(two.tryAcquire("x", PID, MINUTE).orElseThrow());
            Lease held = one.tryAcquire("held", PID, MINUTE).orElseThrow();
            // "x"'s slot goes to y if it is the one without a live holder.
            Lease y = one.tryAcquire("y", PID, MINUTE).orElseThrow();
            one.release(held);
            Lease x = two.tryAcquire("x", PID, MINUTE).orElseThrow();
            assertThat(one.isHeld(y)).isTrue();
            assertThat(one.holder("x").orElseThrow().token()).isEqualTo(x.token());
            assertThat(one.holder("y").orElseThrow().token()).isEqualTo(y.token());
            assertThat(one.tryAcquire("x", PID, MINUTE)).isEmpty();
            assertThat(two.tryAcquire("y", PID, MINUTE)).isEmpty();
        }
    }

    @Test
    void aNamesTokensKeepRisingAcrossRebindsToOtherSlots() {
        try (OwnerLease leases = table(2);
                OwnerLease other = handle(2)) {
            long last = 0;
            for (int round = 0; round < 50; round++) {
                // A busy name pushes its slot's key up, then every slot is taken by others.
                for (int i = 0; i < 1 + round % 3; i++) {
                    Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
                    assertThat(lease.token()).as("round %d", round).isGreaterThan(last);
                    last = lease.token();
                    leases.release(lease);
                }
                other.release(other.tryAcquire("filler-a-" + round, PID, MINUTE).orElseThrow());
                other.release(other.tryAcquire("filler-b-" + round, PID, MINUTE).orElseThrow());
            }
        }
    }
}
