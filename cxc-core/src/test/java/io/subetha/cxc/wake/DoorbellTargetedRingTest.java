package io.subetha.cxc.wake;

import static io.subetha.cxc.wake.DoorbellDescriptor.ANNOUNCED_OFFSET;
import static io.subetha.cxc.wake.DoorbellDescriptor.MAX_SLOTS;
import static io.subetha.cxc.wake.DoorbellProtocolTest.LONG;
import static io.subetha.cxc.wake.DoorbellProtocolTest.NEVER;
import static io.subetha.cxc.wake.DoorbellProtocolTest.STEP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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
 * A doorbell whose writer serves one waiter: it rings that waiter's slot alone, and the others
 * sleep on; and a doorbell sized by its primitive, up to {@link DoorbellDescriptor#MAX_SLOTS}
 * waiters, past which a waiter polls.
 */
class DoorbellTargetedRingTest {

    @TempDir Path dir;

    final AtomicBuffer body =
            new AtomicBuffer(
                    ByteBuffer.allocateDirect(64 + DoorbellDescriptor.length(MAX_SLOTS))
                            .order(ByteOrder.LITTLE_ENDIAN));

    Doorbell doorbell(int slots) {
        return new Doorbell(body, 64, slots, dir.resolve("primitive.cxc"));
    }

    long announced() {
        return body.getLongVolatile(64 + ANNOUNCED_OFFSET);
    }

    @Test
    void aTargetedRingWakesItsWaiterAndNoOther() throws Exception {
        Doorbell doorbell = doorbell(8);
        AtomicBoolean forA = new AtomicBoolean();
        AtomicBoolean forB = new AtomicBoolean();
        try (DoorbellWaiter a = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE, NEVER, NEVER);
                DoorbellWaiter b = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE, NEVER, NEVER)) {
            int slotA = a.slot();
            int slotB = b.slot();
            assertThat(slotA).isNotNegative().isNotEqualTo(slotB);
            assertThat(a.slot()).as("kept until closed").isEqualTo(slotA);
            CompletableFuture<Boolean> wokenA =
                    CompletableFuture.supplyAsync(() -> a.await(forA::get, LONG));
            CompletableFuture<Boolean> wokenB =
                    CompletableFuture.supplyAsync(() -> b.await(forB::get, LONG));
            await().atMost(STEP).until(() -> doorbell.announcedCount() == 2);

            forA.set(true);
            assertThat(doorbell.ringIfAnnounced(slotA)).isTrue();
            assertThat(wokenA.get(STEP.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(announced()).as("b sleeps on, announced").isEqualTo(1L << slotB);
            assertThat(wokenB).isNotDone();

            forB.set(true);
            assertThat(doorbell.ringIfAnnounced(slotB)).isTrue();
            assertThat(wokenB.get(STEP.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(announced()).isZero();
        }
    }

    @Test
    void aTargetedRingOfASlotNotAnnouncedTouchesNothing() {
        Doorbell doorbell = doorbell(8);
        body.setLongVolatile(64 + ANNOUNCED_OFFSET, 0b101);
        assertThat(doorbell.ringIfAnnounced(1)).isFalse();
        assertThat(announced()).isEqualTo(0b101);
        assertThat(doorbell.ringIfAnnounced(2))
                .as("an announcement with no address: taken, nobody to ring")
                .isTrue();
        assertThat(announced()).isEqualTo(0b001);
    }

    @Test
    void aTargetedRingerHeldAfterItsTakeCostsTheWaiterOneSafetyLook() throws Exception {
        Doorbell doorbell = doorbell(8);
        DoorbellProtocolTest.assertHeldRingerCostsOneSafetyLook(
                doorbell, new AtomicBoolean(), doorbell::ringIfAnnounced);
    }

    @Test
    void aRegionOfMoreSlotsSleepsMoreWaitersAndTheOnePastThemPolls() {
        int slots = 40; // past the default 32
        Doorbell doorbell = doorbell(slots);
        List<DoorbellWaiter> waiters = new ArrayList<>();
        try {
            for (int i = 0; i < slots; i++) {
                DoorbellWaiter waiter = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE);
                waiters.add(waiter);
                assertThat(waiter.slot()).isEqualTo(i);
            }
            DoorbellWaiter past = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE);
            waiters.add(past);
            assertThat(past.slot()).as("every slot held by a live waiter").isEqualTo(-1);
            assertThat(past.await(() -> false, Duration.ofMillis(20)))
                    .as("it polls, bounded by its timeout")
                    .isFalse();
            assertThat(past.ringable()).isFalse();
        } finally {
            waiters.forEach(DoorbellWaiter::close);
        }
    }

    @Test
    void aClosedWaiterHasNoSlot() {
        Doorbell doorbell = doorbell(1);
        DoorbellWaiter first = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE);
        assertThat(first.slot()).isZero();
        first.close();
        assertThat(first.slot()).isEqualTo(-1);
        try (DoorbellWaiter next = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE)) {
            assertThat(next.slot()).as("the slot freed by the close").isZero();
        }
    }

    @Test
    void badSlotCountsAndSlotsAreRefusedSayingWhatFits() {
        assertThatThrownBy(() -> doorbell(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 64 waiter slots")
                .hasMessageContaining("not 0");
        assertThatThrownBy(() -> doorbell(65))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not 65");
        assertThatThrownBy(() -> new Doorbell(body, 128, MAX_SLOTS, dir.resolve("p.cxc")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("of 64 slots is " + DoorbellDescriptor.length(MAX_SLOTS));
        assertThatThrownBy(() -> doorbell(8).ringIfAnnounced(8))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waiter slot 8 is not one of this doorbell's 0..7");
        assertThatThrownBy(() -> doorbell(8).ringIfAnnounced(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRegionsLengthIsItsSlotsRoundedUpToACacheLine() {
        assertThat(DoorbellDescriptor.length(DoorbellDescriptor.SLOTS))
                .isEqualTo(DoorbellDescriptor.LENGTH);
        assertThat(DoorbellDescriptor.length(1)).isEqualTo(128);
        assertThat(DoorbellDescriptor.length(3)).isEqualTo(192);
        assertThat(DoorbellDescriptor.length(MAX_SLOTS)).isEqualTo(64 + 64 * 32);
    }

    @Test
    void aRingOfEveryAnnouncementIgnoresBitsPastASmallRegionsSlots() {
        Doorbell doorbell = doorbell(2);
        body.setLongVolatile(64 + ANNOUNCED_OFFSET, -1L);
        assertThat(doorbell.announcedCount()).isEqualTo(2);
        doorbell.ringIfAnnounced();
        assertThat(announced()).isZero();
    }
}
