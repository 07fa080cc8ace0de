package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A heartbeat slot's ownership from claim to loss: a free slot before a reclaimable one, what a
 * claim writes, who may beat and release, and what the handle that lost its slot learns.
 */
class HeartbeatSlotOwnershipTest {

    /** A PID no process can have (above every kernel's pid_max): always provably dead. */
    static final long DEAD_PID = Pids.MAX_PID - 1;

    static final long ME = Pids.current();

    @TempDir Path dir;
    Path path;
    HeartbeatTable table;

    @BeforeEach
    void create() {
        path = dir.resolve("heartbeat.cxc");
        table = HeartbeatTable.TYPE.create(path, new HeartbeatTable.Settings(4));
    }

    @AfterEach
    void close() {
        table.close();
    }

    @Test
    void aFreeSlotIsTakenBeforeADeadOwnersSlot() {
        int dead = table.register(DEAD_PID);
        assertThat(dead).isZero();

        assertThat(table.register(ME)).isEqualTo(1);
        assertThat(table.snapshot(0).orElseThrow().pid()).isEqualTo(DEAD_PID);
    }

    @Test
    void aClaimRecordsTheEpochItRegisteredAtAndAFreshBeat() {
        table.tickGlobalEpoch();
        table.tickGlobalEpoch();
        long before = System.nanoTime();

        int slot = table.register(ME);

        HeartbeatSnapshot snapshot = table.snapshot(slot).orElseThrow();
        assertThat(snapshot.registeredAtEpoch()).isEqualTo(2);
        assertThat(snapshot.lastBeatEpoch()).isEqualTo(2);
        assertThat(snapshot.lastBeatNanos() - before).isNotNegative();
        assertThat(snapshot.generation()).isEqualTo(1);
        assertThat(table.status(slot, 0)).isEqualTo(OwnerStatus.LIVE);
    }

    @Test
    void aBeatWritesTheCurrentEpochAndTime() {
        int slot = table.register(ME);
        // Zero the slot's time (as a test may: the slot is ours) to see the beat write it.
        RawBody.of(path)
                .setLongVolatile(
                        HeartbeatTableDescriptor.slotOffset(slot)
                                + HeartbeatTableDescriptor.LAST_BEAT_NANOS_OFFSET,
                        0);
        table.tickGlobalEpoch();
        table.tickGlobalEpoch();
        long before = System.nanoTime();

        table.beat(slot);

        HeartbeatSnapshot snapshot = table.snapshot(slot).orElseThrow();
        assertThat(snapshot.lastBeatEpoch()).isEqualTo(2);
        assertThat(snapshot.lastBeatNanos() - before).isNotNegative();
        assertThat(snapshot.lag()).isZero();
        assertThat(table.status(slot, 0)).isEqualTo(OwnerStatus.LIVE);
    }

    @Test
    void aHandleBeatsAndReleasesOnlyTheSlotsItRegistered() {
        int slot = table.register(ME);
        try (HeartbeatTable other =
                HeartbeatTable.TYPE.open(path, new HeartbeatTable.Settings(4))) {
            assertThatThrownBy(() -> other.beat(slot))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not registered through this handle");
            assertThat(other.unregister(slot)).isFalse();
        }
        assertThat(table.snapshot(slot)).isPresent();

        assertThat(table.unregister(slot)).isTrue();
        assertThat(table.snapshot(slot)).isEmpty();
        assertThat(table.status(slot, 3)).isEqualTo(OwnerStatus.FREE);
        assertThat(table.unregister(slot)).isFalse();
        assertThatThrownBy(() -> table.beat(slot)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aHandleWhoseSlotWasReclaimedLearnsOnceAndCannotFreeTheNewOwner() {
        try (HeartbeatTable other =
                HeartbeatTable.TYPE.open(path, new HeartbeatTable.Settings(4))) {
            for (int i = 0; i < 4; i++) {
                other.register(ME);
            }
            for (int i = 0; i < 4; i++) {
                table.tickGlobalEpoch(); // every slot of other lags 4 > 3
            }
            int taken = table.register(ME, 3);
            assertThat(taken).isZero();

            assertThatThrownBy(() -> other.beat(taken))
                    .isInstanceOf(SlotLostException.class)
                    .hasMessageContaining("PID " + ME + " reclaimed it");
            // The lost slot is forgotten: the next beat says it was never this handle's.
            assertThatThrownBy(() -> other.beat(taken)).isInstanceOf(IllegalStateException.class);
            assertThat(other.unregister(taken)).isFalse();

            assertThat(other.unregister(1)).isTrue(); // its other slots are still its own
        }
        HeartbeatSnapshot snapshot = table.snapshot(0).orElseThrow();
        assertThat(snapshot.generation()).isEqualTo(2);
        table.beat(0);
    }

    @Test
    void aSlotFreedUnderItsOwnerIsReportedAsFreed() {
        int slot = table.register(ME);
        // Another process released it from exactly its word (as a clean-up tool would).
        AtomicBuffer raw = RawBody.of(path);
        int record = HeartbeatTableDescriptor.slotOffset(slot);
        long word = OwnerRecord.ownerWord(raw, record);
        assertThat(OwnerRecord.release(raw, record, word)).isTrue();

        assertThatThrownBy(() -> table.beat(slot))
                .isInstanceOf(SlotLostException.class)
                .hasMessageContaining("it was freed");
        assertThat(table.unregister(slot)).isFalse();
    }

    @Test
    void statusJudgesFreshStaleAndDeadAtTheGraceBoundary() {
        int live = table.register(ME);
        int dead = table.register(DEAD_PID);
        table.tickGlobalEpoch();
        table.tickGlobalEpoch();

        assertThat(table.status(live, 2)).isEqualTo(OwnerStatus.LIVE); // lag 2, not more than 2
        assertThat(table.status(live, 1)).isEqualTo(OwnerStatus.STALE);
        assertThat(table.status(dead, 2)).isEqualTo(OwnerStatus.DEAD);
        assertThat(table.status(3, 2)).isEqualTo(OwnerStatus.FREE);
        assertThat(table.liveSlots(2)).extracting(HeartbeatSnapshot::slot).containsExactly(live);
        assertThat(table.liveSlots(1)).isEmpty();
        assertThat(table.scan()).extracting(HeartbeatSnapshot::slot).containsExactly(live, dead);

        HeartbeatSnapshot snapshot = table.snapshot(live).orElseThrow();
        assertThat(table.status(snapshot, 2)).isEqualTo(OwnerStatus.LIVE);
        assertThat(table.status(snapshot, 1)).isEqualTo(OwnerStatus.STALE);
        assertThat(table.status(table.snapshot(dead).orElseThrow(), 2)).isEqualTo(OwnerStatus.DEAD);
        assertThatThrownBy(() -> table.liveSlots(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> table.status(live, -1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(table.register(ME, 0)).isEqualTo(2); // a grace of 0 is allowed
    }

    @Test
    void theLastSlotIsInsideTheTableAndTheNextIsNot() {
        for (int i = 0; i < 4; i++) {
            table.register(ME);
        }
        table.beat(3);
        assertThat(table.snapshot(3)).isPresent();
        assertThatThrownBy(() -> table.beat(4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slot 4 is outside 0..3");
        assertThatThrownBy(() -> table.unregister(4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> table.status(-1, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void epochReadsAndTicksAreCounted() {
        assertThat(table.tickGlobalEpoch()).isEqualTo(1);
        assertThat(table.globalEpoch()).isEqualTo(1);
        int slot = table.register(ME);
        table.beat(slot);
        table.scan();
        table.unregister(slot);
        assertThat(table.opCounts())
                .containsEntry("tick_epoch", 1L)
                .containsEntry("register", 1L)
                .containsEntry("beat", 1L)
                .containsEntry("scan", 1L)
                .containsEntry("unregister", 1L);
        assertThat(table.describe()).containsEntry("capacity", 4).containsEntry("globalEpoch", 1L);
    }

    @Test
    void aNeverRegisteredFreeSlotIsNeitherBeatenNorReleased() {
        // A free slot's owner word is 0, the same as "this handle holds none".
        assertThatThrownBy(() -> table.beat(3)).isInstanceOf(IllegalStateException.class);
        assertThat(table.unregister(3)).isFalse();
        assertThat(table.snapshot(3)).isEmpty();
        assertThat(table.register(ME)).isZero();
    }

    @Test
    void aHandleThatHasNotNoticedItsLossCannotReleaseTheNewOwnersSlot() {
        try (HeartbeatTable other =
                HeartbeatTable.TYPE.open(path, new HeartbeatTable.Settings(4))) {
            for (int i = 0; i < 4; i++) {
                other.register(ME);
            }
            for (int i = 0; i < 4; i++) {
                table.tickGlobalEpoch();
            }
            int taken = table.register(ME, 3);

            assertThat(other.unregister(taken)).isFalse(); // its word is not the slot's any more
            assertThat(table.snapshot(taken)).isPresent();
            table.beat(taken);
        }
    }

    @Test
    void anEmptyTableStillRejectsANegativeGrace() {
        assertThatThrownBy(() -> table.liveSlots(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("graceEpochs");
        assertThatThrownBy(() -> table.status(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
