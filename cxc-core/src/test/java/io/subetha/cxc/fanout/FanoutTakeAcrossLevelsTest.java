package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A take from a level below others it found empty stands only if they were still empty when it
 * reserved its item: each test holds one taker just after its reservation ({@link
 * Point#FANOUT_TAKE_RESERVED}) while another handle plays the process that commits a higher item,
 * takes the reserved one, or submits into the level the reservation keeps full. These are the
 * histories Lincheck found in the take that had no reservation ({@code
 * PriorityFanoutLinearizabilityTest}).
 */
class FanoutTakeAcrossLevelsTest {

    static final int CAPACITY = 2;

    @TempDir Path dir;
    PriorityFanout<Long> taker;
    PriorityFanout<Long> other;

    @BeforeEach
    void open() {
        Path path = dir.resolve("f.cxc");
        PriorityFanout.Settings<Long> settings =
                new PriorityFanout.Settings<>(CAPACITY, FixedCodec.INT64);
        taker = PriorityFanout.TYPE.create(path, settings);
        other = PriorityFanout.TYPE.open(path, settings);
    }

    @AfterEach
    void close() {
        taker.close();
        other.close();
    }

    @Test
    void anItemCommittedAboveBeforeTheReservationStoodIsTakenFirst() {
        other.submit(0, 4L);
        StepGate<List<Long>> take =
                StepGate.holdAt(Point.FANOUT_TAKE_RESERVED, () -> taker.drainHighest(1));

        other.submit(1, 2L); // completes while the take of 4 is only reserved

        assertThat(take.release()).containsExactly(2L);
        assertThat(other.drainHighest(1)).containsExactly(4L);
    }

    @Test
    void aClaimRestartsFromTheTopAndHoldsTheHigherLevel() {
        other.submit(0, 4L);
        StepGate<FanoutClaim<Long>> take =
                StepGate.holdAt(Point.FANOUT_TAKE_RESERVED, () -> taker.claimHighest(1));

        other.submit(6, 60L);

        FanoutClaim<Long> claim = take.release();
        assertThat(claim.items()).containsExactly(60L);
        assertThat(claim.priority()).isEqualTo(6);
        assertThat(claim.ack()).isTrue();
        assertThat(other.drainHighest(2)).containsExactly(4L);
    }

    @Test
    void anotherTakerUndoesAStalledReservationInsteadOfPassingItsItem() {
        other.submit(0, 1L);
        other.submit(0, 2L);
        StepGate<List<Long>> take =
                StepGate.holdAt(Point.FANOUT_TAKE_RESERVED, () -> taker.drainHighest(1));

        assertThat(other.drainHighest(2)).containsExactly(1L, 2L);

        assertThat(take.release()).isEmpty(); // its take was undone, and nothing is left
    }

    @Test
    void aSubmitIntoTheLevelAReservationKeepsFullUndoesItBeforeRefusing() {
        other.submit(0, 1L);
        other.submit(0, 2L);
        StepGate<List<Long>> take =
                StepGate.holdAt(Point.FANOUT_TAKE_RESERVED, () -> taker.drainHighest(1));

        // Full: the reservation is undone first, so the take it belonged to never happened.
        assertThat(other.trySubmit(0, 3L)).isFalse();

        assertThat(take.release()).containsExactly(1L); // taken again, after the refusal
        assertThat(other.trySubmit(0, 3L)).isTrue();
        assertThat(other.drainHighest(2)).containsExactly(2L, 3L);
    }

    @Test
    void aTakeFromTheHighestLevelOrFromALevelByNameReservesNothing() {
        other.submit(MAX_PRIORITIES - 1, 7L);
        other.submit(3, 3L);
        assertThatThrownBy(
                        () ->
                                StepGate.holdAt(
                                        Point.FANOUT_TAKE_RESERVED, () -> taker.drainHighest(1)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("without reaching");
        assertThatThrownBy(
                        () ->
                                StepGate.holdAt(
                                        Point.FANOUT_TAKE_RESERVED,
                                        () -> taker.drainPriority(3, 1)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("without reaching");
        assertThat(other.depth(MAX_PRIORITIES - 1) + other.depth(3)).isZero();
    }
}
