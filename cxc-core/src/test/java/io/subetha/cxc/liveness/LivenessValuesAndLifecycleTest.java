package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The liveness family's small parts, each at its edges: the settings bounds of a watchdog and a
 * barrier, how a watchdog names its table (relative beside it, absolute elsewhere), a work entry's
 * word packed and unpacked at full width, a snapshot's lag and silence, an empty reclaim report, a
 * move to slot 0 when it is the least loaded, and what closing a watchdog closes.
 */
class LivenessValuesAndLifecycleTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long ME = Pids.current();

    @TempDir Path dir;

    @Test
    void aWatchdogNamesItsTableIn1To52Bytes() {
        String longest = "t".repeat(FailoverWatchdogDescriptor.MAX_TABLE_PATH_BYTES);
        assertThat(new FailoverWatchdog.Settings(Path.of(longest), 1).heartbeatTable())
                .isEqualTo(Path.of(longest));
        assertThat(new FailoverWatchdog.Settings(Path.of("t"), 1).workPerSlot()).isEqualTo(1);
        for (String name : new String[] {"", longest + "t"}) {
            assertThatThrownBy(() -> new FailoverWatchdog.Settings(Path.of(name), 1))
                    .isInstanceOf(CxcSettingsException.class)
                    .hasMessageContaining("heartbeatTable must name the table in 1..52 UTF-8 bytes")
                    .hasMessageContaining("got " + name.length());
        }
    }

    @Test
    void aTableBesideTheWatchdogIsNamedRelativelyAndOneElsewhereAbsolutely() {
        Path watchdog = dir.resolve("watchdog.cxc");
        assertThat(
                        FailoverWatchdog.Settings.watching(watchdog, dir.resolve("hb.cxc"), 4)
                                .heartbeatTable())
                .isEqualTo(Path.of("hb.cxc"));
        assertThat(
                        FailoverWatchdog.Settings.watching(
                                        watchdog, dir.resolve("sub").resolve("hb.cxc"), 4)
                                .heartbeatTable())
                .isEqualTo(Path.of("sub", "hb.cxc"));
        Path elsewhere = Path.of("/dev/shm/hb.cxc");
        assertThat(FailoverWatchdog.Settings.watching(watchdog, elsewhere, 4).heartbeatTable())
                .isEqualTo(elsewhere);
    }

    @Test
    void aBarrierBeatsEvery1NsTo1HourAndGraceIsAtLeastOneInterval() {
        assertThat(new EpochBarrier.Settings(1, Duration.ofNanos(1), 1).graceEpochs()).isEqualTo(1);
        assertThat(new EpochBarrier.Settings(1, Duration.ofHours(1), 1).heartbeatInterval())
                .isEqualTo(Duration.ofHours(1));
        for (Duration wrong :
                new Duration[] {
                    Duration.ZERO, Duration.ofNanos(-1), Duration.ofHours(1).plusNanos(1)
                }) {
            assertThatThrownBy(() -> new EpochBarrier.Settings(1, wrong, 1))
                    .isInstanceOf(CxcSettingsException.class)
                    .hasMessageContaining("heartbeatInterval must be positive and at most 1 h");
        }
        assertThatThrownBy(() -> new EpochBarrier.Settings(1, Duration.ofSeconds(1), 0))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("graceEpochs must be 1 or more, got 0");
    }

    @Test
    void anEntryWordPacksEveryFieldAtFullWidth() {
        long word = FailoverWatchdogDescriptor.packOwnerWord(0xAB, 0xCD, 0xFFFF, 0xFFFF_FFFF);
        assertThat(word).isEqualTo(0xABCD_FFFF_FFFF_FFFFL);
        assertThat(FailoverWatchdogDescriptor.tag(word)).isEqualTo(0xAB);
        assertThat(FailoverWatchdogDescriptor.state(word)).isEqualTo(0xCD);
        assertThat(FailoverWatchdogDescriptor.slot(word)).isEqualTo(0xFFFF);
        assertThat(FailoverWatchdogDescriptor.generation(word)).isEqualTo(0xFFFF_FFFF);
        long small = FailoverWatchdogDescriptor.packOwnerWord(0x1FF, 2, 3, 4);
        assertThat(FailoverWatchdogDescriptor.tag(small)).isEqualTo(0xFF); // tag is one byte
        assertThat(FailoverWatchdogDescriptor.state(small)).isEqualTo(2);
        assertThat(FailoverWatchdogDescriptor.slot(small)).isEqualTo(3);
        assertThat(FailoverWatchdogDescriptor.generation(small)).isEqualTo(4);
        assertThat(
                        FailoverWatchdogDescriptor.tag(
                                FailoverWatchdogDescriptor.packOwnerWord(7, 0, 0, 0)))
                .isEqualTo(7);
    }

    @Test
    void aSnapshotsLagAndSilenceAreNeverNegative() {
        long hourAgo = System.nanoTime() - Duration.ofHours(1).toNanos();
        HeartbeatSnapshot behind = new HeartbeatSnapshot(0, ME, 1, 0, 3, hourAgo, 0, 5);
        assertThat(behind.lag()).isEqualTo(2);
        assertThat(behind.isStale(1)).isTrue();
        assertThat(behind.isStale(2)).isFalse();
        assertThat(behind.nanosSinceLastBeat())
                .isGreaterThanOrEqualTo(Duration.ofHours(1).toNanos());
        HeartbeatSnapshot ahead =
                new HeartbeatSnapshot(0, ME, 1, 0, 6, System.nanoTime() + 1_000_000_000, 0, 5);
        assertThat(ahead.lag()).isZero();
        assertThat(ahead.nanosSinceLastBeat()).isZero();
    }

    @Test
    void aReportWithAnyMoveStrandedWorkOrFreedClaimIsNotEmpty() {
        ReclaimReport.WorkMove move = new ReclaimReport.WorkMove(1, 0, DEAD_PID, 1, ME);
        assertThat(new ReclaimReport(List.of(), List.of(), 0).isEmpty()).isTrue();
        assertThat(new ReclaimReport(List.of(move), List.of(), 0).isEmpty()).isFalse();
        assertThat(new ReclaimReport(List.of(), List.of(9L), 0).isEmpty()).isFalse();
        assertThat(new ReclaimReport(List.of(), List.of(), 1).isEmpty()).isFalse();
        assertThat(new ReclaimReport(List.of(move), List.of(), 0).movedWorkIds())
                .containsExactly(1L);
    }

    @Test
    void slotZeroTakesTheWorkWhenItIsTheLeastLoaded() {
        try (HeartbeatTable table =
                        HeartbeatTable.TYPE.create(
                                dir.resolve("hb.cxc"), new HeartbeatTable.Settings(3));
                FailoverWatchdog watchdog =
                        FailoverWatchdog.openOrCreate(
                                dir.resolve("watchdog.cxc"), table, 4, CxcFileOptions.defaults())) {
            int idle = table.register(ME);
            int busy = table.register(ME);
            int dead = table.register(DEAD_PID);
            assertThat(idle).isZero();
            watchdog.assign(busy, 1);
            watchdog.assign(dead, 2);

            assertThat(watchdog.scan().moves())
                    .containsExactly(new ReclaimReport.WorkMove(2, dead, DEAD_PID, idle, ME));
            assertThat(watchdog.workOf(idle)).containsExactly(2L);
        }
    }

    @Test
    void closingAWatchdogClosesTheTableItOpenedButNotOneItWasGiven() {
        Path tablePath = dir.resolve("hb.cxc");
        Path watchdogPath = dir.resolve("watchdog.cxc");
        try (HeartbeatTable shared =
                HeartbeatTable.TYPE.create(tablePath, new HeartbeatTable.Settings(2))) {
            FailoverWatchdog given =
                    FailoverWatchdog.openOrCreate(
                            watchdogPath, shared, 4, CxcFileOptions.defaults());
            int slot = shared.register(ME);
            given.assign(slot, 5);
            Map<String, Object> described = given.describe();
            assertThat(described)
                    .containsEntry("heartbeatTable", tablePath.toString())
                    .containsEntry("capacity", 2)
                    .containsEntry("workPerSlot", 4)
                    .containsEntry("owned", 1)
                    .containsEntry(
                            "assignments",
                            List.of(Map.of("workId", 5L, "slot", slot, "generation", 1L)));
            given.close();
            assertThat(given.isClosed()).isTrue();
            assertThat(shared.isClosed()).isFalse();

            FailoverWatchdog own =
                    FailoverWatchdog.TYPE.openAsRecorded(watchdogPath, CxcFileOptions.defaults());
            HeartbeatTable opened = own.heartbeatTable();
            assertThat(opened).isNotSameAs(shared);
            own.close();
            assertThat(own.isClosed()).isTrue();
            assertThat(opened.isClosed()).isTrue();
        }
    }
}
