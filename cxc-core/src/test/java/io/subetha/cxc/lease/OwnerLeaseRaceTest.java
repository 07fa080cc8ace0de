package io.subetha.cxc.lease;

import static io.subetha.cxc.lease.OwnerLeaseDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lease's CASes lost at the exact step between the read they were decided on and the CAS (held
 * there with a {@link StepGate} while the test plays the other process): a name-slot claim lost to
 * another name's binder (the acquirer's cached slot given away between its judgement and its CAS),
 * a live binder waited for rather than taken over, a deadline publication lost to a successor, an
 * extend whose lease word moved under it, and one whose record was taken over before its CAS.
 * One-slot table, two handles (their caches apart), one process.
 */
class OwnerLeaseRaceTest {

    static final long PID = Pids.current();
    static final Duration MINUTE = Duration.ofMinutes(1);
    static final int RECORD = slotOffset(0);

    @TempDir Path dir;
    OwnerLease leases;
    OwnerLease other;
    AtomicBuffer raw;

    @BeforeEach
    void oneSlot() {
        Path path = dir.resolve("leases.cxc");
        leases = OwnerLease.TYPE.create(path, new OwnerLease.Settings(1));
        other = OwnerLease.open(path, new OwnerLease.Settings(1));
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        leases.close();
        other.close();
    }

    long leaseWordNow() {
        return raw.getLongVolatile(RECORD + LEASE_WORD_OFFSET);
    }

    @Test
    void anAcquirerWhoseCachedSlotIsGivenAwayBetweenItsJudgementAndItsCasFindsTheTableFull() {
        leases.release(leases.tryAcquire("x", PID, MINUTE).orElseThrow()); // cached: x -> 0
        StepGate<Optional<Lease>> acquirer =
                StepGate.holdAt(Point.JUDGED, () -> leases.tryAcquire("x", PID, MINUTE));
        Lease y = other.tryAcquire("y", PID, MINUTE).orElseThrow(); // slot 0 given to "y"

        assertThatThrownBy(acquirer::release)
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("\"x\" cannot be leased");
        byte[] bytes = utf8("y");
        assertThat(raw.getLongVolatile(RECORD + BIND_WORD_OFFSET))
                .isEqualTo(boundWord(bytes.length, hash(bytes), 1));
        assertThat(other.isHeld(y)).isTrue();
    }

    @Test
    void anAcquirerWhoseCasWinsASlotReboundToAnotherNameGivesItBackAndBindsItsOwn() {
        leases.release(leases.tryAcquire("x", PID, MINUTE).orElseThrow()); // cached: x -> 0
        StepGate<Optional<Lease>> acquirer =
                StepGate.holdAt(Point.JUDGED, () -> leases.tryAcquire("x", PID, MINUTE));
        Lease y = other.tryAcquire("y", PID, MINUTE).orElseThrow(); // slot 0 given to "y"
        other.release(y); // free again: the acquirer's next CAS wins y's slot

        Lease x = acquirer.release().orElseThrow();
        assertThat(x.token()).isGreaterThan(y.token());
        assertThat(other.holder("y")).isEmpty();
        assertThat(other.holder("x").orElseThrow().token()).isEqualTo(x.token());
        byte[] bytes = utf8("x");
        assertThat(raw.getLongVolatile(RECORD + BIND_WORD_OFFSET))
                .isEqualTo(boundWord(bytes.length, hash(bytes), 2));
    }

    @Test
    void aBinderWaitsForALiveBinderHoldingTheBindLockInsteadOfTakingItOver() throws Exception {
        StepGate<Optional<Lease>> first =
                StepGate.holdAt(Point.INTENT_STAGED, () -> leases.tryAcquire("x", PID, MINUTE));
        // The bind lock is held by this very process, alive.
        CompletableFuture<Optional<Lease>> second = new CompletableFuture<>();
        Thread waiter =
                new Thread(
                        () -> {
                            try {
                                second.complete(other.tryAcquire("y", PID, MINUTE));
                            } catch (Throwable t) {
                                second.completeExceptionally(t);
                            }
                        },
                        "second-binder");
        waiter.setDaemon(true);
        waiter.start();
        Optional<Lease> x;
        try {
            // Parked in its wait for the bind lock (or done, which is what the assertions refuse).
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(1))
                    .until(
                            () ->
                                    second.isDone()
                                            || waiter.getState() == Thread.State.TIMED_WAITING);
            assertThat(second).isNotDone();
        } finally {
            x = first.release();
        }
        // Then the one slot is x's, or y's if y's binder found it free before x's acquirer took
        // it (it retires an unheld slot): one name bound, at most one held.
        Optional<Lease> y;
        try {
            y = second.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(CxcCapacityException.class);
            y = Optional.empty();
        }
        assertThat(x.isPresent() && y.isPresent()).as("%s and %s", x, y).isFalse();
        assertThat(other.describe()).containsEntry("boundNames", 1);
        assertThat(isBound(raw.getLongVolatile(RECORD + BIND_WORD_OFFSET))).isTrue();
    }

    @Test
    void anAcquirerMeetingALiveBindersRetiringSlotWaitsForItInsteadOfRollingItBack()
            throws Exception {
        leases.release(leases.tryAcquire("x", PID, MINUTE).orElseThrow()); // cached: x -> 0
        StepGate<Optional<Lease>> retirer =
                StepGate.holdAt(
                        Point.LEASE_SLOT_RETIRING, () -> other.tryAcquire("y", PID, MINUTE));
        long retiring = OwnerRecord.ownerWord(raw, RECORD);
        assertThat(isRetiring(retiring)).isTrue();
        assertThat(leases.holder("x")).isEmpty();
        CompletableFuture<Optional<Lease>> x = new CompletableFuture<>();
        Thread acquirer =
                new Thread(
                        () -> {
                            try {
                                x.complete(leases.tryAcquire("x", PID, MINUTE));
                            } catch (Throwable t) {
                                x.completeExceptionally(t);
                            }
                        },
                        "x-acquirer");
        acquirer.setDaemon(true);
        acquirer.start();
        Optional<Lease> y;
        try {
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(1))
                    .until(() -> x.isDone() || acquirer.getState() == Thread.State.TIMED_WAITING);
            assertThat(x).isNotDone();
            assertThat(OwnerRecord.ownerWord(raw, RECORD)).isEqualTo(retiring);
        } finally {
            y = retirer.release();
        }
        assertThat(y).isPresent();
        assertThatThrownBy(() -> x.get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(CxcCapacityException.class);
        assertThat(y.get().token()).isGreaterThan(OwnerRecord.key(retiring));
    }

    @Test
    void anAcquirerWhoseDeadlineCasLosesToASuccessorsGetsNoLease() {
        other.tryAcquire("job", PID, MINUTE).ifPresent(other::release); // bind the name
        StepGate<Optional<Lease>> acquirer =
                StepGate.holdAt(Point.LEASE_WORD_READ, () -> leases.tryAcquire("job", PID, MINUTE));
        // Judged dead meanwhile (say): a successor's CAS from the acquirer's word, its deadline.
        long mine = OwnerRecord.ownerWord(raw, RECORD);
        long successor = OwnerRecord.ownerWord(1, OwnerRecord.key(mine) + 1);
        assertThat(raw.compareAndSetLong(RECORD, mine, successor)).isTrue();
        long successors = leaseWord(OwnerRecord.key(successor), nowMillis() + 60_000, false);
        raw.setLongVolatile(RECORD + LEASE_WORD_OFFSET, successors);

        assertThat(acquirer.release()).isEmpty();
        assertThat(leaseWordNow()).isEqualTo(successors);
    }

    @Test
    void anExtendWhoseLeaseWordMovedUnderItRetriesAndWritesItsOwnDeadline() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        StepGate<Boolean> longer =
                StepGate.holdAt(
                        Point.LEASE_WORD_READ, () -> leases.extend(lease, Duration.ofHours(2)));
        assertThat(leases.extend(lease, MINUTE)).isTrue(); // another thread's, in between

        assertThat(longer.release()).isTrue();
        long word = leaseWordNow();
        assertThat(leaseKey(word)).isEqualTo(lease.token());
        long left = (deadlineMillis(word) - (int) nowMillis());
        assertThat(left).as("ms left: the two hours' deadline").isGreaterThan(3_600_000L);
    }

    @Test
    void anExtendWhoseRecordIsTakenOverBeforeItsCasSaysFalse() {
        Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
        StepGate<Boolean> extend =
                StepGate.holdAt(
                        Point.LEASE_WORD_READ, () -> leases.extend(lease, Duration.ofHours(2)));
        // A successor claimed (judged this holder dead) and has not published its deadline yet.
        long successor = OwnerRecord.ownerWord(1, lease.token() + 1);
        raw.setLongVolatile(RECORD, successor);

        assertThat(extend.release()).isFalse();
        assertThat(leases.isHeld(lease)).isFalse();
        assertThat(OwnerRecord.ownerWord(raw, RECORD)).isEqualTo(successor);
    }
}
