package io.subetha.cxc.wake;

import static io.subetha.cxc.wake.DoorbellDescriptor.SLOTS;
import static io.subetha.cxc.wake.DoorbellDescriptor.WAKE_ADDRESS_OFFSET;
import static io.subetha.cxc.wake.DoorbellDescriptor.slotOffset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waits through {@link Doorbell#await}: the waiter is lent and taken back, so its slot, socket and
 * ringers' connections serve the next wait of any thread instead of being made and torn down per
 * wait.
 */
class LentWaiterTest {

    static final Duration LONG = Duration.ofHours(1);
    static final Duration STEP = Duration.ofSeconds(60);

    @TempDir Path dir;

    final AtomicBuffer body =
            new AtomicBuffer(
                    ByteBuffer.allocateDirect(64 + DoorbellDescriptor.LENGTH)
                            .order(ByteOrder.LITTLE_ENDIAN));

    Doorbell doorbell() {
        return new Doorbell(body, 64, dir.resolve("primitive.cxc"));
    }

    long wakeAddress(int slot) {
        return body.getLongAcquire(slotOffset(64, slot) + WAKE_ADDRESS_OFFSET);
    }

    int heldSlots() {
        int held = 0;
        for (int i = 0; i < SLOTS; i++) {
            if (OwnerRecord.pid(OwnerRecord.ownerWord(body, slotOffset(64, i)))
                    != OwnerRecord.NO_OWNER) {
                held++;
            }
        }
        return held;
    }

    /** Waits on another thread until rung; returns once woken. */
    void ringOnce(Doorbell doorbell) throws Exception {
        AtomicBoolean written = new AtomicBoolean();
        CompletableFuture<Boolean> woken =
                CompletableFuture.supplyAsync(
                        () -> doorbell.await(WaitPhases.SLEEP_AT_ONCE, written::get, LONG));
        await().atMost(STEP).until(() -> doorbell.announcedCount() == 1);
        written.set(true);
        doorbell.ringIfAnnounced();
        assertThat(woken.get(STEP.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void successiveWaitsOfAnyThreadSleepOnOneSlotAndSocket() throws Exception {
        try (Doorbell doorbell = doorbell()) {
            ringOnce(doorbell);
            long first = wakeAddress(0);
            assertThat(first).isNotZero();
            for (int round = 0; round < 10; round++) {
                ringOnce(doorbell);
                assertThat(wakeAddress(0)).as("the same socket, round " + round).isEqualTo(first);
                assertThat(heldSlots()).isEqualTo(1);
                assertThat(doorbell.idleWaiters()).isEqualTo(1);
            }
        }
        assertThat(heldSlots()).as("close frees the kept waiter's slot").isZero();
        assertThat(Doorbell.socketDirectory(dir.resolve("primitive.cxc"))).doesNotExist();
    }

    @Test
    void concurrentWaitsBeyondTheKeptOnesGiveTheirSlotsBack() throws Exception {
        int waits = Doorbell.IDLE_WAITERS_KEPT + 3;
        AtomicBoolean written = new AtomicBoolean();
        try (Doorbell doorbell = doorbell()) {
            List<CompletableFuture<Boolean>> waiting = new ArrayList<>();
            for (int i = 0; i < waits; i++) {
                waiting.add(
                        CompletableFuture.supplyAsync(
                                () -> doorbell.await(WaitPhases.SLEEP_AT_ONCE, written::get, LONG),
                                runnable -> new Thread(runnable).start()));
            }
            await().atMost(STEP).until(() -> heldSlots() == waits);
            written.set(true);
            doorbell.ringIfAnnounced();
            for (CompletableFuture<Boolean> wait : waiting) {
                assertThat(wait.get(STEP.toSeconds(), TimeUnit.SECONDS)).isTrue();
            }
            assertThat(doorbell.idleWaiters()).isEqualTo(Doorbell.IDLE_WAITERS_KEPT);
            assertThat(heldSlots()).isEqualTo(Doorbell.IDLE_WAITERS_KEPT);
        }
        assertThat(heldSlots()).isZero();
    }

    @Test
    void aClosedDoorbellLendsNothing() {
        Doorbell doorbell = doorbell();
        doorbell.close();
        assertThat(doorbell.await(WaitPhases.SLEEP_AT_ONCE, () -> false, LONG)).isFalse();
        assertThat(heldSlots()).isZero();
    }
}
