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
 * A registrant whose claim CAS loses: another process changes the slot's owner word between the
 * registrant's judgement and its CAS ({@link Point#JUDGED}). The loser writes nothing, holds
 * nothing, and goes on to the next slot or the next round; after {@code CLAIM_ROUNDS} lost rounds
 * the table counts as full.
 */
class HeartbeatClaimRaceTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long ME = Pids.current();

    @TempDir Path dir;
    Path path;
    HeartbeatTable table;

    @AfterEach
    void close() {
        if (table != null) {
            table.close();
        }
    }

    private AtomicBuffer create(int capacity) {
        path = dir.resolve("heartbeat.cxc");
        table = HeartbeatTable.TYPE.create(path, new HeartbeatTable.Settings(capacity));
        return RawBody.of(path);
    }

    private static int record(int slot) {
        return HeartbeatTableDescriptor.slotOffset(slot);
    }

    /**
     * Runs {@code interference} in this thread at each of the first {@code times} JUDGED points,
     * each time with the index of the slot the claimant judged last (the one whose word changed).
     */
    private static Interleaving.Installed interfere(int times, Runnable interference) {
        Thread me = Thread.currentThread();
        AtomicInteger left = new AtomicInteger(times);
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
    void aFreeSlotTakenBeforeTheCasIsLeftToItsWinnerAndTheNextSlotIsClaimed() {
        AtomicBuffer raw = create(2);
        long thief = OwnerRecord.ownerWord(ME, 1);
        int got;
        try (Interleaving.Installed race =
                interfere(1, () -> raw.compareAndSetLong(record(0), 0, thief))) {
            got = table.register(ME);
        }
        assertThat(got).isEqualTo(1);
        assertThat(OwnerRecord.ownerWord(raw, record(0))).isEqualTo(thief);
        // The loser holds nothing in slot 0: it can neither beat nor release the winner's slot.
        assertThatThrownBy(() -> table.beat(0)).isInstanceOf(IllegalStateException.class);
        assertThat(table.unregister(0)).isFalse();
        assertThat(OwnerRecord.ownerWord(raw, record(0))).isEqualTo(thief);
        table.beat(1);
    }

    @Test
    void aDeadOwnersSlotTakenBeforeTheCasIsLeftToItsWinnerAndTheNextIsReclaimed() {
        AtomicBuffer raw = create(2);
        for (int slot = 0; slot < 2; slot++) {
            OwnerRecord.claim(raw, record(slot), 0, OwnerRecord.ownerWord(DEAD_PID, 1), 0, () -> 0);
        }
        long thief = OwnerRecord.ownerWord(ME, 2);
        int got;
        try (Interleaving.Installed race =
                interfere(
                        1,
                        () ->
                                raw.compareAndSetLong(
                                        record(0), OwnerRecord.ownerWord(DEAD_PID, 1), thief))) {
            got = table.register(ME);
        }
        assertThat(got).isEqualTo(1);
        assertThat(OwnerRecord.ownerWord(raw, record(0))).isEqualTo(thief);
        assertThat(table.snapshot(1).orElseThrow().pid()).isEqualTo(ME);
        assertThat(table.unregister(0)).isFalse();
    }

    @Test
    void aRoundWhoseOnlyFreeSlotMovedOnIsRetriedAndTheSlotClaimedUnderItsNewKey() {
        AtomicBuffer raw = create(1);
        // Another process claimed and released it in between: free again, one generation on.
        long movedOn = OwnerRecord.freed(OwnerRecord.ownerWord(ME, 1));
        int got;
        try (Interleaving.Installed race =
                interfere(1, () -> raw.compareAndSetLong(record(0), 0, movedOn))) {
            got = table.register(ME);
        }
        assertThat(got).isZero();
        assertThat(table.snapshot(0).orElseThrow().generation()).isEqualTo(2);
        table.beat(0);
    }

    @Test
    void eightLostRoundsMakeAFullTableAndSevenDoNot() {
        AtomicBuffer raw = create(1);
        Runnable moveOn =
                () -> {
                    long word = OwnerRecord.ownerWord(raw, record(0));
                    raw.compareAndSetLong(
                            record(0),
                            word,
                            OwnerRecord.freed(
                                    OwnerRecord.ownerWord(ME, OwnerRecord.nextGeneration(word))));
                };
        try (Interleaving.Installed race = interfere(8, moveOn)) {
            assertThatThrownBy(() -> table.register(ME))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("all 1 slots");
        }
        assertThat(table.snapshot(0)).isEmpty();
        int got;
        try (Interleaving.Installed race = interfere(7, moveOn)) {
            got = table.register(ME);
        }
        assertThat(got).isZero();
        assertThat(table.snapshot(0).orElseThrow().generation()).isEqualTo(16);
    }

    @Test
    void judgingASnapshotRejectsANegativeGraceItself() {
        create(1);
        int slot = table.register(ME);
        HeartbeatSnapshot snapshot = table.snapshot(slot).orElseThrow();

        assertThatThrownBy(() -> table.status(snapshot, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("graceEpochs must be 0 or more, got -1");
    }
}
