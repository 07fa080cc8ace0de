package io.subetha.cxc.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The election's limits, each at its edge: the settings a file may be created with, the stored
 * settings an opener accepts (a corrupt one is named with its value and range), the term floor, a
 * snapshot's lag and staleness, and what a retired handle with no successor describes.
 */
class ElectionSettingsLimitsTest {

    @TempDir Path dir;

    @Test
    void settingsAreOneMillisecondToAnHourAndZeroToAMillionEpochs() {
        assertThat(new SharedLeaderElection.Settings(Duration.ofMillis(1), 0).graceEpochs())
                .isZero();
        assertThat(new SharedLeaderElection.Settings(Duration.ofHours(1), 1_000_000).tickInterval())
                .isEqualTo(Duration.ofHours(1));
        assertThatThrownBy(() -> new SharedLeaderElection.Settings(Duration.ofNanos(999_999), 3))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("tickInterval must be 1 ms..1 h, got PT0.000999999S");
        assertThatThrownBy(
                        () ->
                                new SharedLeaderElection.Settings(
                                        Duration.ofHours(1).plusNanos(1), 3))
                .hasMessageContaining("tickInterval must be 1 ms..1 h");
        assertThatThrownBy(() -> new SharedLeaderElection.Settings(null, 3))
                .hasMessageContaining("got null");
        assertThatThrownBy(() -> new SharedLeaderElection.Settings(Duration.ofMillis(50), -1))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("graceEpochs must be 0..1000000, got -1");
        assertThatThrownBy(
                        () -> new SharedLeaderElection.Settings(Duration.ofMillis(50), 1_000_001))
                .hasMessageContaining("got 1000001");
    }

    private Path fileWith(SharedLeaderElection.Settings settings) {
        Path path = dir.resolve("l-" + System.nanoTime() + ".cxc");
        SharedLeaderElection.TYPE.create(path, settings).close();
        return path;
    }

    @Test
    void storedSettingsAtTheirEdgesOpenAndBeyondThemAreNamed() {
        Path edges = fileWith(new SharedLeaderElection.Settings(Duration.ofHours(1), 1_000_000));
        try (var opened = SharedLeaderElection.open(edges)) {
            assertThat(opened.settings().graceEpochs()).isEqualTo(1_000_000);
        }
        Path low = fileWith(SharedLeaderElection.Settings.DEFAULTS);
        RawBody.of(low)
                .setLongVolatile(
                        LeaderElectionDescriptor.TICK_INTERVAL_OFFSET,
                        Duration.ofMillis(1).toNanos() - 1);
        assertThatThrownBy(() -> SharedLeaderElection.open(low))
                .hasMessageContaining("stored tick interval 999999 ns, expected 1 ms..1 h");
        Path high = fileWith(SharedLeaderElection.Settings.DEFAULTS);
        RawBody.of(high)
                .setLongVolatile(
                        LeaderElectionDescriptor.TICK_INTERVAL_OFFSET,
                        Duration.ofHours(1).toNanos() + 1);
        assertThatThrownBy(() -> SharedLeaderElection.open(high))
                .hasMessageContaining("stored tick interval 3600000000001 ns");
        Path grace = fileWith(SharedLeaderElection.Settings.DEFAULTS);
        RawBody.of(grace).setIntVolatile(LeaderElectionDescriptor.GRACE_OFFSET, 1_000_001);
        assertThatThrownBy(() -> SharedLeaderElection.open(grace))
                .hasMessageContaining("stored grace 1000001 epochs, expected 0..1000000");
        Path seats = fileWith(SharedLeaderElection.Settings.DEFAULTS);
        RawBody.of(seats).setIntVolatile(LeaderElectionDescriptor.CANDIDATE_CAPACITY_OFFSET, 15);
        assertThatThrownBy(() -> SharedLeaderElection.open(seats))
                .hasMessageContaining("stored candidate capacity 15, expected 16");
    }

    @Test
    void theTermFloorIsZeroToOneBelowTheLargestTerm() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            assertThatThrownBy(() -> election.raiseTermFloor(-1))
                    .hasMessage("floor must be 0..4294967294, got -1");
            assertThatThrownBy(() -> election.raiseTermFloor(0xFFFF_FFFFL))
                    .hasMessageContaining("got 4294967295");
            assertThat(election.raiseTermFloor(0)).isFalse();
            long term = election.electionTerm();
            assertThat(election.raiseTermFloor(term)).as("already there").isFalse();
            assertThat(election.raiseTermFloor(0xFFFF_FFFEL)).isTrue();
            assertThat(election.electionTerm()).isEqualTo(0xFFFF_FFFEL);
            assertThat(election.currentLeader()).isEmpty();
        }
    }

    @Test
    void aSnapshotsLagIsNeverNegativeAndStaleMeansPastTheGrace() {
        var fresh = new LeaderSnapshot(5, 9, 10, 8, 1);
        assertThat(fresh.heartbeatLag()).isZero();
        assertThat(fresh.leader()).hasValue(5);
        var lagging = new LeaderSnapshot(5, 9, 10, 13, 1);
        assertThat(lagging.heartbeatLag()).isEqualTo(3);
        assertThat(lagging.isStale(3)).isFalse();
        assertThat(lagging.isStale(2)).isTrue();
        assertThat(new LeaderSnapshot(0, 9, 0, 0, -1).leader()).isEmpty();
    }

    @Test
    void aRetiredHandleWithNoSuccessorDescribesItselfAsRetired() {
        try (var election =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("l.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            election.retire(Pids.current(), false);
            assertThat(election.describe())
                    .containsEntry("retired", true)
                    .containsEntry("damaged", false)
                    .containsEntry("file", election.file().toString());
            assertThat(election.isDamaged()).isFalse();
        }
    }
}
