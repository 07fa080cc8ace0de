package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a heartbeat table shows of itself ({@code describe()}: only held slots, each with its owner,
 * generation, lag and identity), that every read is counted once, and that closing a handle frees
 * exactly the slots it registered, once.
 */
class HeartbeatTableViewsAndCountsTest {

    static final long PID = Pids.current();

    @TempDir Path dir;

    @Test
    void describeListsOnlyTheHeldSlotsWithTheirOwnerAndLag() {
        try (HeartbeatTable table =
                HeartbeatTable.TYPE.create(dir.resolve("t.cxc"), new HeartbeatTable.Settings(3))) {
            int first = table.register(PID);
            int second = table.register(PID);
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
                    .containsEntry("pid", PID)
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
            int slot = table.register(PID);
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
            int kept = keeper.register(PID);
            int mine = closing.register(PID);
            closing.close();
            assertThat(closing.isClosed()).isTrue();
            assertThat(keeper.snapshot(mine)).isEmpty();
            assertThat(keeper.snapshot(kept)).isPresent();
            // Taken again meanwhile: a second close must not free it.
            assertThat(keeper.register(PID)).isEqualTo(mine);
            closing.close();
            assertThat(keeper.snapshot(mine)).isPresent();
            assertThat(keeper.opCounts()).containsEntry("unregister", 0L);
        }
    }
}
