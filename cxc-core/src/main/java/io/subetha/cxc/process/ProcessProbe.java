package io.subetha.cxc.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Tells whether a PID still names the process that registered it. Off the fast path only: one probe
 * reads {@code /proc/<pid>/stat} (about 10 µs).
 *
 * <p>A process's identity is its PID plus its start time, so a PID reused by a new process is told
 * apart from the original. On Linux the start time is field 22 of {@code /proc/<pid>/stat} (clock
 * ticks since boot), the same value for every observer on the host; elsewhere it falls back to
 * {@link ProcessHandle.Info#startInstant()} in milliseconds. A zombie (state {@code Z} or {@code
 * X}) has stopped running but still looks present to {@link ProcessHandle}: it counts as dead.
 *
 * <p><b>A dying process is dead.</b> A SIGKILLed JVM is not a zombie at once: its threads must each
 * be scheduled to exit, and the last one tears the address space down first (on a 2-core host, 30
 * ms and more at the 99th percentile, seen in the chaos runs). From the {@code stat} line read
 * anyway, two fields tell sooner that it can never run again: a SIGKILL pending on its first thread
 * (field 31; a SIGKILL cannot be blocked or caught) and the kernel's exiting flag on that thread
 * (field 9, {@code PF_EXITING}, set as the thread starts to exit). A process whose first thread
 * ended on its own while others run on would look dead too, as its zombie first thread always did;
 * the {@code java} launcher's first thread waits for the JVM to end, so a JVM never does that.
 *
 * <p><b>A {@code /proc} of another PID namespace.</b> A process started with {@code unshare -p -f}
 * but without {@code --mount-proc} (or in a container that shares the host's {@code /proc}) sees a
 * {@code /proc} whose PIDs are not its own: every PID it knows would look missing or belong to
 * someone else, and every leader would be judged dead. So at startup the probe compares {@code
 * readlink /proc/self} with this process's PID; on a mismatch it answers {@link
 * ProcessStatus#UNKNOWN} for every PID (never {@link ProcessStatus#DEAD}: heartbeats alone then
 * decide) and records no start times. {@link #procMatchesPidNamespace()} tells which case holds.
 */
public final class ProcessProbe {

    /** Stored when a start time is not known; never compared. */
    public static final long UNKNOWN_START_TIME = 0;

    private static final Path PROC = Path.of("/proc");
    private static final boolean HAS_PROC = Files.isReadable(PROC.resolve("self/stat"));

    /** Whether {@code /proc} shows this process under its own PID: false for a foreign /proc. */
    private static final boolean PROC_IS_OURS =
            !HAS_PROC || procSelfIs(ProcessHandle.current().pid());

    private static final long OWN_PID = ProcessHandle.current().pid();

    /**
     * This process's start time, read once: a judge's own record, which every scan of an idle
     * process meets first, is answered without reading {@code /proc}.
     */
    private static final long OWN_START_TIME =
            HAS_PROC && PROC_IS_OURS ? startTimeFromProc(OWN_PID) : UNKNOWN_START_TIME;

    private ProcessProbe() {}

    private static long startTimeFromProc(long pid) {
        Stat stat = readStat(pid);
        return stat == null ? UNKNOWN_START_TIME : stat.startTime;
    }

    /**
     * The start time of {@code pid} in this host's comparable units, or {@link
     * #UNKNOWN_START_TIME}.
     */
    public static long startTime(long pid) {
        if (!PROC_IS_OURS) {
            return UNKNOWN_START_TIME;
        }
        if (pid == OWN_PID && OWN_START_TIME != UNKNOWN_START_TIME) {
            return OWN_START_TIME;
        }
        if (HAS_PROC) {
            return startTimeFromProc(pid);
        }
        return ProcessHandle.of(pid)
                .flatMap(h -> h.info().startInstant())
                .map(Instant::toEpochMilli)
                .orElse(UNKNOWN_START_TIME);
    }

    /**
     * @param expectedStartTime the start time recorded when the process registered (its low 32 bits
     *     are compared), or {@link #UNKNOWN_START_TIME} to check presence only
     */
    public static ProcessStatus status(long pid, long expectedStartTime) {
        if (pid <= 0 || pid > Pids.MAX_PID) {
            return ProcessStatus.DEAD;
        }
        if (!PROC_IS_OURS) {
            return ProcessStatus.UNKNOWN;
        }
        if (pid == OWN_PID && OWN_START_TIME != UNKNOWN_START_TIME) {
            // This very process runs this line: alive, unless the PID is an earlier process's.
            return expectedStartTime == UNKNOWN_START_TIME
                            || sameStartTime(OWN_START_TIME, expectedStartTime)
                    ? ProcessStatus.ALIVE
                    : ProcessStatus.DEAD;
        }
        if (HAS_PROC) {
            Stat stat;
            try {
                stat = readStatOrThrow(pid);
            } catch (NoSuchFileException e) {
                return ProcessStatus.DEAD;
            } catch (IOException | RuntimeException e) {
                return ProcessStatus.UNKNOWN;
            }
            if (stat.dying()) {
                return ProcessStatus.DEAD;
            }
            if (expectedStartTime != UNKNOWN_START_TIME
                    && !sameStartTime(stat.startTime, expectedStartTime)) {
                return ProcessStatus.DEAD;
            }
            return ProcessStatus.ALIVE;
        }
        var handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return ProcessStatus.DEAD;
        }
        if (expectedStartTime != UNKNOWN_START_TIME) {
            long actual =
                    handle.get()
                            .info()
                            .startInstant()
                            .map(Instant::toEpochMilli)
                            .orElse(UNKNOWN_START_TIME);
            if (actual != UNKNOWN_START_TIME && !sameStartTime(actual, expectedStartTime)) {
                return ProcessStatus.DEAD;
            }
        }
        return ProcessStatus.ALIVE;
    }

    /**
     * Whether {@code /proc} belongs to this process's PID namespace ({@code /proc/self} names this
     * process's PID), or there is no {@code /proc}. When false, every status is {@link
     * ProcessStatus#UNKNOWN}.
     */
    public static boolean procMatchesPidNamespace() {
        return PROC_IS_OURS;
    }

    static boolean procSelfIs(long pid) {
        try {
            return Files.readSymbolicLink(PROC.resolve("self"))
                    .toString()
                    .equals(Long.toString(pid));
        } catch (IOException | UnsupportedOperationException e) {
            return false; // no way to tell that /proc is ours: trust nothing it says
        }
    }

    /**
     * Start times compare in their low 32 bits: that is what a cxc file keeps, in one word with the
     * owner key it belongs to (see {@code OwnerRecord}).
     */
    public static boolean sameStartTime(long a, long b) {
        return (int) a == (int) b;
    }

    /** {@code PF_EXITING} in a task's flags (include/linux/sched.h): the task has begun to exit. */
    static final long PF_EXITING = 0x4;

    /** SIGKILL (9) in a pending-signal mask. */
    static final long SIGKILL_PENDING = 1L << (9 - 1);

    /**
     * What a {@code stat} line says: its state, the first thread's kernel flags and pending signals
     * (-1 where the line is too short to hold them), and the start time.
     */
    record Stat(char state, long flags, long pendingSignals, long startTime) {

        /** A zombie, or a process that has begun to die and can never run again. */
        boolean dying() {
            return state == 'Z'
                    || state == 'X'
                    || state == 'x'
                    || (flags > 0 && (flags & PF_EXITING) != 0)
                    || (pendingSignals > 0 && (pendingSignals & SIGKILL_PENDING) != 0);
        }
    }

    private static Stat readStat(long pid) {
        try {
            return readStatOrThrow(pid);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static Stat readStatOrThrow(long pid) throws IOException {
        return parseStat(
                new String(
                        Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("stat")),
                        StandardCharsets.US_ASCII));
    }

    /**
     * Parses a {@code /proc/<pid>/stat} line: "pid (comm) state ppid ...". The comm may hold spaces
     * and parentheses, so fields are counted from the last ')': field 3 (state) comes first, field
     * 9 (flags) 6 later, field 22 (starttime) 19 later, field 31 (pending signals) 28 later.
     */
    static Stat parseStat(String line) {
        int close = line.lastIndexOf(')');
        String[] fields = line.substring(close + 2).trim().split(" ");
        return new Stat(
                fields[0].charAt(0),
                fields.length > 6 ? Long.parseLong(fields[6]) : -1,
                fields.length > 28 ? Long.parseLong(fields[28]) : -1,
                Long.parseLong(fields[19]));
    }
}
