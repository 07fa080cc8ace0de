package io.subetha.cxc.wait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * How a waiter idles ({@link Backoff}): {@value Backoff#SPINS} spins first, then parks starting at
 * {@value Backoff#MIN_PARK_NANOS} ns, doubling up to {@value Backoff#MAX_PARK_NANOS} ns (or the
 * wait's own spins, floor and cap). The state is private and one instance serves one wait, so the
 * test reads it by reflection instead of timing the idles.
 */
class BackoffTest {

    private static long field(Backoff backoff, String name) {
        try {
            Field field = Backoff.class.getDeclaredField(name);
            field.setAccessible(true);
            return ((Number) field.get(backoff)).longValue();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static void set(Backoff backoff, String name, Object value) {
        try {
            Field field = Backoff.class.getDeclaredField(name);
            field.setAccessible(true);
            field.set(backoff, value);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theFirstHundredIdlesSpinAndTheNextParksDoubleUpToTheCap() {
        Backoff backoff = new Backoff();
        for (int i = 1; i <= Backoff.SPINS; i++) {
            backoff.idle();
            assertThat(field(backoff, "spins")).as("spins after %d idles", i).isEqualTo(i);
            assertThat(field(backoff, "parkNanos")).isEqualTo(Backoff.MIN_PARK_NANOS);
        }
        long expected = Backoff.MIN_PARK_NANOS;
        for (int park = 1; park <= 10; park++) {
            backoff.idle();
            expected = Math.min(expected * 2, Backoff.MAX_PARK_NANOS);
            assertThat(field(backoff, "spins")).isEqualTo(Backoff.SPINS);
            assertThat(field(backoff, "parkNanos")).as("after park %d", park).isEqualTo(expected);
        }
        assertThat(expected).isEqualTo(Backoff.MAX_PARK_NANOS);
    }

    @Test
    void anIdlePastTheSpinsParksTheThread() throws InterruptedException {
        Backoff backoff = new Backoff();
        set(backoff, "spins", Backoff.SPINS);
        // A park long enough to be seen; the test unparks it.
        set(backoff, "parkNanos", Duration.ofMinutes(10).toNanos());
        Thread idler = new Thread(backoff::idle, "backoff-idler");
        idler.setDaemon(true);
        idler.start();
        try {
            await().atMost(Duration.ofSeconds(60))
                    .until(
                            () ->
                                    idler.getState() == Thread.State.TIMED_WAITING
                                            || idler.getState() == Thread.State.TERMINATED);
            assertThat(idler.getState()).isEqualTo(Thread.State.TIMED_WAITING);
        } finally {
            LockSupport.unpark(idler);
            idler.join(Duration.ofSeconds(60).toMillis());
        }
        assertThat(idler.isAlive()).isFalse();
    }

    @Test
    void aCappedBackoffSpinsAsUsualAndDoublesUpToItsOwnCap() {
        Backoff backoff = Backoff.cappedAt(1_000_000);
        for (int i = 0; i < Backoff.SPINS; i++) {
            backoff.idle();
        }
        assertThat(field(backoff, "spins")).isEqualTo(Backoff.SPINS);
        assertThat(field(backoff, "parkNanos")).isEqualTo(Backoff.MIN_PARK_NANOS);
        set(backoff, "parkNanos", 400_000L);
        backoff.idle();
        assertThat(field(backoff, "parkNanos")).isEqualTo(800_000);
        backoff.idle();
        assertThat(field(backoff, "parkNanos")).isEqualTo(1_000_000);
        backoff.idle();
        assertThat(field(backoff, "parkNanos")).isEqualTo(1_000_000);
    }

    @Test
    void aParkingBackoffParksFromItsFirstIdleStartingAtItsFloor() {
        Backoff backoff = Backoff.parking(50_000, 120_000);
        assertThat(field(backoff, "parkNanos")).isEqualTo(50_000);
        backoff.idle();
        assertThat(field(backoff, "spins")).isZero();
        assertThat(field(backoff, "parkNanos")).isEqualTo(100_000);
        backoff.idle();
        assertThat(field(backoff, "parkNanos")).isEqualTo(120_000);
    }

    @Test
    void aBackoffWithItsOwnSpinsSpinsThatManyTimesBeforeItsFirstPark() {
        Backoff backoff = new Backoff(2, 4_000, Backoff.MAX_PARK_NANOS);
        backoff.idle();
        backoff.idle();
        assertThat(field(backoff, "spins")).isEqualTo(2);
        assertThat(field(backoff, "parkNanos")).isEqualTo(4_000);
        backoff.idle();
        assertThat(field(backoff, "spins")).isEqualTo(2);
        assertThat(field(backoff, "parkNanos")).isEqualTo(8_000);
    }

    @Test
    void anIdleWithABoundParksNoLongerThanTheBoundAndStillDoubles() throws InterruptedException {
        Backoff backoff = Backoff.parking(Duration.ofMinutes(10).toNanos(), Long.MAX_VALUE / 4);
        // A ten-minute park cut to a millisecond: the thread ends without being unparked.
        Thread idler =
                new Thread(
                        () -> backoff.idleAtMost(Duration.ofMillis(1).toNanos()), "bounded-idler");
        idler.setDaemon(true);
        idler.start();
        try {
            idler.join(Duration.ofSeconds(60).toMillis());
            assertThat(idler.isAlive()).isFalse();
        } finally {
            LockSupport.unpark(idler);
        }
        assertThat(field(backoff, "parkNanos")).isEqualTo(Duration.ofMinutes(20).toNanos());
        Thread overdue = new Thread(() -> backoff.idleAtMost(-5), "overdue-idler");
        overdue.setDaemon(true);
        overdue.start();
        try {
            overdue.join(Duration.ofSeconds(60).toMillis());
            assertThat(overdue.isAlive()).isFalse();
        } finally {
            LockSupport.unpark(overdue);
        }
    }

    @Test
    void aBackoffRefusesNegativeSpinsANonPositiveFloorAndACapBelowItsFloor() {
        assertThatThrownBy(() -> new Backoff(-1, 1_000, 2_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1 spins");
        assertThatThrownBy(() -> Backoff.parking(0, 2_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0 ns");
        assertThatThrownBy(() -> Backoff.cappedAt(999))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1000 ns, 999 ns");
        assertThat(field(new Backoff(0, 7, 7), "parkNanos")).isEqualTo(7);
    }
}
