package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.scheduling.Recurrence;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A recurring job declared by {@code cxc.schedulers.<scheduler>.recurring.<name>.*}, checked.
 *
 * @param scheduler the declared scheduler's name
 * @param name the job's name in the scheduler's timetable
 * @param recurrence when it is due
 * @param payload the job, as the property gives it (converted to the job type at registration)
 * @param property the job's property prefix, for messages
 * @param keepResult whether each fire's result waits for a collector (else discarded as it ends)
 */
public record RecurringJob(
        String scheduler,
        String name,
        Recurrence recurrence,
        String payload,
        String property,
        boolean keepResult) {

    /**
     * Checks one declaration: exactly one of {@code cron}, {@code fixed-rate} and {@code
     * fixed-delay}, and a payload.
     *
     * @throws InvalidCxcPropertyException naming the property and what to set
     */
    public static RecurringJob declared(
            String scheduler,
            String name,
            @Nullable String cron,
            String zone,
            @Nullable Duration fixedRate,
            @Nullable Duration fixedDelay,
            @Nullable String payload,
            boolean keepResult) {
        String property = "cxc.schedulers." + scheduler + ".recurring." + name;
        List<String> given = new ArrayList<>();
        if (cron != null) {
            given.add("cron");
        }
        if (fixedRate != null) {
            given.add("fixed-rate");
        }
        if (fixedDelay != null) {
            given.add("fixed-delay");
        }
        if (given.size() != 1) {
            throw new InvalidCxcPropertyException(
                    property,
                    given,
                    given.isEmpty()
                            ? "it says not when the job is due"
                            : "it gives " + given + ", which say different things",
                    "Set exactly one of "
                            + property
                            + ".cron (e.g. 0 0 2 * * *), .fixed-rate or .fixed-delay (e.g. 10m).");
        }
        if (payload == null) {
            throw new InvalidCxcPropertyException(
                    property + ".payload",
                    null,
                    "it is missing: each fire submits this job",
                    "Set "
                            + property
                            + ".payload to the job, as its scheduler's job type reads it.");
        }
        String setting = property + "." + given.get(0);
        Recurrence recurrence;
        try {
            recurrence =
                    cron != null
                            ? CronRecurrence.of(cron, zone)
                            : fixedRate != null
                                    ? Recurrence.fixedRate(fixedRate)
                                    : Recurrence.fixedDelay(fixedDelay);
        } catch (IllegalArgumentException e) {
            Object value = cron != null ? cron : fixedRate != null ? fixedRate : fixedDelay;
            throw new InvalidCxcPropertyException(
                    setting, value, e.getMessage(), "Correct " + setting + ".");
        }
        return new RecurringJob(scheduler, name, recurrence, payload, property, keepResult);
    }
}
