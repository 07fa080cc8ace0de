package io.subetha.cxc.eventlog;

import static io.subetha.cxc.eventlog.EventStateLogDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The states another process (live, dead, or writing outside the protocol) can leave in a log,
 * planted word by word, and what the drain, the emitters, the state reads and a reader make of
 * each: a reservation whose cursor was not advanced, a slot key that is no lap, a read position
 * outside what was emitted, a generation moved under a drainer, a live drainer holding the turn, a
 * state or an event that does not decode, and the reader's gaps, freed and pending sequences.
 */
class PlantedLogStatesTest {

    static final int CAPACITY = 4;
    static final int STRIDE = strideFor(8, 8);

    @TempDir Path dir;
    Path path;
    EventStateLog<Long, Long> log;
    AtomicBuffer raw;

    @BeforeEach
    void create() {
        path = dir.resolve("sum.cxc");
        log =
                EventStateLog.TYPE.create(
                        path,
                        new EventStateLog.Settings<>(
                                CAPACITY, FixedCodec.INT64, FixedCodec.INT64, 0L));
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        log.close();
    }

    int slot(long sequence) {
        return eventSlotOffset(sequence, CAPACITY, STRIDE);
    }

    void plantOwner(long sequence, long pid) {
        raw.setLongVolatile(
                slot(sequence) + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(pid, lapKey(sequence, CAPACITY)));
    }

    int publishedCopy() {
        return stateCopyOffset(raw.getLongVolatile(GENERATION_OFFSET), STRIDE);
    }

    @Test
    void anEmitterAdvancesTheCursorPastAReservationWhoseEmitterHasNotYet() {
        log.emit(1L);
        plantOwner(1, Pids.current()); // reserved, cursor not advanced, not committed
        assertThat(raw.getLongVolatile(CURSOR_OFFSET)).isEqualTo(1);
        assertThat(log.emittedCount()).isEqualTo(2);

        log.emit(5L);

        assertThat(raw.getLongVolatile(CURSOR_OFFSET)).isEqualTo(3);
        assertThat(raw.getLongVolatile(slot(2) + CONTENT_OFFSET)).isEqualTo(committed(2));
        assertThat(raw.getLongVolatile(slot(1) + CONTENT_OFFSET)).isZero();
        assertThat(log.pendingCount()).isEqualTo(3);
        assertThat(log.opCounts()).containsEntry("emit", 2L);
    }

    @Test
    void aSlotKeyThatIsNoLapIsAFormatErrorNotAnEndlessSpin() {
        raw.setLongVolatile(slot(0) + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.ownerWord(0, 7));
        assertThatThrownBy(() -> log.emit(1L))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("slot of sequence 0 holds owner key 7, not a lap");
    }

    @Test
    void aReadPositionOutsideWhatWasEmittedIsAFormatErrorAndPublishesNothing() {
        log.emit(1L);
        long generation = raw.getLongVolatile(GENERATION_OFFSET);
        raw.setLongVolatile(publishedCopy() + POSITION_OFFSET, 2);
        assertThat(log.pendingCount()).isZero(); // never negative
        assertThat(log.describe()).containsEntry("pending", 0L).containsEntry("folded", 2L);
        assertThatThrownBy(() -> log.drainAndFold(Long::sum))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("read position 2 is outside 0..1 (emitted)");
        raw.setLongVolatile(publishedCopy() + POSITION_OFFSET, -1);
        assertThatThrownBy(() -> log.drainAndFold(Long::sum))
                .hasMessageContaining("read position -1 is outside 0..1 (emitted)");
        assertThat(raw.getLongVolatile(GENERATION_OFFSET)).isEqualTo(generation);
        assertThat(log.drainerPid()).isZero(); // the turn was released
        raw.setLongVolatile(publishedCopy() + POSITION_OFFSET, 1);
        assertThat(log.drainAndFold(Long::sum)).isZero();
        assertThat(log.readCurrent()).isZero();
    }

    @Test
    void aDrainWithNothingToFoldPublishesNothingAndOneWithOnlyAGapPublishesThePosition() {
        long generation = raw.getLongVolatile(GENERATION_OFFSET);
        assertThat(log.drainAndFold(Long::sum)).isZero();
        assertThat(raw.getLongVolatile(GENERATION_OFFSET)).isEqualTo(generation);
        assertThat(log.opCounts()).containsEntry("drain_fold", 1L);

        // A sequence whose emitter's event the codec refused: a gap, no event.
        plantOwner(0, Pids.current());
        raw.setLongVolatile(CURSOR_OFFSET, 1);
        raw.setLongRelease(slot(0) + CONTENT_OFFSET, gap(0));
        assertThat(log.drainAndFold(Long::sum)).isZero();
        assertThat(raw.getLongVolatile(GENERATION_OFFSET)).isEqualTo(generation + 1);
        assertThat(log.foldedCount()).isEqualTo(1);
        assertThat(log.gapCount()).isZero();
    }

    @Test
    void aCursorAheadOfAnyClaimStopsTheDrainWithoutMarkingAGap() {
        // Two sequences counted as emitted whose slots were never claimed (no protocol does this).
        raw.setLongVolatile(CURSOR_OFFSET, 2);
        assertThat(log.emittedCount()).isEqualTo(2);
        assertThat(log.drainAndFold(Long::sum)).isZero();
        assertThat(log.gapCount()).isZero();
        assertThat(log.foldedCount()).isZero();
        assertThat(raw.getLongVolatile(slot(0) + CONTENT_OFFSET)).isZero();
    }

    @Test
    void aGenerationMovedUnderADrainerIsAnErrorAndTheTurnIsReleased() {
        log.emit(1L);
        assertThatThrownBy(
                        () ->
                                log.drainAndFold(
                                        (s, e) -> {
                                            raw.getAndAddLong(GENERATION_OFFSET, 2);
                                            return s + e;
                                        }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("moved while this drainer held the drain turn");
        assertThat(log.drainerPid()).isZero();
    }

    @Test
    void aLiveDrainerHoldingTheTurnIsNamedWhenTheWaitEnds() {
        long self = Pids.current();
        raw.setLongVolatile(
                DRAIN_TURN_OFFSET + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.ownerWord(self, 5));
        assertThatThrownBy(() -> log.drainAndFold(Long::sum, Duration.ZERO))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessage(
                        "waited PT0S for the drain turn of "
                                + path
                                + ", held by live PID "
                                + self
                                + " (another thread of this process) since its claim (generation"
                                + " 5)");
        // Init never dies: a live holder that is another process.
        raw.setLongVolatile(
                DRAIN_TURN_OFFSET + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.ownerWord(1, 6));
        assertThatThrownBy(() -> log.drainAndFold(Long::sum, Duration.ZERO))
                .hasMessage(
                        "waited PT0S for the drain turn of "
                                + path
                                + ", held by live PID 1 since its claim (generation 6)");
        assertThat(log.drainerPid()).isEqualTo(1);
        // Freed (no PID, key kept): the next claim takes the next generation.
        raw.setLongVolatile(
                DRAIN_TURN_OFFSET + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.ownerWord(0, 6));
        log.setState(8L);
        assertThat(OwnerRecord.ownerWord(raw, DRAIN_TURN_OFFSET))
                .isEqualTo(OwnerRecord.ownerWord(0, 7));
        assertThat(log.readCurrent()).isEqualTo(8);
        assertThatThrownBy(() -> log.setState(null)).hasMessage("state must not be null");
    }

    @Test
    void aStateOrAnEventThatDoesNotDecodeIsAFormatError() {
        Path boolPath = dir.resolve("bool.cxc");
        try (EventStateLog<Boolean, Boolean> bools =
                EventStateLog.TYPE.create(
                        boolPath,
                        new EventStateLog.Settings<>(2, FixedCodec.BOOL, FixedCodec.BOOL, false))) {
            AtomicBuffer body = RawBody.of(boolPath);
            int stride = strideFor(1, 1);
            bools.emit(true);
            EventLogReader<Boolean> reader = bools.reader(0);
            body.putByte(eventSlotOffset(0, 2, stride) + EVENT_OFFSET, (byte) 7);
            assertThatThrownBy(() -> reader.poll(e -> {})).isInstanceOf(CxcFormatException.class);
            assertThat(reader.position()).isZero();
            body.putByte(
                    stateCopyOffset(body.getLongVolatile(GENERATION_OFFSET), stride) + STATE_OFFSET,
                    (byte) 9);
            assertThatThrownBy(bools::readCurrent).isInstanceOf(CxcFormatException.class);
        }
    }

    @Test
    void aReaderSkipsGapsAndFreedSequencesAndStopsAtOnePendingOrNotYetReserved() {
        List<Long> seen = new ArrayList<>();
        EventLogReader<Long> reader = log.reader();
        log.emit(1L);
        // 1: a gap; 2: freed by a drainer killed before marking it; 3: reserved, pending.
        plantOwner(1, Pids.current());
        raw.setLongRelease(slot(1) + CONTENT_OFFSET, gap(1));
        raw.setLongVolatile(
                slot(2) + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(OwnerRecord.NO_OWNER, lapKey(2, CAPACITY)));
        plantOwner(3, Pids.current());
        raw.setLongVolatile(CURSOR_OFFSET, 4);

        assertThat(reader.poll(seen::add)).isEqualTo(1);
        assertThat(seen).containsExactly(1L);
        assertThat(reader.position()).isEqualTo(3);

        FixedCodec.INT64.write(raw, slot(3) + EVENT_OFFSET, 4L);
        raw.setLongRelease(slot(3) + CONTENT_OFFSET, committed(3));
        assertThat(reader.poll(seen::add)).isEqualTo(1);
        assertThat(reader.position()).isEqualTo(4);
        // 4 is the next lap of slot 0 and not reserved: nothing yet, position kept.
        assertThat(reader.poll(seen::add)).isZero();
        assertThat(reader.position()).isEqualTo(4);
        assertThat(log.oldestRetained()).isZero();
        assertThat(log.reader().position()).isZero();
    }

    @Test
    void aReaderStopsAtItsLimitAndKeepsItsPositionAtAnEventItsConsumerRefused() {
        for (long e = 1; e <= 3; e++) {
            log.emit(e);
        }
        EventLogReader<Long> reader = log.reader(0);
        List<Long> seen = new ArrayList<>();
        assertThat(reader.poll(seen::add, 2)).isEqualTo(2);
        assertThat(reader.position()).isEqualTo(2);
        assertThatThrownBy(
                        () ->
                                reader.poll(
                                        e -> {
                                            throw new IllegalStateException("refused " + e);
                                        }))
                .hasMessage("refused 3");
        assertThat(reader.position()).isEqualTo(2);
        assertThatThrownBy(() -> reader.poll(seen::add, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be 1 or more, got 0");
        assertThatThrownBy(() -> reader.seek(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sequence must be 0 or more, got -1");
        reader.seek(1);
        assertThat(reader.poll(seen::add, 1)).isEqualTo(1);
        assertThat(seen).containsExactly(1L, 2L, 2L);
        assertThatThrownBy(() -> log.reader(-1))
                .hasMessage("fromSequence must be 0 or more, got -1");
    }

    @Test
    void aReaderFarBehindALaterLapIsToldWhereToGoOn() {
        for (int lap = 0; lap < 2; lap++) {
            for (long e = 0; e < CAPACITY; e++) {
                log.emit(e);
            }
            log.drainAndFold(Long::sum);
        }
        log.emit(9L);
        assertThat(log.emittedCount()).isEqualTo(9);
        assertThat(log.oldestRetained()).isEqualTo(5);
        assertThat(log.reader().position()).isEqualTo(5);
        EventLogReader<Long> behind = log.reader(3); // slot 3 holds sequence 7 now
        assertThatThrownBy(() -> behind.poll(e -> {}))
                .isInstanceOfSatisfying(
                        EventsOverwrittenException.class,
                        e -> {
                            assertThat(e.wanted()).isEqualTo(3);
                            assertThat(e.firstAvailable()).isEqualTo(6);
                        });
        assertThat(behind.position()).isEqualTo(3);
    }
}
