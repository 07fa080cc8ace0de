package io.subetha.cxc.lease;

import static io.subetha.cxc.lease.OwnerLeaseDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.lease.OwnerLease.LeaseInfo;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnerLeaseTest {

    private static final long PID = Pids.current();
    private static final Duration MINUTE = Duration.ofMinutes(1);

    @TempDir Path dir;

    private OwnerLease table(int capacity) {
        return OwnerLease.TYPE.create(dir.resolve("leases.cxc"), new OwnerLease.Settings(capacity));
    }

    /** A PID whose process has exited and been reaped. */
    static long deadPid() throws Exception {
        Process process = new ProcessBuilder("true").start();
        process.waitFor();
        return process.pid();
    }

    @Test
    void aHeldNameIsRefusedToEveryoneItsHolderIncludedAndTokensRisePerAcquisition() {
        try (OwnerLease leases = table(16)) {
            Lease first = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
            assertThat(first.token()).isEqualTo(1);
            assertThat(first.pid()).isEqualTo(PID);
            assertThat(leases.tryAcquire("job", PID, MINUTE)).isEmpty();
            assertThat(leases.tryAcquire("other", PID, MINUTE)).isPresent();

            LeaseInfo info = leases.holder("job").orElseThrow();
            assertThat(info.pid()).isEqualTo(PID);
            assertThat(info.token()).isEqualTo(1);
            assertThat(info.lingering()).isFalse();
            assertThat(info.expiresAtNanos() - System.nanoTime())
                    .isBetween(Duration.ofSeconds(30).toNanos(), MINUTE.toNanos() + 2_000_000);

            assertThat(leases.release(first)).isTrue();
            assertThat(leases.release(first)).as("a second release").isFalse();
            assertThat(leases.holder("job")).isEmpty();
            assertThat(leases.tryAcquire("job", PID, MINUTE).orElseThrow().token()).isEqualTo(2);
            assertThat(leases.describe())
                    .containsEntry("capacity", 16)
                    .containsEntry("boundNames", 2)
                    .containsEntry("held", 2);
        }
    }

    @Test
    void anExpiredLeaseIsFreeAndItsHolderCanNeitherExtendNorReleaseIt() {
        try (OwnerLease leases = table(4)) {
            Lease first = leases.tryAcquire("job", PID, Duration.ofMillis(20)).orElseThrow();
            Optional<Lease> second =
                    await().atMost(Duration.ofSeconds(30))
                            .until(
                                    () -> leases.tryAcquire("job", PID, MINUTE),
                                    Optional::isPresent);
            assertThat(second.orElseThrow().token()).isEqualTo(2);
            assertThat(leases.extend(first, MINUTE)).isFalse();
            assertThat(leases.isHeld(first)).isFalse();
            assertThat(leases.release(first)).isFalse();
            assertThat(leases.holder("job").orElseThrow().token()).isEqualTo(2);
        }
    }

    @Test
    void extendMovesTheDeadlineBothWays() {
        try (OwnerLease leases = table(4)) {
            Lease lease = leases.tryAcquire("job", PID, Duration.ofSeconds(5)).orElseThrow();
            assertThat(leases.extend(lease, Duration.ofHours(1))).isTrue();
            assertThat(leases.holder("job").orElseThrow().expiresAtNanos() - System.nanoTime())
                    .isGreaterThan(Duration.ofMinutes(59).toNanos());
            assertThat(leases.extend(lease, Duration.ofMillis(1))).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> leases.holder("job").isEmpty());
            assertThat(leases.extend(lease, MINUTE)).as("expired").isFalse();
        }
    }

    @Test
    void aDeadHoldersLeaseIsFreeAtOnce() throws Exception {
        try (OwnerLease leases = table(4)) {
            long dead = deadPid();
            Lease orphan = leases.tryAcquire("job", dead, Duration.ofHours(1)).orElseThrow();
            assertThat(leases.holder("job")).isEmpty();
            Lease taken = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
            assertThat(taken.token()).isEqualTo(orphan.token() + 1);
        }
    }

    @Test
    void releasingNoEarlierThanKeepsTheNameUntilThen() {
        try (OwnerLease leases = table(4)) {
            Lease live = leases.tryAcquire("job", PID, Duration.ofHours(1)).orElseThrow();
            long keepUntil = System.nanoTime() + Duration.ofMillis(200).toNanos();
            assertThat(leases.releaseNoEarlierThan(live, keepUntil)).isTrue();
            LeaseInfo info = leases.holder("job").orElseThrow();
            assertThat(info.lingering()).isTrue();
            assertThat(leases.extend(live, MINUTE)).as("released").isFalse();
            assertThat(leases.release(live)).as("released").isFalse();
            Lease next =
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> leases.tryAcquire("job", PID, MINUTE), Optional::isPresent)
                            .orElseThrow();
            assertThat(System.nanoTime()).isGreaterThanOrEqualTo(keepUntil - 2_000_000);
            assertThat(next.token()).isEqualTo(live.token() + 1);
        }
    }

    @Test
    void aLingeringLeaseOfADeadHolderStaysUntilItsDeadline() throws Exception {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.TYPE.create(path, new OwnerLease.Settings(4))) {
            Lease lease = leases.tryAcquire("job", PID, Duration.ofHours(1)).orElseThrow();
            assertThat(leases.releaseNoEarlierThan(lease, System.nanoTime() + MINUTE.toNanos()))
                    .isTrue();
            // Make the holder dead: rewrite its PID to a reaped one, key kept.
            AtomicBuffer raw = RawBody.of(path);
            int record = slotOffset(slotOf(raw, 4));
            long word = OwnerRecord.ownerWord(raw, record);
            raw.setLongVolatile(record, OwnerRecord.ownerWord(deadPid(), OwnerRecord.key(word)));
            assertThat(leases.tryAcquire("job", PID, MINUTE)).isEmpty();
            assertThat(leases.holder("job").orElseThrow().lingering()).isTrue();
        }
    }

    private static int slotOf(AtomicBuffer raw, int capacity) {
        for (int slot = 0; slot < capacity; slot++) {
            if (isBound(raw.getLongVolatile(slotOffset(slot) + BIND_WORD_OFFSET))) {
                return slot;
            }
        }
        throw new AssertionError("no bound slot");
    }

    @Test
    void namesLongerThanSixtyFourUtf8BytesAreStoredAsTheirDigestAndEmptyOnesRefused() {
        try (OwnerLease leases = table(4)) {
            String longest = "é".repeat(32); // 64 bytes in UTF-8: stored as it is
            assertThat(leases.tryAcquire(longest, PID, MINUTE)).isPresent();
            assertThat(leases.holder(longest)).isPresent();
            String path = "/var/spool/inbound/" + "segment/".repeat(20) + "order-42.json";
            String sibling = path.replace("42", "43");
            OwnerLease.Lease lease = leases.tryAcquire(path, PID, MINUTE).orElseThrow();
            assertThat(lease.name()).isEqualTo(path);
            assertThat(leases.holder(path)).isPresent();
            assertThat(leases.tryAcquire(path, PID, MINUTE)).as("held").isEmpty();
            assertThat(leases.holder(sibling)).as("another long name").isEmpty();
            assertThat(leases.tryAcquire(sibling, PID, MINUTE)).isPresent();
            assertThat(leases.release(lease)).isTrue();
            assertThat(leases.holder(path)).isEmpty();
            assertThat(storedName(path)).hasSize(DIGEST_NAME_BYTES).startsWith(DIGEST_MARK);
            assertThat(storedName(longest)).isEqualTo(utf8(longest));
            assertThatThrownBy(() -> leases.holder(""))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("0 UTF-8 bytes");
        }
    }

    /** A digest's mark byte is never in UTF-8 text: no inline name reads as a long name's slot. */
    @Test
    void noInlineNameEqualsAStoredDigest() {
        byte[] digest = storedName("x".repeat(65));
        String sameBytes = new String(digest, java.nio.charset.StandardCharsets.UTF_8);
        assertThat(utf8(sameBytes)).isNotEqualTo(digest);
        assertThat(storedName(sameBytes)).isNotEqualTo(digest);
    }

    @Test
    void badArgumentsAreRefusedNamingTheLimit() {
        try (OwnerLease leases = table(4)) {
            assertThatThrownBy(() -> leases.tryAcquire("job", 0, MINUTE))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PID 0");
            assertThatThrownBy(() -> leases.tryAcquire("job", PID, Duration.ZERO))
                    .hasMessageContaining("atMost must be in (0, PT576H], got PT0S");
            assertThatThrownBy(() -> leases.tryAcquire("job", PID, Duration.ofDays(25)))
                    .hasMessageContaining("PT576H");
            assertThatThrownBy(() -> leases.tryAcquire("job", PID, Duration.ofSeconds(-1)))
                    .hasMessageContaining("atMost");
        }
        assertThatThrownBy(
                        () ->
                                OwnerLease.TYPE.create(
                                        dir.resolve("zero.cxc"), new OwnerLease.Settings(0)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity must be 1..65536, got 0");
    }

    @Test
    void aFullTableRefusesANewNameNamingItsCapacityAndKeepsServingItsNames() {
        try (OwnerLease leases = table(2)) {
            Lease a = leases.tryAcquire("a", PID, MINUTE).orElseThrow();
            leases.tryAcquire("b", PID, MINUTE).orElseThrow();
            assertThatThrownBy(() -> leases.tryAcquire("c", PID, MINUTE))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("all 2 name slots");
            assertThat(leases.holder("c")).isEmpty();
            assertThat(leases.release(a)).isTrue();
            assertThat(leases.tryAcquire("a", PID, MINUTE)).isPresent();
        }
    }

    @Test
    void anotherHandleFindsTheNamesThisOneBound() {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease one = OwnerLease.TYPE.create(path, new OwnerLease.Settings(8));
                OwnerLease two = OwnerLease.open(path, new OwnerLease.Settings(8))) {
            for (int i = 0; i < 8; i++) {
                one.tryAcquire("name-" + i, PID, MINUTE).orElseThrow();
            }
            for (int i = 0; i < 8; i++) {
                assertThat(two.tryAcquire("name-" + i, PID, MINUTE)).isEmpty();
                assertThat(two.holder("name-" + i).orElseThrow().token()).isEqualTo(1);
            }
            assertThat(two.describe()).containsEntry("boundNames", 8);
        }
    }

    @Test
    void aBindLockLeftByADeadBinderIsTakenOver() throws Exception {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.TYPE.create(path, new OwnerLease.Settings(4))) {
            AtomicBuffer raw = RawBody.of(path);
            raw.setLongVolatile(bindLockOffset(4), OwnerRecord.ownerWord(deadPid(), 1));
            Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
            assertThat(lease.token()).isEqualTo(1);
            assertThat(leases.describe()).containsEntry("boundNames", 1);
        }
    }

    @Test
    void twoBindersOfOneNameMeetAtOneSlot() {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease one = OwnerLease.TYPE.create(path, new OwnerLease.Settings(8));
                OwnerLease two = OwnerLease.open(path, new OwnerLease.Settings(8))) {
            try (StepGate<Optional<Lease>> paused =
                    StepGate.holdAt(
                            Point.INTENT_STAGED, () -> one.tryAcquire("job", PID, MINUTE))) {
                // The second binder waits for the bind lock, on its own thread.
                java.util.concurrent.CompletableFuture<Optional<Lease>> second =
                        java.util.concurrent.CompletableFuture.supplyAsync(
                                () -> two.tryAcquire("job", PID, MINUTE));
                Optional<Lease> first = paused.release();
                Optional<Lease> other = second.join();
                assertThat(first.isPresent() ^ other.isPresent())
                        .as("exactly one acquires: %s, %s", first, other)
                        .isTrue();
            }
            assertThat(two.describe()).containsEntry("boundNames", 1).containsEntry("held", 1);
        }
    }

    @Test
    void aReadOnlyObserverOpensAnyCapacity() {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.TYPE.create(path, new OwnerLease.Settings(3))) {
            leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        }
        try (OwnerLease observer =
                OwnerLease.TYPE.openAsRecorded(path, CxcFileOptions.defaults())) {
            assertThat(observer.capacity()).isEqualTo(3);
            assertThat(observer.holder("job")).isPresent();
            assertThat(observer.kind()).isEqualTo("owner-lease");
        }
        assertThatThrownBy(() -> OwnerLease.open(path, new OwnerLease.Settings(4)))
                .isInstanceOf(CxcCapacityException.class);
    }
}
