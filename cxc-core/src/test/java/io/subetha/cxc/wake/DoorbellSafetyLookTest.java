package io.subetha.cxc.wake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What ends a waiter's sleep decides its next safety look, and the end of a wait is slept
 * announced: an idle waiter whose caller's look also asks the clock wakes rarely, and a ring in the
 * last millisecond of a wait is not lost.
 */
class DoorbellSafetyLookTest {

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

    /** A look that says yes on its {@code n}th call: no write, no ring, no clock of the test's. */
    static java.util.function.BooleanSupplier yesOnCall(int n) {
        AtomicInteger calls = new AtomicInteger();
        return () -> calls.incrementAndGet() >= n;
    }

    @Test
    void aWaitFoundWhenItsSleepTimedOutKeepsTheSafetyLookGrowing() {
        Doorbell doorbell = doorbell();
        try (DoorbellWaiter waiter = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE)) {
            // Calls: before the wait, the look after announcing, the look after the sleep.
            assertThat(waiter.await(yesOnCall(3), LONG)).isTrue();
            long grown = waiter.safetyLookNanos();
            assertThat(grown).isGreaterThan(DoorbellWaiter.FIRST_SAFETY_LOOK_NANOS);

            assertThat(waiter.await(yesOnCall(3), LONG)).isTrue();
            assertThat(waiter.safetyLookNanos())
                    .as("a look the clock answered is no write: the next sleep is longer still")
                    .isGreaterThan(grown);
        }
    }

    @Test
    void aWaitFoundAfterARingStartsTheSafetyLookShortAgain() throws Exception {
        Doorbell doorbell = doorbell();
        try (DoorbellWaiter waiter = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE)) {
            assertThat(waiter.await(yesOnCall(3), LONG)).isTrue();
            assertThat(waiter.safetyLookNanos())
                    .isGreaterThan(DoorbellWaiter.FIRST_SAFETY_LOOK_NANOS);

            AtomicBoolean written = new AtomicBoolean();
            CompletableFuture<Boolean> woken =
                    CompletableFuture.supplyAsync(() -> waiter.await(written::get, LONG));
            await().atMost(STEP).until(() -> doorbell.announcedCount() == 1);
            written.set(true);
            doorbell.ringIfAnnounced();
            assertThat(woken.get(STEP.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(waiter.safetyLookNanos()).isEqualTo(DoorbellWaiter.FIRST_SAFETY_LOOK_NANOS);
        }
    }

    @Test
    void theLastPartialMillisecondOfAWaitIsSleptAnnounced() {
        Doorbell doorbell = doorbell();
        long timeout = TimeUnit.MILLISECONDS.toNanos(200);
        long look = TimeUnit.MILLISECONDS.toNanos(5); // the first sleep: far from the timeout
        long[] firstLook = new long[1];
        AtomicInteger announcedLooks = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        try (DoorbellWaiter waiter = doorbell.waiter(WaitPhases.SLEEP_AT_ONCE, look, look)) {
            assertThat(waiter.slot()).as("claimed and bound before the wait").isNotNegative();
            boolean found =
                    waiter.await(
                            () -> {
                                int call = calls.incrementAndGet();
                                long now = System.nanoTime();
                                if (call == 1) {
                                    firstLook[0] = now; // the wait's clock starts right after
                                } else if (doorbell.announcedCount() == 1) {
                                    announcedLooks.incrementAndGet();
                                } else if (call == 3) {
                                    // After the first sleep: let less than a millisecond remain.
                                    long tail = firstLook[0] + timeout - 700_000;
                                    while (System.nanoTime() - tail < -2_000_000) {
                                        LockSupport.parkNanos(1_000_000);
                                    }
                                    while (System.nanoTime() - tail < 0) {
                                        Thread.onSpinWait();
                                    }
                                }
                                return false;
                            },
                            Duration.ofNanos(timeout));
            assertThat(found).isFalse();
        }
        // A look after the tail (call 4) or none: none if this thread lost the processor past
        // the wait's end between the spin and the wait's clock (a loaded host), telling nothing.
        assumeThat(calls.get()).as("the wait reached its last millisecond").isGreaterThan(3);
        assertThat(announcedLooks.get())
                .as("the looks before the first sleep and before the last partial millisecond")
                .isEqualTo(2);
    }
}
