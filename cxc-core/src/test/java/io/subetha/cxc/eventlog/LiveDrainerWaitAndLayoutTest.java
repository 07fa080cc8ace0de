package io.subetha.cxc.eventlog;

import static io.subetha.cxc.eventlog.EventStateLogDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live drainer's turn is waited for (seen parked, then taken once freed, under the next
 * generation), a reservation's owner record carries its sequence, the emitted count follows
 * reservations past a lagging cursor, an observer sees the counts and a reader seeks back, and the
 * layout's offsets, strides, keys and content words are the documented numbers.
 */
class LiveDrainerWaitAndLayoutTest {

    static final int CAPACITY = 4;
    static final int STRIDE = strideFor(8, 8);

    @TempDir Path dir;

    @Test
    void aLiveDrainersTurnIsWaitedForThenTakenUnderTheNextGeneration() throws Exception {
        Path path = dir.resolve("sum.cxc");
        try (EventStateLog<Long, Long> log =
                EventStateLog.TYPE.create(
                        path,
                        new EventStateLog.Settings<>(
                                CAPACITY, FixedCodec.INT64, FixedCodec.INT64, 0L))) {
            AtomicBuffer raw = RawBody.of(path);
            log.emit(6L);
            long held = OwnerRecord.ownerWord(Pids.current(), 4);
            raw.setLongVolatile(DRAIN_TURN_OFFSET + OwnerRecord.OWNER_WORD_OFFSET, held);
            CompletableFuture<Integer> drained = new CompletableFuture<>();
            Thread drainer =
                    new Thread(
                            () -> {
                                try {
                                    drained.complete(
                                            log.drainAndFold(Long::sum, Duration.ofSeconds(60)));
                                } catch (Throwable e) {
                                    drained.completeExceptionally(e);
                                }
                            },
                            "second-drainer");
            drainer.setDaemon(true);
            drainer.start();
            await().atMost(Duration.ofSeconds(60))
                    .until(
                            () ->
                                    drained.isDone()
                                            || drainer.getState() == Thread.State.TIMED_WAITING);
            assertThat(drained).as("took a live drainer's turn or gave up at once").isNotDone();
            assertThat(log.foldedCount()).isZero();

            raw.setLongVolatile(
                    DRAIN_TURN_OFFSET + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.freed(held));

            assertThat(drained.get(60, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(log.readCurrent()).isEqualTo(6);
            assertThat(OwnerRecord.ownerWord(raw, DRAIN_TURN_OFFSET))
                    .isEqualTo(OwnerRecord.ownerWord(0, 5));
            assertThat(log.opCounts())
                    .containsEntry("read_current", 1L)
                    .containsEntry("drain_fold", 1L);
        }
    }

    @Test
    void aReservationCarriesItsSequenceAndTheCountFollowsItPastALaggingCursor() {
        Path path = dir.resolve("sum.cxc");
        try (EventStateLog<Long, Long> log =
                EventStateLog.TYPE.create(
                        path,
                        new EventStateLog.Settings<>(
                                CAPACITY, FixedCodec.INT64, FixedCodec.INT64, 0L))) {
            AtomicBuffer raw = RawBody.of(path);
            for (long e = 0; e < 3; e++) {
                log.emit(e);
            }
            int slot2 = eventSlotOffset(2, CAPACITY, STRIDE);
            assertThat(OwnerRecord.heartbeat(raw, slot2)).isEqualTo(2); // the claim's heartbeat
            assertThat(OwnerRecord.ownerWord(raw, slot2))
                    .isEqualTo(OwnerRecord.ownerWord(Pids.current(), 1));
            // Sequence 3 reserved by an emitter that has not advanced the cursor from 3.
            raw.setLongVolatile(
                    eventSlotOffset(3, CAPACITY, STRIDE) + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(Pids.current(), 1));
            assertThat(raw.getLongVolatile(CURSOR_OFFSET)).isEqualTo(3);
            assertThat(log.emittedCount()).isEqualTo(4);
            assertThat(log.pendingCount()).isEqualTo(4);
            assertThat(log.tryEmit(9L)).isFalse(); // four pending: full
            assertThat(raw.getLongVolatile(CURSOR_OFFSET)).isEqualTo(4); // advanced for it
        }
    }

    @Test
    void anObserverSeesTheCountsAndAReaderSeeksBackToTheFirstEvent() {
        Path path = dir.resolve("sum.cxc");
        EventStateLog.TYPE
                .create(
                        path,
                        new EventStateLog.Settings<>(
                                CAPACITY, FixedCodec.INT64, FixedCodec.INT64, 0L))
                .close();
        try (var view = EventStateLog.TYPE.observe(path, CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("folded", 0L).containsEntry("drainerPid", 0L);
        }
        try (EventStateLog<Long, Long> log =
                EventStateLog.open(
                        path,
                        new EventStateLog.Settings<>(
                                CAPACITY, FixedCodec.INT64, FixedCodec.INT64, 0L))) {
            EventLogReader<Long> reader = log.reader(5);
            reader.seek(0);
            assertThat(reader.position()).isZero();
        }
    }

    @Test
    void theLayoutsNumbersAreTheDocumentedOnes() {
        assertThat(strideFor(8, 8)).isEqualTo(64);
        assertThat(strideFor(8, 100)).isEqualTo(128); // the state copy is the larger
        assertThat(strideFor(100, 8)).isEqualTo(192); // the event slot is the larger
        assertThat(strideFor(32, 56)).isEqualTo(64);
        assertThat(stateCopyOffset(0, 64)).isEqualTo(320);
        assertThat(stateCopyOffset(1, 64)).isEqualTo(384);
        assertThat(stateCopyOffset(2, 64)).isEqualTo(320);
        assertThat(eventSlotOffset(5, 4, 64)).isEqualTo(320 + 3 * 64);
        assertThat(doorbellOffset(4, 64)).isEqualTo(320 + 6 * 64);
        assertThat(bodyLength(4, 64)).isEqualTo(320 + 6 * 64 + 64 + 32 * 32);
        assertThat(lapKey(3, 4)).isEqualTo(1);
        assertThat(lapKey(9, 4)).isEqualTo(3);
        assertThat(lapKey(0xFFFF_FFFFL * 4, 4)).isEqualTo(1);
        assertThat(previousLapKey(3, 4)).isZero();
        assertThat(previousLapKey(9, 4)).isEqualTo(2);
        assertThat(committed(0)).isEqualTo(1);
        assertThat(gap(0)).isEqualTo(1 | GAP_BIT);
        assertThat(gap(41)).isEqualTo(42 | GAP_BIT);
    }
}
