package io.subetha.cxc.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * How a waiter idles ({@link Backoff}): {@value Backoff#SPINS} spins first, then parks starting at
 * {@value Backoff#MIN_PARK_NANOS} ns, doubling up to {@value Backoff#MAX_PARK_NANOS} ns. The state
 * is private and one instance serves one wait, so the test reads it by reflection instead of timing
 * the idles.
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
}
