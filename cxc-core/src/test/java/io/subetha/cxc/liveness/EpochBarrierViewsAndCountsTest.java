package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a barrier shows of itself (accessors, {@code participants()}, {@code describe()}, the
 * timeout's and the drop's texts), that every op is counted once, and that closing a handle leaves
 * the barrier. A one-minute grace: nobody is dropped for silence on a loaded machine.
 */
class EpochBarrierViewsAndCountsTest {

    static final Duration INTERVAL = Duration.ofSeconds(1);
    static final int GRACE_EPOCHS = 60;
    static final long PID = Pids.current();

    @TempDir Path dir;

    EpochBarrier create(Path path) {
        return EpochBarrier.TYPE.create(
                path,
                new EpochBarrier.Settings(3, INTERVAL, GRACE_EPOCHS),
                CxcFileOptions.defaults());
    }

    @Test
    void theAccessorsGiveTheCreatorsSettings() {
        try (EpochBarrier barrier = create(dir.resolve("b.cxc"))) {
            assertThat(barrier.capacity()).isEqualTo(3);
            assertThat(barrier.graceEpochs()).isEqualTo(GRACE_EPOCHS);
            assertThat(barrier.heartbeatInterval()).isEqualTo(INTERVAL);
            assertThat(barrier.grace()).isEqualTo(Duration.ofMinutes(1));
            assertThat(barrier.slot()).isEqualTo(-1);
        }
    }

    @Test
    void participantsAndDescribeShowEachJoinedSlotItsArrivalAndItsSilence() {
        Path path = dir.resolve("b.cxc");
        try (EpochBarrier a = create(path);
                EpochBarrier b = EpochBarrier.TYPE.open(path, new EpochBarrier.Settings(3))) {
            int epoch = a.join();
            b.join();
            assertThatThrownBy(() -> b.await(epoch, Duration.ofMillis(1)))
                    .isInstanceOf(CxcTimeoutException.class); // b stays arrived, a has not

            List<BarrierParticipant> participants = a.participants();
            assertThat(participants).extracting(BarrierParticipant::slot).containsExactly(0, 1);
            assertThat(participants).extracting(BarrierParticipant::pid).containsOnly(PID);
            assertThat(participants).extracting(BarrierParticipant::generation).containsOnly(1);
            assertThat(participants.get(0).lastArrivedEpoch()).isEqualTo(OptionalInt.empty());
            assertThat(participants.get(1).lastArrivedEpoch()).isEqualTo(OptionalInt.of(epoch));
            assertThat(participants)
                    .allSatisfy(
                            p ->
                                    assertThat(p.nanosSinceHeartbeat())
                                            .isBetween(0L, Duration.ofMinutes(1).toNanos()));

            Map<String, Object> described = a.describe();
            assertThat(described)
                    .containsEntry("capacity", 3)
                    .containsEntry("epoch", (long) epoch)
                    .containsEntry("heartbeatIntervalMillis", 1000L)
                    .containsEntry("graceEpochs", GRACE_EPOCHS);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> joined =
                    (List<Map<String, Object>>) described.get("participants");
            assertThat(joined).hasSize(2);
            assertThat(joined.get(0))
                    .containsEntry("slot", 0)
                    .containsEntry("pid", PID)
                    .containsEntry("arrivedAt", -1L);
            assertThat(joined.get(1))
                    .containsEntry("slot", 1)
                    .containsEntry("arrivedAt", (long) epoch);
            assertThat(joined)
                    .allSatisfy(
                            m -> assertThat((Long) m.get("silentMillis")).isBetween(0L, 60_000L));
        }
    }

    @Test
    void aTimeoutNamesEachMissingPeersSilenceAndLastArrival() {
        Path path = dir.resolve("b.cxc");
        try (EpochBarrier a = create(path);
                EpochBarrier b = EpochBarrier.TYPE.open(path, new EpochBarrier.Settings(3))) {
            int epoch = a.join();
            b.join();
            b.awaitQuorum(epoch, 1, Duration.ofSeconds(60)); // released alone: b arrived at epoch
            a.await(epoch, Duration.ofSeconds(60)); // passed without a: returns at once
            String message = "";
            try {
                a.await(epoch + 1, Duration.ofMillis(1));
            } catch (CxcTimeoutException e) {
                message = e.getMessage();
            }
            assertThat(message)
                    .contains("slot " + b.slot() + " (PID " + PID)
                    .contains("last arrived at epoch " + epoch)
                    .contains("1 of 2 live participants arrived");
            Matcher silence = Pattern.compile("last heartbeat (\\d+) ms ago").matcher(message);
            assertThat(silence.find()).isTrue();
            assertThat(Long.parseLong(silence.group(1))).isBetween(0L, 60_000L);
        }
    }

    @Test
    void aDroppedParticipantIsToldTheGraceInIntervalsAndMilliseconds() {
        Path path = dir.resolve("b.cxc");
        try (EpochBarrier a = create(path)) {
            a.join();
            // Its seat freed under it, as a waiter's drop does: by CAS from its own word.
            AtomicBuffer raw = RawBody.of(path);
            int record = EpochBarrierDescriptor.slotOffset(a.slot());
            assertThat(OwnerRecord.release(raw, record, OwnerRecord.ownerWord(raw, record)))
                    .isTrue();
            assertThatThrownBy(a::beat)
                    .isInstanceOf(SlotLostException.class)
                    .hasMessageContaining("slot 0 of " + path)
                    .hasMessageContaining("grace of 60 × 1000 ms");
        }
    }

    @Test
    void everyOpIsCountedOnceAndClosingAHandleLeavesTheBarrier() {
        Path path = dir.resolve("b.cxc");
        try (EpochBarrier a = create(path)) {
            EpochBarrier b = EpochBarrier.TYPE.open(path, new EpochBarrier.Settings(3));
            int epoch = a.join();
            b.join();
            a.beat();
            a.currentEpoch();
            a.livePeerCount();
            a.participants();
            assertThat(a.opCounts())
                    .containsEntry("register", 1L)
                    .containsEntry("beat", 1L)
                    .containsEntry("read", 2L)
                    .containsEntry("scan", 1L);
            b.close();
            assertThat(b.isClosed()).isTrue();
            assertThat(a.participants()).extracting(BarrierParticipant::slot).containsExactly(0);
            a.await(epoch, Duration.ofSeconds(60)); // alone now: released at once
            assertThat(a.opCounts()).containsEntry("wait", 1L);
            b.close(); // a second close changes nothing
            assertThat(a.participants()).hasSize(1);
        }
    }
}
