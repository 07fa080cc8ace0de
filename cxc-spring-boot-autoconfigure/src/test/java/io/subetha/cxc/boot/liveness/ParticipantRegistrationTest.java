package io.subetha.cxc.boot.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.autoconfigure.LogLines;
import io.subetha.cxc.liveness.HeartbeatSnapshot;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.Ordered;

/**
 * This process's slot in the participants' table, driven tick by tick by the test (no ticker): one
 * slot per start, beaten and the epoch paced on each tick while running, rejoined after a loss or a
 * full table, freed on stop, and what it logs on each. A real two-slot table in a temp directory.
 */
class ParticipantRegistrationTest {

    private static final long ME = Pids.current();

    /** Due on every tick: the epoch then counts the ticks that paced it. */
    private static final Duration EVERY_TICK = Duration.ofNanos(1);

    @TempDir Path temp;

    private HeartbeatTable table;
    private LogLines log;

    @BeforeEach
    void open() {
        table =
                HeartbeatTable.TYPE.openOrCreate(
                        temp.resolve("crew.heartbeat"),
                        new HeartbeatTable.Settings(2),
                        CxcFileOptions.defaults());
        log = LogLines.of(ParticipantRegistration.class);
    }

    @AfterEach
    void close() {
        log.close();
        table.close();
    }

    private ParticipantRegistration registration() {
        return new ParticipantRegistration(table, ME, 100, EVERY_TICK);
    }

    @Test
    void startingTakesOneSlotSaysWhichAndStartingAgainTakesNoOther() {
        ParticipantRegistration self = registration();
        self.start();
        assertThat(self.isRunning()).isTrue();
        assertThat(self.slot()).isZero();
        self.start();
        assertThat(self.slot()).isZero();
        assertThat(table.scan()).singleElement().satisfies(s -> assertThat(s.pid()).isEqualTo(ME));
        assertThat(log.lines())
                .containsExactly(
                        "INFO cxc: pid " + ME + " takes part as slot 0 of " + table.file());
    }

    @Test
    void aTickBeforeStartOrAfterStopNeitherRegistersNorBeatsNorPacesTheEpoch() {
        ParticipantRegistration self = registration();
        long epoch = table.globalEpoch();
        self.onTick();
        assertThat(table.scan()).isEmpty();
        assertThat(self.slot()).isEqualTo(-1);
        assertThat(table.globalEpoch()).isEqualTo(epoch);

        self.start();
        self.stop();
        self.onTick();
        assertThat(table.scan()).isEmpty();
        assertThat(table.globalEpoch()).isEqualTo(epoch);
    }

    @Test
    void eachTickPacesTheEpochAndBeatsTheSameSlot() {
        ParticipantRegistration self = registration();
        self.start();
        long epoch = table.globalEpoch();
        for (int i = 1; i <= 3; i++) {
            self.onTick();
            assertThat(table.globalEpoch()).isEqualTo(epoch + i);
            // Beaten after the epoch moved: its beat is this epoch, not the one before.
            assertThat(table.snapshot(0))
                    .hasValueSatisfying(
                            s -> assertThat(s.lastBeatEpoch()).isEqualTo(table.globalEpoch()));
        }
        assertThat(self.slot()).isZero();
        assertThat(table.scan()).hasSize(1);
        assertThat(log.lines()).hasSize(1); // the start's line only
    }

    @Test
    void aSlotLostToAnotherProcessIsTakenAgainOnTheNextTickAndSaidSo() {
        ParticipantRegistration self = registration();
        self.start();
        try (HeartbeatTable other = HeartbeatTable.open(table.file());
                HeartbeatTable thief = HeartbeatTable.open(table.file())) {
            int othersSlot = other.register(ME);
            other.tickGlobalEpoch();
            assertThat(thief.register(ME, 0)).isZero(); // ours, stale under a grace of 0
            other.unregister(othersSlot);

            self.onTick();
            assertThat(self.slot()).isEqualTo(othersSlot);
            assertThat(table.snapshot(othersSlot)).map(HeartbeatSnapshot::pid).hasValue(ME);
        }
        assertThat(log.lines()).hasSize(3);
        assertThat(log.lines().get(1))
                .startsWith(
                        "WARN cxc: slot 0 of " + table.file() + " no longer belongs to PID " + ME)
                .endsWith("; registering again");
        assertThat(log.lines().get(2))
                .isEqualTo("INFO cxc: pid " + ME + " takes part again as slot 1");
    }

    @Test
    void aTickThatFindsTheTableFullHoldsNoSlotUntilALaterTickFindsOneFree() {
        ParticipantRegistration self = registration();
        self.start();
        try (HeartbeatTable other = HeartbeatTable.open(table.file());
                HeartbeatTable thief = HeartbeatTable.open(table.file())) {
            int othersSlot = other.register(ME);
            other.tickGlobalEpoch();
            assertThat(thief.register(ME, 0)).isZero();

            // Both slots held by live owners: the rejoin fails, and so does the next tick's.
            assertThatThrownBy(self::onTick).isInstanceOf(CxcCapacityException.class);
            assertThat(self.slot()).isEqualTo(-1);
            assertThatThrownBy(self::onTick).isInstanceOf(CxcCapacityException.class);
            assertThat(self.slot()).isEqualTo(-1);

            other.unregister(othersSlot);
            self.onTick();
            assertThat(self.slot()).isEqualTo(othersSlot);
            assertThat(log.lines())
                    .last()
                    .isEqualTo("INFO cxc: pid " + ME + " takes part again as slot " + othersSlot);
            self.onTick(); // then beats it
            assertThat(self.slot()).isEqualTo(othersSlot);
            assertThat(table.snapshot(othersSlot))
                    .hasValueSatisfying(
                            s -> assertThat(s.lastBeatEpoch()).isEqualTo(table.globalEpoch()));
            assertThat(log.lines())
                    .filteredOn(l -> l.startsWith("WARN"))
                    .hasSize(1); // the first loss only
        }
    }

    @Test
    void stoppingFreesTheSlotAtOnceAndAStopWithNoSlotFreesNothing() {
        ParticipantRegistration self = registration();
        self.start();
        assertThat(self.slot()).isZero();
        self.stop();
        assertThat(self.isRunning()).isFalse();
        assertThat(self.slot()).isEqualTo(-1);
        assertThat(table.scan()).isEmpty();
        self.stop();
        assertThat(self.isRunning()).isFalse();

        // Lost and not rejoined (full table): stopping then frees nobody's slot.
        ParticipantRegistration again = registration();
        again.start();
        try (HeartbeatTable other = HeartbeatTable.open(table.file());
                HeartbeatTable thief = HeartbeatTable.open(table.file())) {
            int othersSlot = other.register(ME);
            other.tickGlobalEpoch();
            assertThat(thief.register(ME, 0)).isZero();
            assertThatThrownBy(again::onTick).isInstanceOf(CxcCapacityException.class);
            again.stop();
            assertThat(again.isRunning()).isFalse();
            assertThat(table.scan()).hasSize(2); // the thief's and the other's, untouched
            assertThat(other.unregister(othersSlot)).isTrue();
        }
    }

    @Test
    void aFullTableFailsStartNamingTheCapacityProperty() {
        try (HeartbeatTable other = HeartbeatTable.open(table.file())) {
            other.register(ME);
            other.register(ME);
            ParticipantRegistration self = registration();
            assertThatThrownBy(self::start)
                    .isInstanceOfSatisfying(
                            InvalidCxcPropertyException.class,
                            e -> {
                                assertThat(e.property()).isEqualTo("cxc.heartbeat.capacity");
                                assertThat(e.value()).isEqualTo(2);
                                assertThat(e.reason())
                                        .startsWith(
                                                "every slot of "
                                                        + table.file()
                                                        + " is held by a live process: ");
                                assertThat(e.action()).contains("up to 1024");
                            });
            assertThat(self.isRunning()).isFalse();
            assertThat(log.lines()).isEmpty();
        }
    }

    @Test
    void itStartsJustBeforeTheTickerAndRunsFirstAmongTheTickTasks() {
        ParticipantRegistration self = registration();
        assertThat(self.getPhase()).isEqualTo(SmartLifecycle.DEFAULT_PHASE - 1);
        assertThat(self.getOrder()).isEqualTo(Ordered.HIGHEST_PRECEDENCE);
        assertThat(self.toString())
                .isEqualTo("ParticipantRegistration[pid=" + ME + ", " + table + "]");
    }
}
