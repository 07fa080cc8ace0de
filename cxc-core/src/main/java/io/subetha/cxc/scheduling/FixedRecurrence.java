package io.subetha.cxc.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** Core's recurrences: a fixed rate (on a grid) or a fixed delay after each fire. */
record FixedRecurrence(String kind, Duration period) implements Recurrence {

    static final String RATE = "fixed-rate";
    static final String DELAY = "fixed-delay";

    /** The shortest period: a timetable fires from workers' polls, not from a timer. */
    static final Duration SHORTEST = Duration.ofMillis(1);

    FixedRecurrence {
        if (period.compareTo(SHORTEST) < 0 || period.compareTo(Duration.ofDays(3650)) > 0) {
            throw new IllegalArgumentException(
                    kind + " period must be 1 ms .. 3650 days, got " + period);
        }
    }

    static FixedRecurrence parse(String kind, String text) {
        try {
            return new FixedRecurrence(kind, Duration.parse(text));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    kind + " period \"" + text + "\" is not an ISO-8601 duration such as PT10S", e);
        }
    }

    @Override
    public Instant next(Instant after) {
        return after.plus(period);
    }

    @Override
    public Instant nextAfterFire(Instant due, Instant firedAt) {
        return kind.equals(DELAY)
                ? firedAt.plus(period)
                : Recurrence.super.nextAfterFire(due, firedAt);
    }

    @Override
    public String spec() {
        return kind + ":" + period;
    }
}
