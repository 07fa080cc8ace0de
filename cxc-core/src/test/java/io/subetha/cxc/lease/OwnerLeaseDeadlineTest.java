package io.subetha.cxc.lease;

import static io.subetha.cxc.lease.OwnerLeaseDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.lease.OwnerLease.LeaseInfo;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lease's deadline and who may still move it, in a one-slot table whose words the test reads and
 * plants: the deadline a lease gets (whole milliseconds, rounded up, from right after the CAS),
 * what extend, release and release-no-earlier-than do on a lease that expired, lingers, was
 * released or was taken over, and an acquirer that loses its lease between its CAS and its
 * deadline. What a handle decides from its own state and from exactly the lease word's key: a
 * handle given back is never moved again, a lease word of another key is neither moved nor taken
 * for this lease's deadline, and a lease that lingers after {@link OwnerLease#releaseNoEarlierThan}
 * is no longer its handle's.
 */
class OwnerLeaseDeadlineTest {
    static final long PID = Pids.current();
    static final Duration MINUTE = Duration.ofMinutes(1);

    /** The one slot's record. */
    static final int RECORD = slotOffset(0);

    @TempDir Path dir;
    OwnerLease leases;
    AtomicBuffer raw;

    @BeforeEach
    void oneSlot() {
        Path path = dir.resolve("leases.cxc");
        leases = OwnerLease.TYPE.create(path, new OwnerLease.Settings(1));
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        leases.close();
    }

    long leaseWordNow() {
        return raw.getLongVolatile(RECORD + LEASE_WORD_OFFSET);
    }

    /** Plants the lease word of {@code lease}'s key with a deadline {@code millis} from now. */
    void plantDeadline(Lease lease, long millis, boolean linger) {
        raw.setLongVolatile(
                RECORD + LEASE_WORD_OFFSET, leaseWord(lease.token(), nowMillis() + millis, linger));
    }

    static long expectedDeadline(long fromNanos, long atMostMillis) {
        long ceilMillis = Math.floorDiv(fromNanos + 999_999, 1_000_000L);
        return ((ceilMillis + atMostMillis + 1) & ~1L) & 0xFFFF_FFFFL;
    }

    @Test
    void theDeadlineIsWholeMillisecondsRoundedUpFromRightAfterTheCas() {
        Lease lease = leases.tryAcquire("job", PID, Duration.ofNanos(1_500_001)).orElseThrow();
        // 1.5 ms lasts 2 ms, counted from the acquisition time the record publishes.
        assertThat(OwnerRecord.heartbeat(raw, RECORD)).isEqualTo(lease.acquiredAtNanos());
        assertThat(leaseWordNow())
                .isEqualTo(
                        leaseWord(
                                lease.token(),
                                expectedDeadline(lease.acquiredAtNanos(), 2),
                                false));
        assertThat(leaseKey(leaseWordNow())).isEqualTo(lease.token());
        assertThat(leases.release(lease)).isIn(true, false); // may have expired already

        Lease tiny = leases.tryAcquire("job", PID, Duration.ofNanos(1)).orElseThrow();
        assertThat(deadlineMillis(leaseWordNow()) & 0xFFFF_FFFFL)
                .as("a 1 ns lease lasts 1 ms")
                .isEqualTo(expectedDeadline(tiny.acquiredAtNanos(), 1));
        assertThat(tiny.toString()).isEqualTo("lease job (token 2, pid " + PID + ")");
        assertThat(tiny.name()).isEqualTo("job");
    }

    @Test
    void holderReportsTheAcquisitionTimeAndTheDeadlineInNanoTime() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        LeaseInfo info = leases.holder("job").orElseThrow();
        assertThat(info.acquiredAtNanos()).isEqualTo(lease.acquiredAtNanos());
        // expiresAt is now + (deadline - now) in ms: within a millisecond of the deadline itself.
        assertThat(info.expiresAtNanos() - (lease.acquiredAtNanos() + MINUTE.toNanos()))
                .isBetween(-1_000_000L, 4_000_000L);
    }

    @Test
    void untilItsDeadlineIsPublishedALeaseCountsAsHeldAndNeverExpires() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        // As a new holder leaves it between its CAS and its deadline: another key's lease word
        // (passed, and lingering: neither counts for this key).
        raw.setLongVolatile(
                RECORD + LEASE_WORD_OFFSET, leaseWord(lease.token() - 1, nowMillis() - 10, true));
        LeaseInfo info = leases.holder("job").orElseThrow();
        assertThat(info.expiresAtNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(info.lingering()).isFalse();
        assertThat(leases.isHeld(lease)).isTrue();
        assertThat(leases.tryAcquire("job", PID, MINUTE)).isEmpty();
        assertThat(leases.describe()).containsEntry("held", 1);
    }

    @Test
    void aLeasePastItsDeadlineIsFreeAndCannotBeExtendedOrReleasedByItsHolder() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        plantDeadline(lease, -1, false); // passed: expired exactly at its deadline or after
        assertThat(leases.isHeld(lease)).isFalse();
        assertThat(leases.holder("job")).isEmpty();
        assertThat(leases.describe()).containsEntry("held", 0).containsEntry("boundNames", 1);
        assertThat(leases.extend(lease, MINUTE)).isFalse();
        assertThat(leases.release(lease)).as("expired").isFalse();
        // Freed all the same, nobody having taken it: the next acquisition gets the next token.
        assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, RECORD))).isZero();
        assertThat(leases.tryAcquire("job", PID, MINUTE).orElseThrow().token()).isEqualTo(2);
    }

    @Test
    void aLeaseWithTimeLeftIsReleasedTrueAndTheDeadlineEdgeCountsAsPassed() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        plantDeadline(lease, 10_000, false);
        assertThat(leases.isHeld(lease)).isTrue();
        assertThat(leases.release(lease)).isTrue();
        assertThat(leases.release(lease)).isFalse();
        assertThat(leases.extend(lease, MINUTE)).as("released").isFalse();
        assertThat(expired(leaseWord(1, 1000, false), 999)).isFalse();
        assertThat(expired(leaseWord(1, 1000, false), 1000)).isTrue();
    }

    @Test
    void aLeaseTakenOverIsNeitherExtendedNorReleasedByItsFormerHolder() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        // A successor claimed (judged this holder dead) but has not published its deadline yet.
        long successor = OwnerRecord.ownerWord(1, lease.token() + 1);
        raw.setLongVolatile(RECORD, successor);
        long before = leaseWordNow();
        assertThat(leases.isHeld(lease)).isFalse();
        assertThat(leases.extend(lease, Duration.ofHours(1))).isFalse();
        assertThat(leaseWordNow()).isEqualTo(before);
        assertThat(leases.release(lease)).isFalse();
        assertThat(OwnerRecord.ownerWord(raw, RECORD)).isEqualTo(successor);
        assertThat(leases.releaseNoEarlierThan(lease, System.nanoTime() + MINUTE.toNanos()))
                .isFalse();
    }

    @Test
    void aLingeringLeaseCannotBeExtended() {
        Lease lease = leases.tryAcquire("job", PID, Duration.ofHours(1)).orElseThrow();
        plantDeadline(lease, 60_000, true);
        assertThat(leases.extend(lease, Duration.ofHours(1))).isFalse();
        assertThat(lingers(leaseWordNow())).isTrue();
    }

    @Test
    void extendRewritesTheDeadlineUnderTheSameKeyWithoutLinger() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        long before = System.nanoTime();
        assertThat(leases.extend(lease, Duration.ofHours(2))).isTrue();
        long word = leaseWordNow();
        assertThat(leaseKey(word)).isEqualTo(lease.token());
        assertThat(lingers(word)).isFalse();
        long deadline = deadlineMillis(word) & 0xFFFF_FFFFL;
        long lowest = expectedDeadline(before, Duration.ofHours(2).toMillis());
        assertThat((deadline - lowest) & 0xFFFF_FFFFL).isLessThan(1_000);
        assertThat(leases.opCounts()).containsEntry("extend", 1L).containsEntry("acquire", 1L);
    }

    @Test
    void aReleaseNoEarlierThanATimeAlreadyPassedIsAPlainRelease() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        assertThat(leases.releaseNoEarlierThan(lease, System.nanoTime() - 1)).isTrue();
        assertThat(leases.holder("job")).isEmpty();
        assertThat(lingers(leaseWordNow())).isFalse();
        assertThat(leases.tryAcquire("job", PID, MINUTE).orElseThrow().token()).isEqualTo(2);
        assertThat(leases.opCounts()).containsEntry("release", 1L);
    }

    @Test
    void aReleaseNoEarlierThanBeyondTheLongestLeaseLingersForTheLongestLease() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        long before = System.nanoTime();
        assertThat(leases.releaseNoEarlierThan(lease, before + Duration.ofDays(30).toNanos()))
                .isTrue();
        long word = leaseWordNow();
        assertThat(lingers(word)).isTrue();
        long deadline = deadlineMillis(word) & 0xFFFF_FFFFL;
        long lowest = expectedDeadline(before, OwnerLease.MAX_AT_MOST.toMillis());
        assertThat((deadline - lowest) & 0xFFFF_FFFFL).isLessThan(1_000);
        LeaseInfo info = leases.holder("job").orElseThrow();
        assertThat(info.lingering()).isTrue();
        assertThat(leases.releaseNoEarlierThan(lease, before + MINUTE.toNanos()))
                .as("released already")
                .isFalse();
        assertThat(leases.opCounts()).containsEntry("release", 2L);
    }

    @Test
    void aReleaseNoEarlierThanLingersUntilExactlyThatTime() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        assertThat(leases.releaseNoEarlierThan(lease, until)).isTrue();
        assertThat(leaseWordNow())
                .isEqualTo(leaseWord(lease.token(), expectedDeadline(until, 0), true));
    }

    @Test
    void anAcquirerTakenOverBeforeItPublishesItsDeadlineGetsNoLease() {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease other = OwnerLease.open(path, new OwnerLease.Settings(1))) {
            other.tryAcquire("job", PID, MINUTE).ifPresent(other::release); // bind the name
            StepGate<Optional<Lease>> acquirer =
                    StepGate.holdAt(
                            Point.HEARTBEAT_PUBLISHED, () -> leases.tryAcquire("job", PID, MINUTE));
            // Judged dead meanwhile (say): a successor's CAS from the acquirer's word.
            long mine = OwnerRecord.ownerWord(raw, RECORD);
            long successor = OwnerRecord.ownerWord(1, OwnerRecord.key(mine) + 1);
            assertThat(raw.compareAndSetLong(RECORD, mine, successor)).isTrue();

            assertThat(acquirer.release()).isEmpty();
            assertThat(leaseKey(leaseWordNow())).isNotEqualTo(OwnerRecord.key(mine));
        }
    }

    @Test
    void anAcquirerWhoseCasLosesJudgesTheWinnerAndGetsNothingFromALiveOne() {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease other = OwnerLease.open(path, new OwnerLease.Settings(1))) {
            other.tryAcquire("job", PID, MINUTE).ifPresent(other::release); // bind the name
            StepGate<Optional<Lease>> acquirer =
                    StepGate.holdAt(Point.JUDGED, () -> leases.tryAcquire("job", PID, MINUTE));
            Lease winner = other.tryAcquire("job", PID, MINUTE).orElseThrow();

            assertThat(acquirer.release()).isEmpty();
            assertThat(other.isHeld(winner)).isTrue();
            assertThat(leases.holder("job").orElseThrow().token()).isEqualTo(winner.token());
        }
    }

    @Test
    void theLongestLeaseIsAcceptedAndEveryOpIsCountedOnce() {
        Lease lease = leases.tryAcquire("job", PID, OwnerLease.MAX_AT_MOST).orElseThrow();
        assertThat(leases.isHeld(lease)).isTrue();
        assertThat(leases.holder("job")).isPresent();
        assertThat(leases.holder("unbound")).isEmpty();
        assertThat(leases.extend(lease, OwnerLease.MAX_AT_MOST)).isTrue();
        assertThat(leases.release(lease)).isTrue();
        assertThat(leases.opCounts())
                .containsEntry("acquire", 1L)
                .containsEntry("read", 3L)
                .containsEntry("extend", 1L)
                .containsEntry("release", 1L);
    }

    // -------------------------------------------------- what a handle decides from its own state

    @Test
    void aLeaseHandedBackToLingerIsNeverExtendedByItsHandleWhateverTheWordsSay() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        assertThat(leases.releaseNoEarlierThan(lease, System.nanoTime() + MINUTE.toNanos()))
                .isTrue();
        // The owner word is still the lease's; even with the linger bit gone from the lease word
        // (an unexpired, plain deadline of its key), the handle was given back.
        long plain = leaseWord(lease.token(), nowMillis() + 60_000, false);
        raw.setLongVolatile(RECORD + LEASE_WORD_OFFSET, plain);
        assertThat(leases.extend(lease, Duration.ofHours(1))).isFalse();
        assertThat(leaseWordNow()).isEqualTo(plain);
    }

    @Test
    void aLeaseLingeringAfterItsReleaseIsHeldForOthersButNoLongerByItsHandle() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        assertThat(leases.releaseNoEarlierThan(lease, System.nanoTime() + MINUTE.toNanos()))
                .isTrue();
        assertThat(leases.holder("job")).isPresent();
        assertThat(leases.isHeld(lease)).isFalse();
    }

    @Test
    void anExtendLeavesALeaseWordOfAnotherKeyAloneEvenWhileTheOwnerWordIsTheLeases() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        long otherKeys = leaseWord(lease.token() + 1, nowMillis() + 60_000, false);
        raw.setLongVolatile(RECORD + LEASE_WORD_OFFSET, otherKeys);
        assertThat(leases.extend(lease, Duration.ofHours(1))).isFalse();
        assertThat(leaseWordNow()).isEqualTo(otherKeys);
    }

    @Test
    void aReleaseIsTrueWhenOnlyAnotherKeysDeadlineHasPassed() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        // As a holder leaves it between its CAS and its deadline: the previous key's word, passed.
        raw.setLongVolatile(
                RECORD + LEASE_WORD_OFFSET, leaseWord(lease.token() - 1, nowMillis() - 10, false));
        assertThat(leases.release(lease)).isTrue();
        assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, RECORD))).isZero();
    }

    @Test
    void aReleaseNoEarlierThanAPassedTimeOfALeaseAlreadyReleasedIsFalse() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        assertThat(leases.release(lease)).isTrue();
        assertThat(leases.releaseNoEarlierThan(lease, System.nanoTime() - 1)).isFalse();
        assertThat(leases.opCounts()).containsEntry("release", 2L);
    }

    @Test
    void aLeaseOfAFractionOfAMillisecondLastsTheWholeMillisecondsRoundedUp() {
        // 2.5 ms lasts 3 ms (2 ms shorter rounded down: a difference the even deadline keeps).
        Lease lease = leases.tryAcquire("job", PID, Duration.ofNanos(2_500_000)).orElseThrow();
        assertThat(leaseWordNow())
                .isEqualTo(
                        leaseWord(
                                lease.token(),
                                OwnerLeaseDeadlineTest.expectedDeadline(lease.acquiredAtNanos(), 3),
                                false));
    }
}
