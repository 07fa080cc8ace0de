package io.subetha.cxc.wake;

import static io.subetha.cxc.wake.DoorbellDescriptor.ANNOUNCED_OFFSET;
import static io.subetha.cxc.wake.DoorbellDescriptor.SLOTS;
import static io.subetha.cxc.wake.DoorbellDescriptor.WAKE_ADDRESS_OFFSET;
import static io.subetha.cxc.wake.DoorbellDescriptor.slotOffset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.StepGate;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The doorbell's protocol steps in one process: announce, then look, then sleep; write, then ring;
 * one ring per announcement; a lost ring costs a safety look, never the wait; a dead waiter's slot
 * and announcement are stepped over.
 */
class DoorbellProtocolTest {

    /** A safety look no test waits for: a lost ring shows as a wait that never ends. */
    static final long NEVER = TimeUnit.HOURS.toNanos(1);

    static final Duration LONG = Duration.ofHours(1);
    static final Duration STEP = Duration.ofSeconds(60);

    @TempDir Path dir;

    final AtomicBuffer body =
            new AtomicBuffer(
                    ByteBuffer.allocateDirect(64 + DoorbellDescriptor.LENGTH)
                            .order(ByteOrder.LITTLE_ENDIAN));
    final AtomicBoolean written = new AtomicBoolean();

    Doorbell doorbell() {
        return new Doorbell(body, 64, dir.resolve("primitive.cxc"));
    }

    long announced() {
        return body.getLongVolatile(64 + ANNOUNCED_OFFSET);
    }

    @Test
    void aWriteWithNobodyAnnouncedTouchesNothing() {
        Doorbell doorbell = doorbell();
        doorbell.ringIfAnnounced();
        assertThat(announced()).isZero();
        assertThat(doorbell.announcedCount()).isZero();
    }

    @Test
    void aWriteBetweenTheAnnouncementAndTheLastLookIsSeenByTheLook() {
        Doorbell doorbell = doorbell();
        try (DoorbellWaiter waiter = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE, NEVER, NEVER)) {
            StepGate<Boolean> gate =
                    StepGate.holdAt(
                            Point.DOORBELL_ANNOUNCED, () -> waiter.await(written::get, LONG));
            assertThat(doorbell.announcedCount()).isEqualTo(1);
            written.set(true);
            doorbell.ringIfAnnounced();
            assertThat(announced()).as("the ringer took the announcement").isZero();
            assertThat(gate.release()).isTrue();
        }
    }

    @Test
    void aRingWakesASleepingWaiterWithoutItsSafetyLook() throws Exception {
        Doorbell doorbell = doorbell();
        try (DoorbellWaiter waiter = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE, NEVER, NEVER)) {
            for (int round = 0; round < 20; round++) {
                written.set(false);
                CompletableFuture<Boolean> woken =
                        CompletableFuture.supplyAsync(() -> waiter.await(written::get, LONG));
                await().atMost(STEP).until(() -> doorbell.announcedCount() == 1);
                written.set(true);
                doorbell.ringIfAnnounced();
                assertThat(woken.get(STEP.toSeconds(), TimeUnit.SECONDS)).isTrue();
                assertThat(waiter.ringable()).isTrue();
            }
        }
    }

    @Test
    void aRingerHeldAfterItsTakeCostsTheWaiterOneSafetyLookNotItsWait() throws Exception {
        Doorbell doorbell = doorbell();
        assertHeldRingerCostsOneSafetyLook(
                doorbell,
                written,
                slot -> {
                    doorbell.ringIfAnnounced();
                    return true;
                });
    }

    /**
     * A waiter asleep until {@code written}, and a ringer ({@code ring}, given the waiter's slot)
     * held after its take: the ring never comes while it is held, and the waiter's safety look
     * finds the write.
     */
    static void assertHeldRingerCostsOneSafetyLook(
            Doorbell doorbell, AtomicBoolean written, java.util.function.IntPredicate ring)
            throws Exception {
        try (DoorbellWaiter waiter = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE)) {
            int slot = waiter.slot();
            CompletableFuture<Boolean> woken =
                    CompletableFuture.supplyAsync(() -> waiter.await(written::get, LONG));
            await().atMost(STEP).until(() -> doorbell.announcedCount() == 1);
            try (StepGate<Boolean> ringer =
                    StepGate.holdAt(
                            Point.DOORBELL_TAKEN,
                            () -> {
                                written.set(true);
                                return ring.test(slot);
                            })) {
                assertThat(woken.get(STEP.toSeconds(), TimeUnit.SECONDS)).isTrue();
                assertThat(ringer.release()).isTrue();
            }
        }
    }

    @Test
    void aWaitWithNothingWrittenEndsAtItsTimeout() {
        Doorbell doorbell = doorbell();
        try (DoorbellWaiter waiter = doorbell.waiter(WaitPhases.DEFAULT)) {
            assertThat(waiter.await(written::get, Duration.ofMillis(30))).isFalse();
            assertThat(waiter.await(written::get, Duration.ofNanos(300_000))).isFalse();
            assertThat(doorbell.announcedCount()).as("withdrawn once awake").isZero();
        }
    }

    @Test
    void closingEndsAWaitAndFreesTheSlot() throws Exception {
        Doorbell doorbell = doorbell();
        DoorbellWaiter waiter = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE, NEVER, NEVER);
        CompletableFuture<Boolean> waiting =
                CompletableFuture.supplyAsync(() -> waiter.await(written::get, LONG));
        await().atMost(STEP).until(() -> doorbell.announcedCount() == 1);
        waiter.close();
        assertThat(waiting.get(STEP.toSeconds(), TimeUnit.SECONDS)).isFalse();
        assertThat(announced()).isZero();
        for (int i = 0; i < SLOTS; i++) {
            long word = OwnerRecord.ownerWord(body, slotOffset(64, i));
            assertThat(OwnerRecord.pid(word)).isEqualTo(OwnerRecord.NO_OWNER);
        }
        assertThat(Doorbell.socketDirectory(dir.resolve("primitive.cxc"))).doesNotExist();
    }

    @Test
    void deadWaitersAnnouncementsAreDroppedAndTheirSlotsClaimedAgain() throws Exception {
        long dead = deadPid();
        for (int i = 0; i < SLOTS; i++) {
            int slot = slotOffset(64, i);
            OwnerRecord.claim(
                    body,
                    slot,
                    0,
                    OwnerRecord.ownerWord(dead, 1),
                    OwnerRecord.startTimeOf(Pids.current()),
                    () -> 0L);
            body.setLongRelease(
                    slot + WAKE_ADDRESS_OFFSET, WakeSocketFiles.address(dead, 12345, i));
        }
        body.setLongVolatile(64 + ANNOUNCED_OFFSET, -1L); // every bit, past the slots too
        Doorbell doorbell = doorbell();
        doorbell.ringIfAnnounced(); // rings sockets that were never there: dropped
        assertThat(announced()).isZero();

        try (DoorbellWaiter waiter = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE, NEVER, NEVER)) {
            CompletableFuture<Boolean> woken =
                    CompletableFuture.supplyAsync(() -> waiter.await(written::get, LONG));
            await().atMost(STEP).until(() -> doorbell.announcedCount() == 1);
            assertThat(waiter.ringable()).as("a dead waiter's slot, claimed").isTrue();
            written.set(true);
            doorbell.ringIfAnnounced();
            assertThat(woken.get(STEP.toSeconds(), TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aStaleSocketOfADeadProcessIsDeletedByTheNextWaitersBind() throws Exception {
        Path sockets = Doorbell.socketDirectory(dir.resolve("primitive.cxc"));
        java.nio.file.Files.createDirectories(sockets);
        java.nio.file.Files.setPosixFilePermissions(
                sockets, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        long dead = deadPid();
        Path stale = WakeSocketFiles.socketOf(sockets, WakeSocketFiles.address(dead, 777, 3));
        java.nio.file.Files.createFile(stale);
        Doorbell doorbell = doorbell();
        try (DoorbellWaiter waiter = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE, NEVER, NEVER)) {
            assertThat(waiter.await(written::get, Duration.ofMillis(20))).isFalse();
            assertThat(waiter.ringable()).isTrue();
            assertThat(stale).doesNotExist();
        }
    }

    /** A PID whose process has exited and been reaped. */
    static long deadPid() throws Exception {
        Process process = new ProcessBuilder("true").start();
        process.waitFor();
        return process.pid();
    }
}
