package io.subetha.cxc.wait;

import java.time.Duration;

/**
 * The end of a wait on {@link System#nanoTime()}, compared by subtraction (so a clock that wraps
 * does not matter). A wait is {@link #LONGEST} at most, so that {@code now + wait} never overflows.
 */
public final class Deadline {

    /**
     * The longest wait: about 73 years, a quarter of {@code nanoTime}'s range, so that {@code now +
     * wait} never overflows and every deadline compares by subtraction.
     */
    public static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE / 4);

    private final long at;

    private Deadline(long at) {
        this.at = at;
    }

    /** The deadline {@code wait} (at most {@link #LONGEST}) from now. */
    public static Deadline after(Duration wait) {
        return new Deadline(System.nanoTime() + nanos(wait));
    }

    /**
     * {@code wait} in nanoseconds, {@link #LONGEST} at most: {@link Duration#toNanos()} throws past
     * about 292 years, and {@code Duration.ofSeconds(Long.MAX_VALUE)} or {@code
     * ChronoUnit.FOREVER.getDuration()} is how callers say "no limit".
     */
    public static long nanos(Duration wait) {
        return wait.compareTo(LONGEST) > 0 ? LONGEST.toNanos() : wait.toNanos();
    }

    /** Nanoseconds left until the deadline; zero or less once it is reached. */
    public long remainingNanos() {
        return at - System.nanoTime();
    }

    /** Whether the deadline is reached: no time remains. */
    public boolean passed() {
        return remainingNanos() <= 0;
    }
}
