package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A joiner whose seat CAS loses: another process takes the seat between the joiner's judgement and
 * its CAS ({@link Point#JUDGED}). The loser is no participant of that seat and goes on to the next;
 * a join makes two passes (free seats, then reclaimable ones) and no more.
 */
class BarrierJoinRaceTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long ME = Pids.current();

    @TempDir Path dir;
    EpochBarrier barrier;

    @AfterEach
    void close() {
        if (barrier != null) {
            barrier.close();
        }
    }

    private AtomicBuffer create(int capacity) {
        Path path = dir.resolve("barrier.cxc");
        barrier = EpochBarrier.TYPE.create(path, new EpochBarrier.Settings(capacity));
        return RawBody.of(path);
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

    @Test
    void aFreeSeatTakenBeforeTheCasIsLeftToItsWinnerAndTheNextSeatIsJoined() {
        AtomicBuffer raw = create(2);
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
        AtomicBuffer raw = create(1);
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
