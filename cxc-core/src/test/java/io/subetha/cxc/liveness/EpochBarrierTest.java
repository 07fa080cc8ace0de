package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.process.Pids;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several participants in one JVM: each handle on the file is one participant. */
class EpochBarrierTest {

    @TempDir Path dir;
    Path path;
    final List<EpochBarrier> handles = new ArrayList<>();

    /**
     * The shared file's grace: one minute, so a participant the test leaves idle (it arrives when
     * the test says, not on a clock) is never dropped as silent however long the loaded machine
     * stalls the test; the tests of the grace itself make their own files.
     */
    static final Duration IDLE_GRACE_INTERVAL = Duration.ofSeconds(1);

    static final int IDLE_GRACE_EPOCHS = 60;

    @BeforeEach
    void create() {
        path = dir.resolve("barrier.cxc");
        handles.add(
                EpochBarrier.TYPE.create(
                        path,
                        new EpochBarrier.Settings(4, IDLE_GRACE_INTERVAL, IDLE_GRACE_EPOCHS),
                        CxcFileOptions.defaults()));
    }

    @AfterEach
    void close() {
        handles.forEach(EpochBarrier::close);
    }

    EpochBarrier participant() {
        EpochBarrier handle = EpochBarrier.TYPE.open(path, new EpochBarrier.Settings(4));
        handles.add(handle);
        handle.join();
        return handle;
    }

    static CompletableFuture<Void> inBackground(Runnable wait) {
        return CompletableFuture.runAsync(wait);
    }

    @Test
    void releasesOnlyWhenEveryParticipantHasArrived() throws Exception {
        EpochBarrier a = participant();
        EpochBarrier b = participant();
        EpochBarrier c = participant();
        int epoch = a.currentEpoch();
        assertThat(a.livePeerCount()).isEqualTo(3);

        CompletableFuture<Void> first = inBackground(() -> a.await(epoch));
        CompletableFuture<Void> second = inBackground(() -> b.await(epoch));
        await().during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(60))
                .until(() -> !first.isDone() && !second.isDone() && a.currentEpoch() == epoch);

        await().atMost(Duration.ofSeconds(60))
                .until(
                        () ->
                                c.participants().stream()
                                        .map(p -> p.lastArrivedEpoch().isPresent())
                                        .toList(),
                        arrived -> arrived.equals(List.of(true, true, false)));
        c.await(epoch, Duration.ofSeconds(60));

        first.get(60, TimeUnit.SECONDS);
        second.get(60, TimeUnit.SECONDS);
        assertThat(c.currentEpoch()).isEqualTo(epoch + 1);
        assertThat(a.opCounts()).containsEntry("wait", 1L);
    }

    @Test
    void phasesFollowOneAnother() throws Exception {
        EpochBarrier a = participant();
        EpochBarrier b = participant();
        int start = a.currentEpoch();
        CompletableFuture<Void> other =
                inBackground(
                        () -> {
                            for (int e = start; e < start + 50; e++) {
                                b.await(e, Duration.ofSeconds(60));
                            }
                        });
        for (int e = start; e < start + 50; e++) {
            a.await(e, Duration.ofSeconds(60));
        }
        other.get(60, TimeUnit.SECONDS);
        assertThat(a.currentEpoch()).isEqualTo(start + 50);
    }

    @Test
    void quorumReleasesWithoutTheRestWhoThenPassAtOnce() throws Exception {
        EpochBarrier a = participant();
        EpochBarrier b = participant();
        EpochBarrier c = participant();
        int epoch = a.currentEpoch();

        CompletableFuture<Void> first = inBackground(() -> a.awaitQuorum(epoch, 2));
        b.awaitQuorum(epoch, 2, Duration.ofSeconds(60));
        first.get(60, TimeUnit.SECONDS);
        assertThat(a.currentEpoch()).isEqualTo(epoch + 1);

        c.await(epoch, Duration.ofMillis(1)); // passed without it: returns at once
        assertThatThrownBy(() -> c.await(epoch))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stale epoch");
    }

    @Test
    void timeoutNamesTheParticipantThatHasNotArrived() {
        EpochBarrier a = participant();
        EpochBarrier missing = participant();
        int epoch = a.currentEpoch();

        assertThatThrownBy(() -> a.await(epoch, Duration.ofMillis(100)))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("epoch " + epoch)
                .hasMessageContaining("1 of 2 live participants arrived")
                .hasMessageContaining("slot " + missing.slot() + " (PID " + Pids.current())
                .hasMessageContaining("not arrived since joining");

        // Still arrived: the retry is released as soon as the missing one comes.
        CompletableFuture<Void> retry = inBackground(() -> a.await(epoch));
        missing.await(epoch, Duration.ofSeconds(60));
        assertThat(retry).succeedsWithin(Duration.ofSeconds(60));
    }

    @Test
    void staleAndFutureEpochsAreClearErrors() {
        EpochBarrier a = participant();
        int epoch = a.currentEpoch();
        assertThatThrownBy(() -> a.await(epoch + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("future epoch " + (epoch + 1));
        a.await(epoch, Duration.ofSeconds(60)); // alone: released at once
        assertThatThrownBy(() -> a.await(epoch))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stale epoch " + epoch)
                .hasMessageContaining("pass " + (epoch + 1));
        assertThatThrownBy(() -> a.awaitQuorum(epoch + 1, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("quorum must be 1..4");
    }

    @Test
    void aSilentParticipantIsDroppedAfterTheGraceAndTheOthersGoOn() {
        Path fast = dir.resolve("fast.cxc");
        EpochBarrier a =
                EpochBarrier.TYPE.create(
                        fast,
                        new EpochBarrier.Settings(4, Duration.ofMillis(50), 3),
                        CxcFileOptions.defaults());
        EpochBarrier silent = EpochBarrier.TYPE.open(fast, new EpochBarrier.Settings(4));
        handles.add(a);
        handles.add(silent);
        int epoch = a.join();
        long joined = System.nanoTime();
        silent.join(); // and never heard of again

        a.await(epoch, Duration.ofSeconds(60));
        long waitedMillis = (System.nanoTime() - joined) / 1_000_000;

        assertThat(a.grace()).isEqualTo(Duration.ofMillis(150));
        assertThat(waitedMillis).isGreaterThanOrEqualTo(150); // not before the grace ran out
        assertThat(a.currentEpoch()).isEqualTo(epoch + 1);
        // Its slot is free again; only the one left joined (whose own heartbeat may be older
        // than the short grace by now on a loaded machine: livePeerCount would say 0 then).
        assertThat(a.participants()).extracting(BarrierParticipant::slot).containsExactly(a.slot());
        assertThat(silent.isParticipant()).isFalse();
        assertThatThrownBy(() -> silent.await(epoch))
                .isInstanceOf(SlotLostException.class)
                .hasMessageContaining("dropped")
                .hasMessageContaining("join() again");
        assertThat(silent.join()).isEqualTo(epoch + 1);
    }

    @Test
    void aBeatingParticipantIsWaitedFor() throws Exception {
        // A stall of the loaded machine longer than the grace between two of the test thread's
        // beats makes a drop legitimate: such a run proves nothing and is run again.
        for (int run = 0; run < 5; run++) {
            if (aBeatingParticipantIsWaitedFor(dir.resolve("fast-" + run + ".cxc"))) {
                return;
            }
        }
        throw new AssertionError("every run saw the beating thread stalled longer than the grace");
    }

    /** One run: false if it was inconclusive (a gap between heartbeats of the grace or more). */
    boolean aBeatingParticipantIsWaitedFor(Path fast) throws Exception {
        EpochBarrier a =
                EpochBarrier.TYPE.create(
                        fast,
                        new EpochBarrier.Settings(4, Duration.ofMillis(100), 5),
                        CxcFileOptions.defaults());
        EpochBarrier busy = EpochBarrier.TYPE.open(fast, new EpochBarrier.Settings(4));
        handles.add(a);
        handles.add(busy);
        int epoch = a.join();
        long grace = a.grace().toNanos();
        // Each heartbeat is stamped inside its call: between the time before it and after it.
        long previous = System.nanoTime();
        busy.join();
        CompletableFuture<Void> waiting = inBackground(() -> a.await(epoch));
        long end = previous + 3 * grace; // three times the 500 ms grace
        long longestGap = 0;
        while (true) {
            long before = System.nanoTime();
            busy.beat();
            longestGap = Math.max(longestGap, System.nanoTime() - previous);
            previous = before;
            if (before - end > 0) {
                break;
            }
            LockSupport.parkNanos(grace / 25); // a beat every 20 ms: the pace, not a wait
        }
        boolean released = waiting.isDone();
        boolean participant = busy.isParticipant();
        longestGap = Math.max(longestGap, System.nanoTime() - previous);
        SlotLostException dropped = null;
        try {
            busy.await(epoch, Duration.ofSeconds(60)); // its arrival is its last heartbeat
        } catch (SlotLostException e) {
            dropped = e;
        }
        longestGap = Math.max(longestGap, System.nanoTime() - previous);
        assertThat(waiting).succeedsWithin(Duration.ofSeconds(60));
        if (longestGap >= grace) {
            return false;
        }
        assertThat(released).isFalse();
        assertThat(participant).isTrue();
        assertThat(dropped).isNull();
        return true;
    }

    @Test
    void leavingReleasesTheWaiters() {
        EpochBarrier a = participant();
        EpochBarrier leaving = participant();
        int epoch = a.currentEpoch();
        CompletableFuture<Void> waiting = inBackground(() -> a.await(epoch));
        assertThat(leaving.leave()).isTrue();
        assertThat(waiting).succeedsWithin(Duration.ofSeconds(60));
        assertThat(leaving.isParticipant()).isFalse();
    }

    @Test
    void aCorruptGraceIsRefusedOnOpen() throws Exception {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            channel.write(
                    ByteBuffer.allocate(4),
                    HeaderDescriptor.HEADER_LENGTH + EpochBarrierDescriptor.GRACE_EPOCHS_OFFSET);
        }
        assertThatThrownBy(() -> EpochBarrier.TYPE.open(path, new EpochBarrier.Settings(4)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("grace of 0 epochs")
                .hasMessageContaining("left untouched");
    }

    @Test
    void capacityIsBoundedAndCheckedOnOpen() {
        for (int i = 0; i < 4; i++) {
            participant();
        }
        EpochBarrier fifth = EpochBarrier.TYPE.open(path, new EpochBarrier.Settings(4));
        handles.add(fifth);
        assertThatThrownBy(fifth::join)
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("all 4 participant slots");
        assertThatThrownBy(() -> EpochBarrier.TYPE.open(path, new EpochBarrier.Settings(3)))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("created with capacity 4");
        assertThatThrownBy(
                        () ->
                                EpochBarrier.TYPE.create(
                                        dir.resolve("x.cxc"), new EpochBarrier.Settings(0)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(
                        () ->
                                EpochBarrier.TYPE.create(
                                        dir.resolve("y.cxc"), new EpochBarrier.Settings(2000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("IN_FLIGHT_SLOTS");
        assertThatThrownBy(() -> fifth.await(0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("join() first");
    }
}
