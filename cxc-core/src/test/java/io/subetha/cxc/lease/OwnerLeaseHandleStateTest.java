package io.subetha.cxc.lease;

import static io.subetha.cxc.lease.OwnerLeaseDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a lease handle decides from its own state and from exactly the lease word's key, in a
 * one-slot table whose words the test plants: a handle given back is never moved again, a lease
 * word of another key is neither moved nor taken for this lease's deadline, and a lease that
 * lingers after {@link OwnerLease#releaseNoEarlierThan} is no longer its handle's.
 */
class OwnerLeaseHandleStateTest {

    static final long PID = Pids.current();
    static final Duration MINUTE = Duration.ofMinutes(1);
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
