package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.scheduling.Recurrence;
import io.subetha.cxc.scheduling.RecurrenceFormat;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.springframework.scheduling.support.CronExpression;

/**
 * A recurrence by a Spring {@link CronExpression} in a time zone, kept in a scheduler's file as
 * {@code cron:<expression>|<zone>}, so every process fires it at the same instants whatever its own
 * zone. Found by core's {@link Recurrence#parse} through its {@link Format}.
 *
 * @param expression six fields, as {@code @Scheduled(cron = …)} takes them: {@code 0 0 2 * * *} (at
 *     2 am)
 * @param zone the zone the expression's fields are read in
 */
public record CronRecurrence(CronExpression expression, ZoneId zone) implements Recurrence {

    public static final String KIND = "cron";

    /**
     * Reads {@code expression} in {@code zone}.
     *
     * @throws IllegalArgumentException saying what is wrong with the expression or the zone
     */
    public static CronRecurrence of(String expression, String zone) {
        CronExpression cron;
        try {
            cron = CronExpression.parse(expression);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cron expression \""
                            + expression
                            + "\" is not one Spring reads (six fields: second minute hour"
                            + " day-of-month month day-of-week, e.g. 0 */5 * * * *): "
                            + e.getMessage(),
                    e);
        }
        try {
            return new CronRecurrence(cron, ZoneId.of(zone));
        } catch (DateTimeException e) {
            throw new IllegalArgumentException(
                    "time zone \"" + zone + "\" is not a zone id such as UTC or Europe/Paris", e);
        }
    }

    @Override
    public Instant next(Instant after) {
        ZonedDateTime next = expression.next(after.atZone(zone));
        if (next == null) {
            throw new IllegalStateException(
                    "cron expression \"" + expression + "\" is never due after " + after);
        }
        return next.toInstant();
    }

    @Override
    public String spec() {
        return KIND + ":" + expression + "|" + zone.getId();
    }

    /** The {@link RecurrenceFormat} of {@code cron:} specs, registered as a service. */
    public static final class Format implements RecurrenceFormat {

        @Override
        public String kind() {
            return KIND;
        }

        @Override
        public Recurrence parse(String text) {
            int bar = text.lastIndexOf('|');
            return bar < 0 ? of(text, "UTC") : of(text.substring(0, bar), text.substring(bar + 1));
        }
    }
}
