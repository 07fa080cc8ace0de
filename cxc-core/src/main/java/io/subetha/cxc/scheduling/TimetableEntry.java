package io.subetha.cxc.scheduling;

import java.time.Instant;

/**
 * A recurring or delayed job in a scheduler's timetable, as {@link BackgroundScheduler#timetable()}
 * lists it.
 *
 * @param name its name ({@code @entry.fire} for a delayed job)
 * @param recurrence its recurrence's spec ({@code fixed-rate:PT10S}, {@code cron:…}), or {@code
 *     once} for a delayed job
 * @param nextDue when it is due next
 * @param fires how often it has fired since its name was first scheduled (a re-schedule of the name
 *     keeps counting)
 * @param firing whether a process is firing it at this moment
 */
public record TimetableEntry(
        String name, String recurrence, Instant nextDue, long fires, boolean firing) {

    /** One line for an operator: {@code name recurrence, next due at …, fired n times}. */
    public String summary() {
        return name
                + " "
                + recurrence
                + (firing ? ", firing now" : ", next due at " + nextDue)
                + ", fired "
                + fires
                + " times";
    }
}
