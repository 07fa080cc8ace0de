package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A heartbeat table in one process: registering, beating, reading and judging slots, the epoch, its
 * bounds; what it shows of itself ({@code describe()}: only held slots, each with its owner,
 * generation, lag and identity), that every read is counted once, and that closing a handle frees
 * exactly the slots it registered, once.
 */
class HeartbeatTableTest {

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
    void registerBeatSnapshotUnregister() {
        int slot = table.register(ME);
        HeartbeatSnapshot registered = table.snapshot(slot).orElseThrow();
        assertThat(registered.pid()).isEqualTo(ME);
        assertThat(registered.startTime()).isEqualTo(ProcessProbe.startTime(ME));
        assertThat(registered.lastBeatEpoch()).isZero();
        assertThat(registered.generation()).isEqualTo(1);

        table.tickGlobalEpoch();
        table.tickGlobalEpoch();
        assertThat(table.snapshot(slot).orElseThrow().lag()).isEqualTo(2);

        table.beat(slot);
        HeartbeatSnapshot beaten = table.snapshot(slot).orElseThrow();
        assertThat(beaten.lastBeatEpoch()).isEqualTo(2);
        assertThat(beaten.lag()).isZero();
        assertThat(beaten.lastBeatNanos()).isGreaterThanOrEqualTo(registered.lastBeatNanos());
        assertThat(table.status(slot, 3)).isEqualTo(OwnerStatus.LIVE);

        assertThat(table.unregister(slot)).isTrue();
        assertThat(table.snapshot(slot)).isEmpty();
        assertThat(table.status(slot, 3)).isEqualTo(OwnerStatus.FREE);
        assertThat(table.unregister(slot)).isFalse();
        assertThatThrownBy(() -> table.beat(slot))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not registered through this handle");
    }

    @Test
    void scanListsEveryHeldSlotWithItsLag() {
        int a = table.register(ME);
        table.tickGlobalEpoch();
        int b = table.register(ME);
        table.tickGlobalEpoch();
        table.tickGlobalEpoch();

        List<HeartbeatSnapshot> slots = table.scan();

        assertThat(slots).extracting(HeartbeatSnapshot::slot).containsExactly(a, b);
        assertThat(slots).extracting(HeartbeatSnapshot::lag).containsExactly(3L, 2L);
        assertThat(table.liveSlots(2)).extracting(HeartbeatSnapshot::slot).containsExactly(b);
        assertThat(table.opCounts()).containsEntry("scan", 2L).containsEntry("register", 2L);
    }

    @Test
    void fullTableNamesItsCapacity() {
        for (int i = 0; i < 4; i++) {
            table.register(ME);
        }
        assertThatThrownBy(() -> table.register(ME))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("all 4 slots")
                .hasMessageContaining("larger capacity")
                .hasMessageContaining("IN_FLIGHT_SLOTS = 1024");
    }

    @Test
    void slotOfDeadProcessIsReclaimedAtOnce() {
        for (int i = 0; i < 3; i++) {
            table.register(ME);
        }
        int dead = table.register(DEAD_PID);
        assertThat(table.status(dead, 3)).isEqualTo(OwnerStatus.DEAD);

        int reclaimed = table.register(ME);

        assertThat(reclaimed).isEqualTo(dead);
        HeartbeatSnapshot snapshot = table.snapshot(reclaimed).orElseThrow();
        assertThat(snapshot.pid()).isEqualTo(ME);
        assertThat(snapshot.generation()).isEqualTo(2);
    }

    @Test
    void staleSlotIsReclaimedAndItsFormerOwnerLearnsOnNextBeat() {
        try (HeartbeatTable other =
                HeartbeatTable.TYPE.open(path, new HeartbeatTable.Settings(4))) {
            for (int i = 0; i < 4; i++) {
                other.register(ME);
            }
            int[] fresh = {0, 1, 2};
            for (int epoch = 0; epoch < 4; epoch++) {
                table.tickGlobalEpoch();
                for (int slot : fresh) {
                    other.beat(slot);
                }
            }
            assertThat(table.status(3, 3)).isEqualTo(OwnerStatus.STALE);

            assertThat(table.register(ME, 3)).isEqualTo(3);

            assertThatThrownBy(() -> other.beat(3))
                    .isInstanceOf(SlotLostException.class)
                    .hasMessageContaining("slot 3")
                    .hasMessageContaining("register() again");
            assertThat(table.snapshot(3).orElseThrow().lag()).isZero();
        }
    }

    @Test
    void liveSlotsAreNotReclaimedWithinGrace() {
        for (int i = 0; i < 4; i++) {
            table.register(ME);
        }
        table.tickGlobalEpoch();
        table.tickGlobalEpoch();
        table.tickGlobalEpoch();
        assertThatThrownBy(() -> table.register(ME, 3)).isInstanceOf(CxcCapacityException.class);
    }

    @Test
    void closeUnregistersTheSlotsOfTheHandle() {
        HeartbeatTable other = HeartbeatTable.TYPE.open(path, new HeartbeatTable.Settings(4));
        int slot = other.register(ME);
        other.close();
        assertThat(table.snapshot(slot)).isEmpty();
    }

    @Test
    void racingRegistrantsNeverShareASlot() throws Exception {
        try (HeartbeatTable big =
                HeartbeatTable.TYPE.create(
                        dir.resolve("big.cxc"), new HeartbeatTable.Settings(64))) {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                CountDownLatch start = new CountDownLatch(1);
                Set<Integer> slots = ConcurrentHashMap.newKeySet();
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    done.add(
                            pool.submit(
                                    () -> {
                                        start.await();
                                        for (int i = 0; i < 8; i++) {
                                            assertThat(slots.add(big.register(ME))).isTrue();
                                        }
                                        return null;
                                    }));
                }
                start.countDown();
                for (Future<?> f : done) {
                    f.get(30, TimeUnit.SECONDS);
                }
                assertThat(slots).hasSize(64);
                assertThat(big.scan()).hasSize(64);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void epochTicksAtMostOncePerInterval() {
        assertThat(table.tickGlobalEpochIfDue(Duration.ofHours(1))).isTrue();
        assertThat(table.tickGlobalEpochIfDue(Duration.ofHours(1))).isFalse();
        assertThat(table.globalEpoch()).isEqualTo(1);
        assertThat(table.tickGlobalEpoch()).isEqualTo(2);
    }

    @Test
    void capacityMismatchOnOpenIsAClearError() {
        assertThatThrownBy(() -> HeartbeatTable.TYPE.open(path, new HeartbeatTable.Settings(8)))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("created with capacity 4")
                .hasMessageContaining("expecting capacity 8");
        try (HeartbeatTable any = HeartbeatTable.open(path)) {
            assertThat(any.capacity()).isEqualTo(4);
        }
    }

    @Test
    void boundsAreChecked() {
        assertThatThrownBy(
                        () ->
                                HeartbeatTable.TYPE.create(
                                        dir.resolve("zero.cxc"), new HeartbeatTable.Settings(0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1..1024");
        assertThatThrownBy(
                        () ->
                                HeartbeatTable.TYPE.create(
                                        dir.resolve("huge.cxc"), new HeartbeatTable.Settings(1025)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("IN_FLIGHT_SLOTS");
        assertThatThrownBy(() -> table.snapshot(4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside 0..3");
        assertThatThrownBy(() -> table.beat(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> table.register(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> table.register(ME, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anotherPrimitivesFileIsRefused() {
        Path barrier = dir.resolve("barrier.cxc");
        EpochBarrier.TYPE.create(barrier, new EpochBarrier.Settings(4)).close();
        assertThatThrownBy(() -> HeartbeatTable.TYPE.open(barrier, new HeartbeatTable.Settings(4)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("epoch-barrier");
    }

    @Test
    void describeListsOnlyTheHeldSlotsWithTheirOwnerAndLag() {
        try (HeartbeatTable table =
                HeartbeatTable.TYPE.create(dir.resolve("t.cxc"), new HeartbeatTable.Settings(3))) {
            int first = table.register(ME);
            int second = table.register(ME);
            table.unregister(first);
            table.tickGlobalEpoch();
            table.tickGlobalEpoch();

            Map<String, Object> described = table.describe();
            assertThat(described).containsEntry("capacity", 3).containsEntry("globalEpoch", 2L);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> slots = (List<Map<String, Object>>) described.get("slots");
            assertThat(slots).hasSize(1);
            assertThat(slots.get(0))
                    .containsEntry("slot", second)
                    .containsEntry("pid", ME)
                    .containsEntry("generation", 1L)
                    .containsEntry("lastBeatEpoch", 0L)
                    .containsEntry("lagEpochs", 2L)
                    .containsEntry("startTime", table.snapshot(second).orElseThrow().startTime());
        }
    }

    @Test
    void everyReadIsCountedOnce() {
        try (HeartbeatTable table =
                HeartbeatTable.TYPE.create(dir.resolve("t.cxc"), new HeartbeatTable.Settings(2))) {
            int slot = table.register(ME);
            table.globalEpoch();
            table.snapshot(slot);
            assertThat(table.status(slot, 3)).isEqualTo(OwnerStatus.LIVE);
            assertThat(table.status(1 - slot, 3)).isEqualTo(OwnerStatus.FREE);
            assertThat(table.opCounts()).containsEntry("read", 4L).containsEntry("register", 1L);
        }
    }

    @Test
    void closingAHandleFreesTheSlotsItRegisteredOnceAndLeavesTheOthers() {
        Path path = dir.resolve("t.cxc");
        try (HeartbeatTable keeper =
                HeartbeatTable.TYPE.create(path, new HeartbeatTable.Settings(3))) {
            HeartbeatTable closing = HeartbeatTable.TYPE.open(path, new HeartbeatTable.Settings(3));
            int kept = keeper.register(ME);
            int mine = closing.register(ME);
            closing.close();
            assertThat(closing.isClosed()).isTrue();
            assertThat(keeper.snapshot(mine)).isEmpty();
            assertThat(keeper.snapshot(kept)).isPresent();
            // Taken again meanwhile: a second close must not free it.
            assertThat(keeper.register(ME)).isEqualTo(mine);
            closing.close();
            assertThat(keeper.snapshot(mine)).isPresent();
            assertThat(keeper.opCounts()).containsEntry("unregister", 0L);
        }
    }
}
