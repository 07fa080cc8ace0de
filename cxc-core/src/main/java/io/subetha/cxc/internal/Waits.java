package io.subetha.cxc.internal;

import java.time.Duration;

/** A caller's wait as nanoseconds for a deadline on {@link System#nanoTime()}. */
public final class Waits {

    /**
     * The longest wait: about 73 years, a quarter of {@code nanoTime}'s range, so that {@code now +
     * wait} never overflows and every deadline compares by subtraction.
     */
    public static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE / 4);

    private Waits() {}

    /**
     * {@code wait} in nanoseconds, {@link #LONGEST} at most: {@link Duration#toNanos()} throws past
     * about 292 years, and {@code Duration.ofSeconds(Long.MAX_VALUE)} or {@code
     * ChronoUnit.FOREVER.getDuration()} is how callers say "no limit".
     */
    public static long nanos(Duration wait) {
        return wait.compareTo(LONGEST) > 0 ? LONGEST.toNanos() : wait.toNanos();
    }
}
