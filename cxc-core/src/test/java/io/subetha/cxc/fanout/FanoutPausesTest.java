package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.HeldCodec;
import io.subetha.cxc.testing.HeldCodec.Side;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A close racing the handle's own submit or take (another thread held inside the codec, as a GC or
 * {@code SIGSTOP} would hold it): the record the slot names stays held until that operation ends,
 * and the last of them frees it; so a process that exits meanwhile leaves a slot a scan repairs,
 * never a head of level 7 that stops every level or a slot that keeps its level full.
 */
@Timeout(60)
class FanoutPausesTest {

    static final long PID = ProcessHandle.current().pid();
    static final int TOP = MAX_PRIORITIES - 1;

    @TempDir Path dir;
    Path path;
    final HeldCodec held = new HeldCodec();
    PriorityFanout<Long> other;
    PriorityFanout<Long> closing;
    AtomicBuffer raw;

    @BeforeEach
    void open() {
        path = dir.resolve("f.cxc");
        other =
                PriorityFanout.TYPE.create(
                        path,
                        new PriorityFanout.Settings<>(1, FixedCodec.INT64, Duration.ofDays(1)),
                        CxcFileOptions.defaults());
        closing = PriorityFanout.open(path, new PriorityFanout.Settings<>(1, held));
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        other.close();
        closing.close();
    }

    int slot(int priority) {
        return SLOTS_OFFSET + priority * slotStride(8);
    }

    long holderPid(int record) {
        return OwnerRecord.pid(OwnerRecord.ownerWord(raw, record));
    }

    @Test
    void aCloseRacingItsHandlesOwnSubmitKeepsTheRecordUntilTheSubmitEnds() {
        StepGate<Boolean> submitting = held.hold(Side.WRITE, () -> closing.trySubmit(TOP, 5L));
        long writing = raw.getLongVolatile(slot(TOP));
        assertThat(state(writing)).isEqualTo(WRITING);
        int record = participantOffset(participant(writing));

        closing.close();

        assertThat(holderPid(record)).isEqualTo(PID);
        assertThat(submitting.release()).isTrue();
        assertThat(holderPid(record)).isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(other.drainHighest(1)).containsExactly(5L);
    }

    @Test
    void aCloseRacingItsHandlesOwnDrainKeepsTheRecordUntilTheDrainEnds() {
        other.submit(TOP, 5L);
        StepGate<List<Long>> draining = held.hold(Side.READ, () -> closing.drainHighest(1));

        closing.close();

        int record = participantOffset(1); // the submitting handle holds record 0
        assertThat(holderPid(record)).isEqualTo(PID);
        assertThat(draining.release()).containsExactly(5L);
        assertThat(holderPid(record)).isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(other.trySubmit(TOP, 6L)).isTrue(); // the level has its room back
    }

    @Test
    void aSubmitAfterADrainReturnedItsItemFindsTheRoomItGaveBack() {
        Path two = dir.resolve("two.cxc");
        PriorityFanout.Settings<Long> settings =
                new PriorityFanout.Settings<>(2, FixedCodec.INT64, Duration.ofDays(1));
        try (PriorityFanout<Long> quick = PriorityFanout.TYPE.create(two, settings);
                PriorityFanout<Long> slow =
                        PriorityFanout.open(two, new PriorityFanout.Settings<>(2, held))) {
            quick.submit(0, 1L);
            quick.submit(0, 2L);
            StepGate<List<Long>> slowDrain = held.hold(Side.READ, () -> slow.drainHighest(1));

            List<Long> first = quick.drainHighest(1);

            // Whichever item it returned, that slot's room is back: no sequential ring of two
            // slots is full after two submits and a drain.
            assertThat(quick.trySubmit(0, 3L)).isTrue();
            List<Long> second = slowDrain.release();
            assertThat(first).hasSize(1);
            assertThat(second).hasSize(1);
            assertThat(List.of(first.get(0), second.get(0))).containsExactlyInAnyOrder(1L, 2L);
            assertThat(quick.drainHighest(2)).containsExactly(3L);
        }
    }
}
