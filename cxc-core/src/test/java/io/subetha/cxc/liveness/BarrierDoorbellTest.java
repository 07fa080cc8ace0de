package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.testing.RawHeader;
import io.subetha.cxc.wake.DoorbellDescriptor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A barrier's waiters sleep on its doorbell: the arrival that completes an epoch, and a leave, ring
 * them; the layout carries the doorbell region after the participant slots.
 */
class BarrierDoorbellTest {

    static final Duration STEP = Duration.ofSeconds(60);

    @TempDir Path dir;
    Path path;
    final List<EpochBarrier> handles = new ArrayList<>();

    @BeforeEach
    void create() {
        path = dir.resolve("barrier.cxc");
        // A minute's grace: a participant the test keeps waiting is never dropped as silent.
        handles.add(
                EpochBarrier.TYPE.create(
                        path, new EpochBarrier.Settings(3, Duration.ofSeconds(1), 60)));
    }

    @AfterEach
    void close() {
        handles.forEach(EpochBarrier::close);
    }

    EpochBarrier participant() {
        EpochBarrier handle = EpochBarrier.TYPE.open(path, new EpochBarrier.Settings(3));
        handles.add(handle);
        handle.join();
        return handle;
    }

    static int sleepingWaiters(EpochBarrier barrier) {
        return (Integer) barrier.describe().get("sleepingWaiters");
    }

    @Test
    void aWaiterSleepsOnTheDoorbellUntilTheCompletingArrivalRingsIt() {
        EpochBarrier sleeper = participant();
        EpochBarrier last = participant();
        int epoch = sleeper.currentEpoch();
        CompletableFuture<Void> waiting =
                CompletableFuture.runAsync(() -> sleeper.await(epoch, Duration.ofHours(1)));
        await().atMost(STEP).until(() -> sleepingWaiters(last) == 1);

        last.await(epoch); // completes the epoch at once, and rings

        assertThat(waiting).succeedsWithin(STEP);
        assertThat(last.currentEpoch()).isEqualTo(epoch + 1);
        assertThat(sleepingWaiters(last)).isZero();
    }

    @Test
    void aLeaveWakesTheSleepersWhoseEpochItCompletes() {
        EpochBarrier sleeper = participant();
        EpochBarrier leaving = participant();
        int epoch = sleeper.currentEpoch();
        CompletableFuture<Void> waiting =
                CompletableFuture.runAsync(() -> sleeper.await(epoch, Duration.ofHours(1)));
        await().atMost(STEP).until(() -> sleepingWaiters(leaving) == 1);

        assertThat(leaving.leave()).isTrue();

        assertThat(waiting).succeedsWithin(STEP);
        assertThat(sleeper.currentEpoch()).isEqualTo(epoch + 1);
    }

    @Test
    void aSleepingWaitStillEndsAtItsTimeout() {
        EpochBarrier sleeper = participant();
        participant(); // never arrives
        int epoch = sleeper.currentEpoch();
        assertThatThrownBy(() -> sleeper.await(epoch, Duration.ofMillis(200)))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("1 of 2 live participants arrived");
        assertThat(sleepingWaiters(sleeper)).as("withdrawn on the way out").isZero();
    }

    @Test
    void theDoorbellRegionFollowsTheParticipantSlots() {
        assertThat(EpochBarrierDescriptor.LAYOUT_VERSION).isEqualTo(3);
        assertThat(EpochBarrierDescriptor.doorbellOffset(3)).isEqualTo(64 + 3 * 64);
        assertThat(EpochBarrierDescriptor.BODY_LAYOUT.bodyLength(3, 64))
                .isEqualTo(64 + 3 * 64 + DoorbellDescriptor.LENGTH);
    }

    @Test
    void aFileOfTheLayoutBeforeTheDoorbellIsRefusedWithWhatToDo() throws Exception {
        close();
        handles.clear();
        RawHeader.setLayoutVersion(path, 2);
        assertThatThrownBy(() -> EpochBarrier.open(path))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("layout version 2, but this CXC reads version 3")
                .hasMessageContaining("older CXC release")
                .hasMessageContaining("delete it");
    }
}
