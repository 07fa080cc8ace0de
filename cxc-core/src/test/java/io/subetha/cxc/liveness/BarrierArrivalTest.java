package io.subetha.cxc.liveness;

import static io.subetha.cxc.liveness.EpochBarrierDescriptor.ARRIVAL_WORD_OFFSET;
import static io.subetha.cxc.liveness.EpochBarrierDescriptor.CURRENT_EPOCH_OFFSET;
import static io.subetha.cxc.liveness.EpochBarrierDescriptor.packArrivalWord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a waiter counts and whom it drops, with the peers' seats planted in the file: a peer silent
 * beyond the grace or provably dead is dropped, a fresh live one is waited for; an arrival counts
 * only at this epoch or later, with wrap-around epochs; a waiter beats on arriving and while it
 * waits; a participant dropped while it waits learns it, released or not; and the edges of {@code
 * await} and {@code leave}. The grace is an hour unless a test says otherwise, so no peer goes
 * silent on its own while a test runs.
 */
class BarrierArrivalTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long ME = Pids.current();
    static final Duration HOUR = Duration.ofHours(1);
    static final Duration LONG = Duration.ofSeconds(30);
    static final Duration SHORT = Duration.ofMillis(100);

    @TempDir Path dir;
    Path path;
    AtomicBuffer raw;
    final List<EpochBarrier> handles = new ArrayList<>();

    @AfterEach
    void close() {
        Thread.interrupted();
        handles.forEach(EpochBarrier::close);
    }

    private EpochBarrier create(int capacity, Duration interval, int graceEpochs) {
        path = dir.resolve("barrier.cxc");
        EpochBarrier barrier =
                EpochBarrier.TYPE.create(
                        path,
                        new EpochBarrier.Settings(capacity, interval, graceEpochs),
                        CxcFileOptions.defaults());
        handles.add(barrier);
        raw = RawBody.of(path);
        return barrier;
    }

    private EpochBarrier create(int capacity) {
        return create(capacity, HOUR, 1);
    }

    private EpochBarrier handle(int capacity) {
        EpochBarrier handle = EpochBarrier.TYPE.open(path, new EpochBarrier.Settings(capacity));
        handles.add(handle);
        return handle;
    }

    private static int record(int slot) {
        return EpochBarrierDescriptor.slotOffset(slot);
    }

    /** A peer in {@code slot} as a process would leave it after joining: identity, heartbeat. */
    private void plantPeer(int slot, long pid, long heartbeat) {
        long word = OwnerRecord.ownerWord(pid, 1);
        long startTime = pid == ME ? OwnerRecord.startTimeOf(ME) : 0;
        assertThat(OwnerRecord.claim(raw, record(slot), 0, word, startTime, System::nanoTime))
                .isTrue();
        OwnerRecord.beat(raw, record(slot), heartbeat);
    }

    private long heartbeat(int slot) {
        return OwnerRecord.heartbeat(raw, record(slot));
    }

    private long ownerWord(int slot) {
        return OwnerRecord.ownerWord(raw, record(slot));
    }

    private int generation(int slot) {
        return (int) OwnerRecord.key(ownerWord(slot));
    }

    private void plantArrival(int slot, int epoch, int generation) {
        raw.setLongVolatile(record(slot) + ARRIVAL_WORD_OFFSET, packArrivalWord(epoch, generation));
    }

    private boolean hasArrived(int slot, int epoch) {
        long arrival = raw.getLongVolatile(record(slot) + ARRIVAL_WORD_OFFSET);
        return arrival == packArrivalWord(epoch, generation(slot));
    }

    private static Throwable failureOf(CompletableFuture<?> waiting) throws Exception {
        try {
            waiting.get(60, TimeUnit.SECONDS);
            throw new AssertionError("the wait returned normally");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    // ------------------------------------------------------------------ who is dropped

    @Test
    void aPeerSilentBeyondTheGraceIsDroppedAndNotCountedLive() {
        EpochBarrier barrier = create(2);
        int epoch = barrier.join();
        plantPeer(1, ME, System.nanoTime() - Duration.ofHours(2).toNanos());
        assertThat(barrier.livePeerCount()).isEqualTo(1);

        barrier.await(epoch, LONG);

        assertThat(barrier.currentEpoch()).isEqualTo(epoch + 1);
        assertThat(OwnerRecord.pid(ownerWord(1))).isZero();
        assertThat(OwnerRecord.key(ownerWord(1))).isEqualTo(1); // freed from exactly its word
    }

    @Test
    void aFreshLivePeerIsWaitedForAndCountedLive() {
        EpochBarrier barrier = create(2);
        int epoch = barrier.join();
        long fresh = System.nanoTime();
        plantPeer(1, ME, fresh);
        assertThat(barrier.livePeerCount()).isEqualTo(2);

        assertThatThrownBy(() -> barrier.await(epoch, SHORT))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("1 of 2 live participants arrived")
                .hasMessageContaining("slot 1 (PID " + ME);
        assertThat(ownerWord(1)).isEqualTo(OwnerRecord.ownerWord(ME, 1));
        assertThat(barrier.currentEpoch()).isEqualTo(epoch);
    }

    @Test
    void aDeadPeerWithAFreshHeartbeatIsDroppedByTheProbe() {
        EpochBarrier barrier = create(2);
        int epoch = barrier.join();
        plantPeer(1, DEAD_PID, System.nanoTime());

        barrier.await(epoch, LONG);

        assertThat(barrier.currentEpoch()).isEqualTo(epoch + 1);
        assertThat(OwnerRecord.pid(ownerWord(1))).isZero();
    }

    // ------------------------------------------------------------------ what counts

    @Test
    void anArrivalAtAnEarlierEpochDoesNotCountAndOneAtThisEpochDoes() {
        EpochBarrier barrier = create(2);
        raw.setIntVolatile(CURRENT_EPOCH_OFFSET, 5);
        int epoch = barrier.join();
        assertThat(epoch).isEqualTo(5);
        EpochBarrier peer = handle(2);
        peer.join();
        int peerGeneration = generation(peer.slot());

        plantArrival(peer.slot(), 4, peerGeneration);
        assertThatThrownBy(() -> barrier.await(epoch, SHORT))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("1 of 2 live participants arrived")
                .hasMessageContaining("last arrived at epoch 4");

        plantArrival(peer.slot(), 5, peerGeneration + 1); // another generation's arrival
        assertThatThrownBy(() -> barrier.await(epoch, SHORT))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("not arrived since joining");

        plantArrival(peer.slot(), 5, peerGeneration);
        barrier.await(epoch, LONG);
        assertThat(barrier.currentEpoch()).isEqualTo(6);
    }

    @Test
    void epochsPastTheSignBitCompareWithWrapAround() {
        EpochBarrier barrier = create(2);
        int high = 0xC000_0000; // negative as an int: an epoch late in the u32 range
        raw.setIntVolatile(CURRENT_EPOCH_OFFSET, high);
        int epoch = barrier.join();
        assertThat(epoch).isEqualTo(high);
        EpochBarrier peer = handle(2);
        assertThat(peer.join()).isEqualTo(high);

        assertThatThrownBy(() -> barrier.await(epoch, SHORT))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("epoch " + Integer.toUnsignedString(high));
        assertThat(barrier.currentEpoch()).isEqualTo(high);

        peer.await(epoch, LONG); // the first participant stays arrived
        assertThat(barrier.currentEpoch()).isEqualTo(high + 1);
    }

    // ------------------------------------------------------------------ beats

    @Test
    void arrivingRefreshesTheWaitersHeartbeat() {
        EpochBarrier barrier = create(2);
        int epoch = barrier.join();
        EpochBarrier peer = handle(2);
        peer.join();
        // Ten minutes old: still within the hour's grace, and no beat is due while waiting.
        OwnerRecord.beat(
                raw, record(barrier.slot()), System.nanoTime() - Duration.ofMinutes(10).toNanos());
        long before = System.nanoTime();

        assertThatThrownBy(() -> barrier.await(epoch, SHORT))
                .isInstanceOf(CxcTimeoutException.class);

        assertThat(heartbeat(barrier.slot()) - before).isNotNegative();
    }

    @Test
    void aWaiterKeepsBeatingWhileItWaits() {
        // A one-microsecond interval: a beat is due at almost every round of the wait; a grace
        // of Integer.MAX_VALUE intervals (about 35 min) keeps the silent peer from being dropped.
        EpochBarrier barrier = create(2, Duration.ofNanos(1_000), Integer.MAX_VALUE);
        int epoch = barrier.join();
        EpochBarrier peer = handle(2);
        peer.join();
        long before = System.nanoTime();

        assertThatThrownBy(() -> barrier.await(epoch, SHORT))
                .isInstanceOf(CxcTimeoutException.class);

        // The last rounds ran after the deadline, 100 ms on: they beat, the arrival alone did not.
        assertThat(heartbeat(barrier.slot()) - before).isGreaterThan(SHORT.toNanos() / 2);
    }

    // ------------------------------------------------------------------ dropped while waiting

    @Test
    void aWaiterWhoseSeatIsReleasedUnderItLearnsItWasDropped() throws Exception {
        EpochBarrier barrier = create(2);
        int epoch = barrier.join();
        EpochBarrier peer = handle(2);
        peer.join();
        int seat = barrier.slot();
        long word = ownerWord(seat);

        CompletableFuture<Void> waiting =
                CompletableFuture.runAsync(() -> barrier.await(epoch, LONG));
        await().atMost(Duration.ofSeconds(60)).until(() -> hasArrived(seat, epoch));
        assertThat(OwnerRecord.release(raw, record(seat), word)).isTrue();

        assertThat(failureOf(waiting))
                .isInstanceOf(SlotLostException.class)
                .hasMessageContaining("was dropped");
        assertThat(barrier.isParticipant()).isFalse();
        assertThat(barrier.slot()).isEqualTo(-1);
        assertThat(barrier.currentEpoch()).isEqualTo(epoch);
    }

    @Test
    void aWaiterDroppedAndThenReleasedByTheOthersLearnsItWasDropped() throws Exception {
        EpochBarrier barrier = create(2);
        int epoch = barrier.join();
        EpochBarrier peer = handle(2);
        peer.join();
        int seat = barrier.slot();

        CompletableFuture<Void> waiting =
                CompletableFuture.runAsync(() -> barrier.await(epoch, LONG));
        await().atMost(Duration.ofSeconds(60)).until(() -> hasArrived(seat, epoch));
        // Make the waiter look as if it had frozen before arriving: the peer's own wait drops it
        // and advances the epoch in one round.
        plantArrival(seat, epoch, generation(seat) + 1);
        OwnerRecord.beat(raw, record(seat), System.nanoTime() - Duration.ofHours(2).toNanos());
        peer.await(epoch, LONG);
        assertThat(peer.currentEpoch()).isEqualTo(epoch + 1);

        assertThat(failureOf(waiting))
                .isInstanceOf(SlotLostException.class)
                .hasMessageContaining("was dropped");
        assertThat(barrier.isParticipant()).isFalse();
        assertThat(peer.livePeerCount()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ edges

    @Test
    void anInterruptedWaiterStopsAndKeepsItsInterrupt() {
        EpochBarrier barrier = create(2);
        int epoch = barrier.join();
        handle(2).join();

        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> barrier.await(epoch, LONG))
                .isInstanceOf(CxcException.class)
                .isNotInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("interrupted while waiting at epoch " + epoch);
        assertThat(Thread.interrupted()).isTrue();
        assertThat(hasArrived(barrier.slot(), epoch)).isTrue(); // it stays arrived
    }

    @Test
    void aNegativeTimeoutIsRefusedAndAnEndlessOneIsAccepted() {
        EpochBarrier barrier = create(1);
        int epoch = barrier.join();

        assertThatThrownBy(() -> barrier.await(epoch, Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout must not be negative");
        assertThatThrownBy(() -> barrier.awaitQuorum(epoch, 1, Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(barrier.currentEpoch()).isEqualTo(epoch);

        barrier.await(epoch, Duration.ofSeconds(Long.MAX_VALUE)); // beyond toNanos(): clamped
        assertThat(barrier.currentEpoch()).isEqualTo(epoch + 1);
        barrier.await(epoch + 1, Duration.ZERO); // a lone participant needs no time at all
        assertThat(barrier.currentEpoch()).isEqualTo(epoch + 2);
    }

    @Test
    void leavingIsCountedOnlyForAParticipantAndFailsForADroppedOne() {
        EpochBarrier barrier = create(2);
        assertThat(barrier.leave()).isFalse();
        assertThat(barrier.opCounts()).containsEntry("unregister", 0L);

        barrier.join();
        long word = ownerWord(barrier.slot());
        assertThat(OwnerRecord.release(raw, record(barrier.slot()), word)).isTrue();
        assertThat(barrier.isParticipant()).isFalse();

        assertThat(barrier.leave()).isFalse();
        assertThat(barrier.opCounts()).containsEntry("unregister", 1L);
        assertThat(barrier.slot()).isEqualTo(-1);
    }
}
