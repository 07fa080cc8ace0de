package io.subetha.cxc.chaos;

import java.util.Locale;

/**
 * One line of a participant's log: a leadership change it made or observed, or one fenced write.
 * Times are {@link System#nanoTime()} ({@code CLOCK_MONOTONIC} on Linux, so comparable across the
 * processes of one host).
 *
 * @param type what happened
 * @param term the election term concerned (for {@link Type#LOST}, the term lost)
 * @param pid the leader concerned: the writer, the gainer, the loser, or the leader observed (0 for
 *     none)
 * @param nanos when it happened (for {@link Type#WRITE}, when the write started)
 * @param endNanos for {@link Type#WRITE}, when the write returned; else equal to {@code nanos}
 * @param detail the write's outcome, or for {@link Type#LOST} the leader and term seen instead
 * @param reporter the PID of the process that logged the line
 */
public record ChaosRecord(
        Type type, long term, long pid, long nanos, long endNanos, String detail, long reporter) {

    public enum Type {
        /** The reporter became leader: its tick claimed and beat. */
        GAINED,
        /** The reporter's tick found it no longer leads the term it held. */
        LOST,
        /** The reporter stepped down on a graceful stop. */
        STEPDOWN,
        /** A non-leader saw the leader (or term) change. */
        OBSERVED,
        /** A leader offered work to the fenced ledger. */
        WRITE,
        /**
         * The reporter's loop, parked until its next round was due, woke more than a tick interval
         * late ({@code nanos}: when it asked to wake, {@code endNanos}: when it woke): it was
         * frozen or the host did not schedule it. Time spent inside a tick never counts.
         */
        STALL
    }

    public String format() {
        return String.format(
                Locale.ROOT,
                "%s %d %d %d %d %s %d",
                type,
                term,
                pid,
                nanos,
                endNanos,
                detail.isEmpty() ? "-" : detail,
                reporter);
    }

    public static ChaosRecord parse(String line) {
        String[] f = line.trim().split(" ");
        if (f.length != 7) {
            throw new IllegalArgumentException("not a chaos log line: '" + line + "'");
        }
        return new ChaosRecord(
                Type.valueOf(f[0]),
                Long.parseLong(f[1]),
                Long.parseLong(f[2]),
                Long.parseLong(f[3]),
                Long.parseLong(f[4]),
                f[5].equals("-") ? "" : f[5],
                Long.parseLong(f[6]));
    }
}
