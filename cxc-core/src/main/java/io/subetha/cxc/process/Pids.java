package io.subetha.cxc.process;

/** PID arguments: CXC stores PIDs as u32 and reserves 0 as "nobody". */
public final class Pids {

    /** The largest PID a cxc file can hold. */
    public static final long MAX_PID = 0xFFFF_FFFFL;

    private static final long CURRENT = ProcessHandle.current().pid();

    private Pids() {}

    /** This process's PID. */
    public static long current() {
        return CURRENT;
    }

    /**
     * @return {@code pid}
     * @throws IllegalArgumentException if {@code pid} is 0 (the reserved "no process") or outside
     *     1..2^32-1
     */
    public static long requireValid(long pid) {
        if (pid <= 0 || pid > MAX_PID) {
            throw new IllegalArgumentException(
                    pid == 0
                            ? "PID 0 is reserved for \"no process\" and cannot take part; pass"
                                    + " ProcessHandle.current().pid()"
                            : "PID "
                                    + pid
                                    + " is outside 1.."
                                    + MAX_PID
                                    + "; pass ProcessHandle.current().pid()");
        }
        return pid;
    }
}
