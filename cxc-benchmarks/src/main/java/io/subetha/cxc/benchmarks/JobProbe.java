package io.subetha.cxc.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The one job body every runner in {@link JobRunnerShootout} runs, so each row times the same work:
 * it notes when it started and counts its runs. Public with a public static method because JobRunr
 * stores a job as the static call its lambda makes and calls it by reflection.
 */
public final class JobProbe {

    /** A payload whose first attempt throws and whose second notes when it started. */
    public static final long RETRY = -1;

    /** A payload that a {@link #holding} process holds forever, and any other process runs. */
    public static final long HOLD = -2;

    static final AtomicLong RAN = new AtomicLong();
    static final AtomicLong LAST_START = new AtomicLong();
    static final AtomicLong FAILED_AT = new AtomicLong();
    static final AtomicLong RETRIED_AT = new AtomicLong();
    static final AtomicLong RECOVERED_AT = new AtomicLong();

    /** Set in a child that is to hold {@link #HOLD} until it is SIGKILLed. */
    static volatile boolean holding;

    private JobProbe() {}

    public static void handle(long payload) {
        long now = System.nanoTime();
        if (payload == HOLD) {
            if (holding) {
                JobRunnerShootout.say("holding");
                sleepForever();
            }
            RECOVERED_AT.compareAndSet(0, now);
        } else if (payload == RETRY) {
            if (FAILED_AT.compareAndSet(0, System.nanoTime())) {
                throw new IllegalStateException("the first attempt of the retry probe fails");
            }
            RETRIED_AT.compareAndSet(0, now);
        } else {
            LAST_START.set(now);
            RAN.incrementAndGet();
        }
    }

    /** Waits until the probe has run {@code target} plain jobs in this process. */
    static void awaitRuns(long target, String what) {
        await(() -> RAN.get() >= target ? 1 : 0, 600, what, 1_000_000);
    }

    static void reset() {
        LAST_START.set(0);
        FAILED_AT.set(0);
        RETRIED_AT.set(0);
        RECOVERED_AT.set(0);
    }

    /**
     * Waits (parking 20 µs at a time, so the waiter leaves the runner's threads a core) until
     * {@code value} is non-zero; its value.
     */
    static long await(LongSupplier value, long timeoutSeconds, String what) {
        return await(value, timeoutSeconds, what, 20_000);
    }

    /**
     * As {@link #await(LongSupplier, long, String)}, checking every {@code pollNanos}: a check that
     * queries a runner's store waits 1 ms between queries so it does not load the store it
     * measures.
     */
    static long await(LongSupplier value, long timeoutSeconds, String what, long pollNanos) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        long v;
        while ((v = value.getAsLong()) == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        what + " did not happen in " + timeoutSeconds + " s");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(pollNanos);
        }
        return v;
    }

    private static void sleepForever() {
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
