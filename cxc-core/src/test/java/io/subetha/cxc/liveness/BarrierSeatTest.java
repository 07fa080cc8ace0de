package io.subetha.cxc.liveness;

import static io.subetha.cxc.liveness.HeartbeatTableTest.DEAD_PID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
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
 * A barrier seat from join to leave: a free seat before a dead participant's, the seat in slot 0 is
 * a seat like any other, a lone participant's arrival advances the epoch, and a quorum must be one
 * of the seats.
 */
class BarrierSeatTest {

    @TempDir Path dir;
    Path path;
    final List<EpochBarrier> handles = new ArrayList<>();

    @BeforeEach
    void create() {
        path = dir.resolve("barrier.cxc");
        handles.add(EpochBarrier.TYPE.create(path, new EpochBarrier.Settings(2)));
    }

    @AfterEach
    void close() {
        handles.forEach(EpochBarrier::close);
    }

    private EpochBarrier handle() {
        EpochBarrier handle = EpochBarrier.TYPE.open(path, new EpochBarrier.Settings(2));
        handles.add(handle);
        return handle;
    }

    /** What a participant killed right after its join leaves in seat {@code slot}. */
    private void plantDeadParticipant(int slot) {
        AtomicBuffer raw = RawBody.of(path);
        int record = EpochBarrierDescriptor.slotOffset(slot);
        OwnerRecord.claim(raw, record, 0, OwnerRecord.ownerWord(DEAD_PID, 1), 0, System::nanoTime);
    }

    @Test
    void theSeatInSlotZeroIsJoinedLeftAndRejoinedLikeAnyOther() {
        EpochBarrier first = handles.get(0);
        assertThat(first.join()).isZero();
        assertThat(first.slot()).isZero();
        assertThat(first.isParticipant()).isTrue();
        assertThatThrownBy(first::join)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already joined")
                .hasMessageContaining("slot 0");

        assertThat(first.leave()).isTrue();
        assertThat(first.isParticipant()).isFalse();
        assertThat(first.leave()).isFalse();
        assertThat(first.livePeerCount()).isZero();
        assertThat(first.join()).isZero();
        assertThat(first.slot()).isZero();
    }

    @Test
    void aFreeSeatIsTakenBeforeADeadParticipantsSeat() {
        plantDeadParticipant(0);
        EpochBarrier joiner = handle();

        joiner.join();
        assertThat(joiner.slot()).isEqualTo(1);

        EpochBarrier next = handle();
        next.join(); // no free seat left: the dead participant's is reclaimed
        assertThat(next.slot()).isZero();
        assertThat(next.livePeerCount()).isEqualTo(2);

        assertThatThrownBy(() -> handle().join())
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("all 2 participant slots");
    }

    @Test
    void aLoneParticipantsArrivalAdvancesTheEpoch() {
        EpochBarrier lone = handles.get(0);
        int epoch = lone.join();

        lone.await(epoch, Duration.ofSeconds(60));
        assertThat(lone.currentEpoch()).isEqualTo(epoch + 1);
        lone.awaitQuorum(epoch + 1, 1, Duration.ofSeconds(60));
        assertThat(lone.currentEpoch()).isEqualTo(epoch + 2);
        assertThat(lone.isParticipant()).isTrue();
    }

    @Test
    void aQuorumMustBeOneOfTheSeats() {
        EpochBarrier lone = handles.get(0);
        int epoch = lone.join();

        for (int quorum : new int[] {0, 3}) {
            assertThatThrownBy(() -> lone.awaitQuorum(epoch, quorum, Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("quorum must be 1..2")
                    .hasMessageContaining("got " + quorum);
        }
        // 2 is a valid quorum: with one participant it is simply not reached
        assertThatThrownBy(() -> lone.awaitQuorum(epoch, 2, Duration.ofMillis(1)))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("1 of a quorum of 2 arrived");
        assertThat(lone.currentEpoch()).isEqualTo(epoch);
    }
}
