package io.subetha.cxc.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.util.ServiceLoader;

/**
 * When a timetable entry of a {@link BackgroundScheduler} is due again. The file keeps the entry's
 * {@link #spec()}, so every process that fires the entry computes the same next due time: {@code
 * fixed-rate:PT10S}, {@code fixed-delay:PT10S}, and whatever prefixes the {@link RecurrenceFormat}s
 * on the class path read (the Spring Boot starter adds {@code cron:}).
 *
 * <p><b>Missed fires.</b> An entry fires once per due time. When it fires late (every process was
 * down, or busy, past one or more due times) the fires it missed are coalesced into the one it
 * makes now, and the next due time is the first one after now: {@link #nextAfterFire}.
 */
public interface Recurrence {

    /** The first due time after {@code after}. */
    Instant next(Instant after);

    /** How the file keeps this recurrence: {@code <prefix>:<text>}, re-read by {@link #parse}. */
    String spec();

    /**
     * The due time after a fire due at {@code due} made at {@code firedAt}: {@code next(due)} when
     * that is still ahead (a fire on time keeps to its schedule), else {@code next(firedAt)} (the
     * missed fires were coalesced into this one).
     */
    default Instant nextAfterFire(Instant due, Instant firedAt) {
        Instant next = next(due);
        return next.isAfter(firedAt) ? next : next(firedAt);
    }

    /** Due every {@code period}, on a grid from the first due time (catching up as above). */
    static Recurrence fixedRate(Duration period) {
        return new FixedRecurrence(FixedRecurrence.RATE, period);
    }

    /** Due {@code delay} after each fire. */
    static Recurrence fixedDelay(Duration delay) {
        return new FixedRecurrence(FixedRecurrence.DELAY, delay);
    }

    /**
     * Reads a recurrence from its {@link #spec()}.
     *
     * @throws IllegalArgumentException if no format on this class path reads it, or it is wrong
     */
    static Recurrence parse(String spec) {
        int colon = spec.indexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException(
                    "recurrence \""
                            + spec
                            + "\" must be <kind>:<text>, e.g. fixed-rate:PT10S, fixed-delay:PT1M"
                            + " or, with the Spring Boot starter, cron:0 */5 * * * *");
        }
        String kind = spec.substring(0, colon);
        String text = spec.substring(colon + 1);
        if (kind.equals(FixedRecurrence.RATE) || kind.equals(FixedRecurrence.DELAY)) {
            return FixedRecurrence.parse(kind, text);
        }
        for (RecurrenceFormat format : ServiceLoader.load(RecurrenceFormat.class)) {
            if (format.kind().equals(kind)) {
                return format.parse(text);
            }
        }
        throw new IllegalArgumentException(
                "recurrence \""
                        + spec
                        + "\" is of an unknown kind \""
                        + kind
                        + "\": this class path reads fixed-rate, fixed-delay and "
                        + RecurrenceFormat.kinds()
                        + " (cron comes with the Spring Boot starter)");
    }
}
