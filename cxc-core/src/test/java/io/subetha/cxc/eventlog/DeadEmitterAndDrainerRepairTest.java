package io.subetha.cxc.eventlog;

import static io.subetha.cxc.eventlog.EventStateLogDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

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
 * The drainer's repairs, each crash state planted in the file as a killed process leaves it: a dead
 * emitter's reservation becomes a gap (and only once), a dead emitter's committed event is folded,
 * a reservation freed by a drainer killed before marking it becomes a gap, a live emitter's
 * reservation holds the drain, and a dead drainer's turn is taken at once under the next
 * generation.
 */
class DeadEmitterAndDrainerRepairTest {

    /** A PID no process can have (above every kernel's pid_max): always provably dead. */
    static final long DEAD_PID = Pids.MAX_PID - 1;

    static final int CAPACITY = 8;
    static final int STRIDE = strideFor(8, 8);

    @TempDir Path dir;
    EventStateLog<Long, Long> log;
    AtomicBuffer raw;
    final List<Long> folded = new ArrayList<>();

    @BeforeEach
    void create() {
        Path path = dir.resolve("sum.cxc");
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

    long sum(long state, long event) {
        folded.add(event);
        return state + event;
    }

    /** The owner word a process of {@code pid} wrote when it reserved {@code sequence}. */
    void reserve(long sequence, long pid) {
        raw.setLongVolatile(
                eventSlotOffset(sequence, CAPACITY, STRIDE) + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(pid, lapKey(sequence, CAPACITY)));
        raw.setLongVolatile(CURSOR_OFFSET, sequence + 1);
    }

    void commit(long sequence, long event) {
        int slot = eventSlotOffset(sequence, CAPACITY, STRIDE);
        FixedCodec.INT64.write(raw, slot + EVENT_OFFSET, event);
        raw.setLongRelease(slot + CONTENT_OFFSET, committed(sequence));
    }

    long content(long sequence) {
        return raw.getLongVolatile(eventSlotOffset(sequence, CAPACITY, STRIDE) + CONTENT_OFFSET);
    }

    long owner(long sequence) {
        return OwnerRecord.ownerWord(raw, eventSlotOffset(sequence, CAPACITY, STRIDE));
    }

    @Test
    void aDeadEmittersReservationBecomesAGapAndTheEventsAfterItAreFolded() {
        log.emit(1L);
        reserve(1, DEAD_PID); // killed between the claim and the content word
        log.emit(3L);
        assertThat(log.emittedCount()).isEqualTo(3);

        assertThat(log.drainAndFold(this::sum)).isEqualTo(2);

        assertThat(folded).containsExactly(1L, 3L);
        assertThat(log.readCurrent()).isEqualTo(4);
        assertThat(log.foldedCount()).isEqualTo(3);
        assertThat(log.gapCount()).isEqualTo(1);
        assertThat(content(1)).isEqualTo(gap(1));
        assertThat(OwnerRecord.pid(owner(1))).isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(OwnerRecord.key(owner(1))).isEqualTo(lapKey(1, CAPACITY));
        assertThat(log.drainAndFold(this::sum)).isZero();
        assertThat(log.gapCount()).isEqualTo(1);
        assertThat(log.describe()).containsEntry("gaps", 1L);
    }

    @Test
    void aDeadEmittersCommittedEventIsFoldedNotTurnedIntoAGap() {
        reserve(0, DEAD_PID);
        commit(0, 5L); // committed, then killed before anything else

        assertThat(log.drainAndFold(this::sum)).isEqualTo(1);

        assertThat(folded).containsExactly(5L);
        assertThat(log.gapCount()).isZero();
        assertThat(content(0)).isEqualTo(committed(0));
    }

    @Test
    void aReservationFreedByADrainerKilledBeforeMarkingItBecomesAGap() {
        reserve(0, DEAD_PID);
        // The dead drainer's release left the lap's key with no PID, then it was killed.
        raw.setLongVolatile(
                eventSlotOffset(0, CAPACITY, STRIDE) + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.freed(owner(0)));
        log.emit(2L);

        assertThat(log.drainAndFold(this::sum)).isEqualTo(1);

        assertThat(folded).containsExactly(2L);
        assertThat(log.gapCount()).isEqualTo(1);
        assertThat(content(0)).isEqualTo(gap(0));
        assertThat(log.foldedCount()).isEqualTo(2);
    }

    @Test
    void aLiveEmittersReservationHoldsTheDrainUntilItCommits() {
        log.emit(1L);
        reserve(1, Pids.current()); // a live emitter between its claim and its content word
        log.emit(4L);

        assertThat(log.drainAndFold(this::sum)).isEqualTo(1);
        assertThat(folded).containsExactly(1L);
        assertThat(log.foldedCount()).isEqualTo(1);
        assertThat(log.pendingCount()).isEqualTo(2);
        assertThat(log.gapCount()).isZero();
        assertThat(OwnerRecord.pid(owner(1))).isEqualTo(Pids.current());

        commit(1, 2L);
        assertThat(log.drainAndFold(this::sum)).isEqualTo(2);
        assertThat(folded).containsExactly(1L, 2L, 4L);
        assertThat(log.readCurrent()).isEqualTo(7);
        assertThat(log.pendingCount()).isZero();
    }

    @Test
    void aDeadDrainersTurnIsTakenAtOnceUnderTheNextGeneration() {
        long deadTurn = OwnerRecord.ownerWord(DEAD_PID, 7);
        raw.setLongVolatile(DRAIN_TURN_OFFSET + OwnerRecord.OWNER_WORD_OFFSET, deadTurn);
        assertThat(log.drainerPid()).isEqualTo(DEAD_PID);
        log.emit(9L);

        // A live holder would be waited for; a dead one is not (a zero wait would time out).
        assertThat(log.drainAndFold(this::sum, Duration.ZERO)).isEqualTo(1);

        assertThat(log.readCurrent()).isEqualTo(9);
        long after = OwnerRecord.ownerWord(raw, DRAIN_TURN_OFFSET);
        assertThat(OwnerRecord.pid(after)).isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(OwnerRecord.key(after)).isEqualTo(8);
        assertThat(log.drainerPid()).isZero();
    }

    @Test
    void setStateTakesADeadDrainersTurnAndKeepsThePosition() {
        log.emit(3L);
        log.drainAndFold(this::sum);
        raw.setLongVolatile(
                DRAIN_TURN_OFFSET + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(DEAD_PID, 2));
        long generation = raw.getLongVolatile(GENERATION_OFFSET);

        log.setState(100L);

        assertThat(log.readCurrent()).isEqualTo(100);
        assertThat(log.foldedCount()).isEqualTo(1);
        assertThat(raw.getLongVolatile(GENERATION_OFFSET)).isEqualTo(generation + 1);
        assertThat(OwnerRecord.key(OwnerRecord.ownerWord(raw, DRAIN_TURN_OFFSET))).isEqualTo(3);
    }
}
