package io.subetha.cxc.chaos;

import java.util.Locale;

/**
 * One fault the harness injected into the current leader.
 *
 * @param kind what was done to it
 * @param victimPid the leader's PID
 * @param victimTerm the term it held
 * @param nanos when the signal was sent ({@link System#nanoTime()})
 * @param detectableNanos when the fault became visible to the election by its own rules, as the
 *     harness saw it by polling the same sources the participants read: for {@link Kind#KILL} and
 *     {@link Kind#STOP}, when {@code /proc} first showed the victim dead (a stop that steps down is
 *     visible earlier, at its logged step-down); for {@link Kind#PAUSE}, when the election file
 *     first showed its heartbeat more than {@code grace} epochs behind; for {@link Kind#REPLACE},
 *     when the new file was in place. 0 if never seen.
 * @param resumedNanos for {@link Kind#PAUSE}, when SIGCONT was sent; else 0
 */
public record ChaosEvent(
        Kind kind,
        long victimPid,
        long victimTerm,
        long nanos,
        long detectableNanos,
        long resumedNanos) {

    public enum Kind {
        /** SIGKILL: the process is gone at once; survivors see its PID dead. */
        KILL,
        /** SIGTERM: the participant steps down in a shutdown hook, then exits. */
        STOP,
        /** SIGSTOP for longer than the grace window, then SIGCONT: a GC pause. */
        PAUSE,
        /**
         * The election file replaced under the running participants (a tmp cleaner, then a newcomer
         * creating the file again): every participant must notice, stop leading the orphan and
         * re-join the file at the path.
         */
        REPLACE
    }

    public String format() {
        return String.format(
                Locale.ROOT,
                "%s %d %d %d %d %d",
                kind,
                victimPid,
                victimTerm,
                nanos,
                detectableNanos,
                resumedNanos);
    }

    public static ChaosEvent parse(String line) {
        String[] f = line.trim().split(" ");
        return new ChaosEvent(
                Kind.valueOf(f[0]),
                Long.parseLong(f[1]),
                Long.parseLong(f[2]),
                Long.parseLong(f[3]),
                Long.parseLong(f[4]),
                Long.parseLong(f[5]));
    }
}
