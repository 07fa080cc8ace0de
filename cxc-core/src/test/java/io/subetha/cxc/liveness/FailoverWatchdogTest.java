package io.subetha.cxc.liveness;

import static io.subetha.cxc.liveness.HeartbeatTableTest.DEAD_PID;
import static io.subetha.cxc.liveness.HeartbeatTableTest.ME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FailoverWatchdogTest {

    @TempDir Path dir;
    Path heartbeatPath;
    Path watchdogPath;
    HeartbeatTable table;
    FailoverWatchdog watchdog;

    @BeforeEach
    void create() {
        heartbeatPath = dir.resolve("heartbeat.cxc");
        watchdogPath = dir.resolve("watchdog.cxc");
        table = HeartbeatTable.TYPE.create(heartbeatPath, new HeartbeatTable.Settings(3));
        watchdog = FailoverWatchdog.openOrCreate(watchdogPath, table, 8, CxcFileOptions.defaults());
    }

    @AfterEach
    void close() {
        watchdog.close();
        table.close();
    }

    @Test
    void assignCompleteAndRead() {
        int slot = table.register(ME);
        watchdog.assign(slot, 41);
        watchdog.assign(slot, 42);

        assertThat(watchdog.workOf(slot)).containsExactly(41L, 42L);
        assertThat(watchdog.ownerOf(42)).isEqualTo(OptionalInt.of(slot));

        assertThat(watchdog.complete(slot, 41)).isTrue();
        assertThat(watchdog.complete(slot, 41)).isFalse();
        assertThat(watchdog.workOf(slot)).containsExactly(42L);
        assertThat(watchdog.ownerOf(41)).isEmpty();
        assertThat(watchdog.opCounts()).containsEntry("assign", 2L).containsEntry("complete", 2L);
    }

    @Test
    void scanMovesWorkFromAStaleSlotToALiveOneAndReportsIt() {
        int stale = table.register(ME);
        int live = table.register(ME);
        watchdog.assign(stale, 1);
        watchdog.assign(stale, 2);
        watchdog.assign(live, 3);
        assertThat(watchdog.scan(2).isEmpty()).isTrue();

        for (int i = 0; i < 3; i++) {
            table.tickGlobalEpoch();
            table.beat(live);
        }
        ReclaimReport report = watchdog.scan(2);

        assertThat(report.moves())
                .containsExactly(
                        new ReclaimReport.WorkMove(1, stale, ME, live, ME),
                        new ReclaimReport.WorkMove(2, stale, ME, live, ME));
        assertThat(report.stranded()).isEmpty();
        assertThat(watchdog.workOf(live)).containsExactlyInAnyOrder(1L, 2L, 3L);
        assertThat(watchdog.workOf(stale)).isEmpty();
        assertThat(watchdog.complete(stale, 1)).isFalse(); // its new owner completes it
        assertThat(watchdog.scan(2).isEmpty()).isTrue(); // moved once, never again
    }

    @Test
    void workOfADeadProcessMovesAtOnceAndSpreadsOverLiveSlots() {
        int dead = table.register(DEAD_PID);
        int a = table.register(ME);
        int b = table.register(ME);
        for (long id = 0; id < 6; id++) {
            watchdog.assign(dead, id);
        }

        ReclaimReport report = watchdog.scan();

        assertThat(report.movedWorkIds()).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(report.moves()).allSatisfy(m -> assertThat(m.fromPid()).isEqualTo(DEAD_PID));
        assertThat(watchdog.workOf(a)).hasSize(3);
        assertThat(watchdog.workOf(b)).hasSize(3);
    }

    @Test
    void workOfAReclaimedSlotsFormerHolderIsMovedNotInherited() {
        int dead = table.register(DEAD_PID);
        table.register(ME);
        table.register(ME);
        watchdog.assign(dead, 7);
        // A new process takes the dead process's slot before any scan ran.
        assertThat(table.register(ME)).isEqualTo(dead);
        assertThat(watchdog.workOf(dead)).isEmpty();

        ReclaimReport report = watchdog.scan();

        assertThat(report.moves()).hasSize(1);
        assertThat(report.moves().get(0).fromPid()).isZero(); // the old holder is unknown now
        assertThat(watchdog.assignments()).extracting(WorkAssignment::workId).containsExactly(7L);
    }

    @Test
    void workWithoutAnyLiveSlotIsStrandedNotLost() {
        int dead = table.register(DEAD_PID);
        watchdog.assign(dead, 9);

        ReclaimReport report = watchdog.scan();

        assertThat(report.moves()).isEmpty();
        assertThat(report.stranded()).containsExactly(9L);
        assertThat(watchdog.ownerOf(9)).isEqualTo(OptionalInt.of(dead));

        int live = table.register(ME);
        assertThat(watchdog.scan().movedWorkIds()).containsExactly(9L);
        assertThat(watchdog.workOf(live)).containsExactly(9L);
    }

    @Test
    void aClaimAbandonedByADeadAssignerIsFreed() {
        int dead = table.register(DEAD_PID);
        // What an assigner that died between its two CASes leaves behind.
        RawBody.of(watchdog.file())
                .setLongVolatile(
                        FailoverWatchdogDescriptor.entryOffset(0)
                                + FailoverWatchdogDescriptor.OWNER_WORD_OFFSET,
                        FailoverWatchdogDescriptor.packClaimWord(1, dead, DEAD_PID));
        table.register(ME);

        ReclaimReport report = watchdog.scan();

        assertThat(report.abandonedClaims()).isEqualTo(1);
        assertThat(report.moves()).isEmpty();
        assertThat(watchdog.assignments()).isEmpty();
    }

    @Test
    void assignIsBoundedPerSlotAndRefusesDuplicatesAndFreeSlots() {
        int slot = table.register(ME);
        LongStream.range(0, 8).forEach(id -> watchdog.assign(slot, id));
        assertThatThrownBy(() -> watchdog.assign(slot, 8))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("already owns 8 work ids")
                .hasMessageContaining("workPerSlot");

        int other = table.register(ME);
        assertThatThrownBy(() -> watchdog.assign(other, 3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already owned by heartbeat slot " + slot);
        assertThatThrownBy(() -> watchdog.assign(2, 100))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is free");
        assertThatThrownBy(() -> watchdog.assign(3, 100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside 0..2");
    }

    @Test
    void openChecksTheWatchedTablesCapacity() {
        try (FailoverWatchdog reopened =
                FailoverWatchdog.open(
                        watchdogPath,
                        FailoverWatchdog.Settings.watching(watchdogPath, heartbeatPath, 8))) {
            assertThat(reopened.workPerSlot()).isEqualTo(8);
            assertThat(reopened.capacity()).isEqualTo(3);
        }
        Path otherTable = dir.resolve("other-heartbeat.cxc");
        HeartbeatTable.TYPE.create(otherTable, new HeartbeatTable.Settings(5)).close();
        assertThatThrownBy(
                        () ->
                                FailoverWatchdog.open(
                                        watchdogPath,
                                        FailoverWatchdog.Settings.watching(
                                                watchdogPath, otherTable, 8)))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("(5 slots)")
                .hasMessageContaining("capacity 3");
    }

    @Test
    void openChecksTheWorkPerSlot() {
        assertThatThrownBy(
                        () ->
                                FailoverWatchdog.open(
                                        watchdogPath,
                                        FailoverWatchdog.Settings.watching(
                                                watchdogPath, heartbeatPath, 9)))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("created with 8 work ids per slot")
                .hasMessageContaining("expecting 9");
    }

    /**
     * A table of the same capacity is still another table: refused as a format error naming both,
     * and the watchdog file is left as it was.
     */
    @Test
    void anotherTableOfTheSameCapacityIsRefusedNamingTheTableItWatches() throws Exception {
        Path other = dir.resolve("other-heartbeat.cxc");
        HeartbeatTable.TYPE.create(other, new HeartbeatTable.Settings(3)).close();
        byte[] before = Files.readAllBytes(watchdogPath);

        assertThatThrownBy(
                        () ->
                                FailoverWatchdog.open(
                                        watchdogPath,
                                        FailoverWatchdog.Settings.watching(watchdogPath, other, 8)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("as a watchdog of " + other)
                .hasMessageContaining("it watches " + heartbeatPath.toAbsolutePath().normalize())
                .hasMessageContaining("left untouched");
        assertThat(Files.readAllBytes(watchdogPath)).isEqualTo(before);
    }

    @Test
    void aFreshWatchdogOfTheDefaultWorkPerSlotOwnsNothing() {
        try (FailoverWatchdog fresh =
                FailoverWatchdog.TYPE.create(
                        dir.resolve("fresh.cxc"),
                        FailoverWatchdog.Settings.watching(
                                dir.resolve("fresh.cxc"),
                                heartbeatPath,
                                FailoverWatchdog.DEFAULT_WORK_PER_SLOT))) {
            assertThat(fresh.workPerSlot()).isEqualTo(FailoverWatchdog.DEFAULT_WORK_PER_SLOT);
            assertThat(fresh.assignments()).isEqualTo(List.of());
        }
    }
}
