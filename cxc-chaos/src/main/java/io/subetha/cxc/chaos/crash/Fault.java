package io.subetha.cxc.chaos.crash;

import java.util.Locale;

/**
 * One thing the harness did to a worker, as its fault log records it.
 *
 * @param nanos when the signal was sent, or the worker was told to start ({@link
 *     System#nanoTime()})
 */
public record Fault(Kind kind, int worker, long pid, long nanos) {

    public enum Kind {
        /** The worker was told to run its workload. */
        START,
        /** SIGKILL: it is dead from some instant after this. */
        KILL,
        /** SIGSTOP: frozen, as in a long GC pause. */
        STOP,
        /** SIGCONT after a stop. */
        CONT
    }

    public String format() {
        return String.format(Locale.ROOT, "%d %s %d %d", nanos, kind, worker, pid);
    }

    public static Fault parse(String line) {
        String[] f = line.trim().split(" ");
        return new Fault(
                Kind.valueOf(f[1]),
                Integer.parseInt(f[2]),
                Long.parseLong(f[3]),
                Long.parseLong(f[0]));
    }
}
