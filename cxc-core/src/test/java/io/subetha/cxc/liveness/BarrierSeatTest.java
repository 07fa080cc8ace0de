package io.subetha.cxc.liveness;

import static io.subetha.cxc.liveness.HeartbeatTableTest.DEAD_PID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A barrier seat from join to leave: a free seat before a dead participant's, the seat in slot 0 is
 * a seat like any other, a lone participant's arrival advances the epoch, and a quorum must be one
 * of the seats. And a joiner whose seat CAS loses (another process takes the seat between the
 * joiner's judgement and its CAS, {@link Point#JUDGED}): the loser is no participant of that seat
 * and goes on to the next; a join makes two passes (free seats, then reclaimable ones) and no more.
 */
class BarrierSeatTest {

    static final long ME = Pids.current();

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

    /** A barrier of {@code capacity} seats beside the shared one, for a race on its seats. */
    private EpochBarrier raced(int capacity) {
        EpochBarrier barrier =
                EpochBarrier.TYPE.create(
                        dir.resolve("raced.cxc"), new EpochBarrier.Settings(capacity));
        handles.add(barrier);
        return barrier;
    }

    private static int record(int slot) {
        return EpochBarrierDescriptor.slotOffset(slot);
    }

    private static Interleaving.Installed interfereOnce(Runnable interference) {
        Thread me = Thread.currentThread();
        AtomicInteger left = new AtomicInteger(1);
        return Interleaving.install(
                point -> {
                    if (point == Point.JUDGED
                            && Thread.currentThread() == me
                            && left.getAndDecrement() > 0) {
                        interference.run();
                    }
                });
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

    @Test
    void aFreeSeatTakenBeforeTheCasIsLeftToItsWinnerAndTheNextSeatIsJoined() {
        EpochBarrier barrier = raced(2);
        AtomicBuffer raw = RawBody.of(barrier.file());
        long thief = OwnerRecord.ownerWord(ME, 1);
        try (Interleaving.Installed race =
                interfereOnce(
                        () -> {
                            raw.compareAndSetLong(record(0), 0, thief);
                            OwnerRecord.beat(raw, record(0), System.nanoTime());
                        })) {
            barrier.join();
        }
        assertThat(barrier.slot()).isEqualTo(1);
        assertThat(barrier.isParticipant()).isTrue();
        assertThat(OwnerRecord.ownerWord(raw, record(0))).isEqualTo(thief);
        assertThat(OwnerRecord.key(OwnerRecord.ownerWord(raw, record(1)))).isEqualTo(1);
    }

    @Test
    void aJoinMakesTwoPassesSoASeatLostInTheSecondIsAFullBarrier() {
        EpochBarrier barrier = raced(1);
        AtomicBuffer raw = RawBody.of(barrier.file());
        OwnerRecord.claim(
                raw, record(0), 0, OwnerRecord.ownerWord(DEAD_PID, 1), 0, System::nanoTime);
        // In the second pass the dead participant's seat goes to another dead one before the CAS.
        long anotherDead = OwnerRecord.ownerWord(DEAD_PID, 2);
        try (Interleaving.Installed race =
                interfereOnce(
                        () ->
                                raw.compareAndSetLong(
                                        record(0),
                                        OwnerRecord.ownerWord(DEAD_PID, 1),
                                        anotherDead))) {
            assertThatThrownBy(barrier::join)
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("all 1 participant slots");
        }
        assertThat(barrier.slot()).isEqualTo(-1);
        assertThat(barrier.isParticipant()).isFalse();
        assertThat(OwnerRecord.ownerWord(raw, record(0))).isEqualTo(anotherDead);

        barrier.join(); // no race now: the dead participant's seat is reclaimed
        assertThat(barrier.slot()).isZero();
        assertThat(OwnerRecord.key(OwnerRecord.ownerWord(raw, record(0)))).isEqualTo(3);
    }
}
