package io.subetha.cxc.liveness;

import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.OWNER_WORD_OFFSET;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.STATE_OWNED;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.WORK_ID_OFFSET;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.entryOffset;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.packClaimWord;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.packOwnerWord;
import static io.subetha.cxc.liveness.HeartbeatTableTest.DEAD_PID;
import static io.subetha.cxc.liveness.HeartbeatTableTest.ME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the watchdog moves work and what it leaves alone: the least-loaded live slot (counting only
 * live owners' work, lowest slot on a tie), a live assigner's claim, a state the layout never
 * writes, a slot number past the table; and whose work a holder may count and complete.
 */
class WatchdogMoveTest {

    @TempDir Path dir;
    Path heartbeatPath;
    HeartbeatTable table;
    FailoverWatchdog watchdog;
    AtomicBuffer raw;

    @BeforeEach
    void create() {
        heartbeatPath = dir.resolve("heartbeat.cxc");
        table = HeartbeatTable.TYPE.create(heartbeatPath, new HeartbeatTable.Settings(3));
        watchdog =
                FailoverWatchdog.openOrCreate(
                        dir.resolve("watchdog.cxc"), table, 8, CxcFileOptions.defaults());
        raw = RawBody.of(watchdog.file());
    }

    @AfterEach
    void close() {
        watchdog.close();
        table.close();
    }

    private void plant(int entry, long ownerWord, long workId) {
        raw.setLongVolatile(entryOffset(entry) + WORK_ID_OFFSET, workId);
        raw.setLongVolatile(entryOffset(entry) + OWNER_WORD_OFFSET, ownerWord);
    }

    private long word(int entry) {
        return raw.getLongVolatile(entryOffset(entry) + OWNER_WORD_OFFSET);
    }

    @Test
    void deadWorkGoesToTheLeastLoadedLiveSlotCountingOnlyLiveOwnersWork() {
        int dead = table.register(DEAD_PID);
        int busy = table.register(ME);
        int idle = table.register(ME);
        watchdog.assign(busy, 1);
        watchdog.assign(busy, 2);
        watchdog.assign(dead, 3);
        watchdog.assign(dead, 4);

        ReclaimReport report = watchdog.scan();

        assertThat(report.moves())
                .containsExactly(
                        new ReclaimReport.WorkMove(3, dead, DEAD_PID, idle, ME),
                        new ReclaimReport.WorkMove(4, dead, DEAD_PID, idle, ME));
        assertThat(watchdog.workOf(idle)).containsExactlyInAnyOrder(3L, 4L);
    }

    @Test
    void onATieTheLowestLiveSlotTakesTheWork() {
        int dead = table.register(DEAD_PID);
        int first = table.register(ME);
        table.register(ME);
        watchdog.assign(dead, 7);

        assertThat(watchdog.scan().moves())
                .containsExactly(new ReclaimReport.WorkMove(7, dead, DEAD_PID, first, ME));
    }

    @Test
    void aLiveAssignersClaimIsLeftForItToFinish() {
        int live = table.register(ME);
        plant(0, packClaimWord(1, live, ME), 0);

        ReclaimReport report = watchdog.scan();

        assertThat(report.abandonedClaims()).isZero();
        assertThat(word(0)).isEqualTo(packClaimWord(1, live, ME));
    }

    @Test
    void aDeadAssignersClaimOnALiveSlotIsFreed() {
        int live = table.register(ME);
        plant(0, packClaimWord(1, live, DEAD_PID), 0);

        assertThat(watchdog.scan().abandonedClaims()).isEqualTo(1);
        assertThat(FailoverWatchdogDescriptor.state(word(0)))
                .isEqualTo(FailoverWatchdogDescriptor.STATE_FREE);
    }

    @Test
    void aStateTheLayoutNeverWritesIsLeftAlone() {
        table.register(ME);
        long odd = packOwnerWord(1, 7, 0, 1);
        plant(0, odd, 99);

        ReclaimReport report = watchdog.scan();

        assertThat(report.isEmpty()).isTrue();
        assertThat(word(0)).isEqualTo(odd);
    }

    @Test
    void workNamingASlotPastTheTableIsMovedWithNoFormerHolder() {
        int live = table.register(ME);
        plant(0, packOwnerWord(1, STATE_OWNED, 3, 1), 42); // slot 3 of a 3-slot table

        ReclaimReport report = watchdog.scan();

        assertThat(report.moves()).containsExactly(new ReclaimReport.WorkMove(42, 3, 0, live, ME));
        assertThat(watchdog.workOf(live)).containsExactly(42L);
    }

    @Test
    void theBoundPerSlotCountsOnlyThatSlotsCurrentHoldersWork() {
        int a = table.register(ME);
        int b = table.register(ME);
        LongStream.range(0, 7).forEach(id -> watchdog.assign(a, id));
        // another slot's work does not count against this one
        LongStream.range(100, 108).forEach(id -> watchdog.assign(b, id));
        watchdog.assign(a, 7);
        assertThatThrownBy(() -> watchdog.assign(a, 8)).isInstanceOf(CxcCapacityException.class);

        // a new holder of slot a does not inherit the old holder's count
        assertThat(table.unregister(a)).isTrue();
        assertThat(table.register(ME)).isEqualTo(a);
        LongStream.range(200, 208).forEach(id -> watchdog.assign(a, id));
        assertThat(watchdog.workOf(a)).hasSize(8);
    }

    @Test
    void onlyTheCurrentHolderOfTheOwningSlotCompletesAWorkId() {
        int a = table.register(ME);
        int b = table.register(ME);
        watchdog.assign(a, 1);
        watchdog.assign(b, 2);

        assertThat(watchdog.complete(b, 1)).isFalse(); // another slot's
        assertThat(watchdog.complete(a, 2)).isFalse();
        assertThat(watchdog.complete(a, 3)).isFalse(); // never assigned

        table.unregister(a);
        assertThat(table.register(ME)).isEqualTo(a);
        assertThat(watchdog.complete(a, 1)).isFalse(); // the old holder's generation

        assertThat(watchdog.complete(b, 2)).isTrue();
        assertThat(watchdog.ownerOf(2)).isEmpty();
    }

    @Test
    void slotsOutsideTheTableAndANegativeGraceAreRejected() {
        table.register(ME);
        table.register(ME);
        int last = table.register(ME);
        watchdog.assign(last, 5);
        assertThat(watchdog.workOf(last)).containsExactly(5L);

        for (int slot : new int[] {-1, 3}) {
            assertThatThrownBy(() -> watchdog.assign(slot, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("outside 0..2");
            assertThatThrownBy(() -> watchdog.complete(slot, 1))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> watchdog.workOf(slot))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> watchdog.scan(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(watchdog.scan(0).isEmpty()).isTrue();
    }

    @Test
    void openingWithTheTableItWatchesWorks() {
        int slot = table.register(ME);
        watchdog.assign(slot, 11);
        try (FailoverWatchdog reopened =
                FailoverWatchdog.open(
                        dir.resolve("watchdog.cxc"),
                        FailoverWatchdog.Settings.watching(
                                dir.resolve("watchdog.cxc"), heartbeatPath, 8))) {
            assertThat(reopened.isClosed()).isFalse();
            assertThat(reopened.ownerOf(11)).hasValue(slot);
        }
    }

    @Test
    void anEmptyTableStillRejectsANegativeGraceAndAFreeSlotOwnsNothing() {
        assertThatThrownBy(() -> watchdog.scan(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("graceEpochs");
        assertThat(watchdog.workOf(0)).isEmpty();
        watchdog.scan(0);
        watchdog.ownerOf(1);
        watchdog.assignments();
        // the rejected scan is not counted; ownerOf counts itself and the assignments() it calls
        assertThat(watchdog.opCounts()).containsEntry("scan", 1L).containsEntry("read", 4L);
    }
}
