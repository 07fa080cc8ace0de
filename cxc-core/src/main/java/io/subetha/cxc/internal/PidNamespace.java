package io.subetha.cxc.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's PID namespace, identified (on Linux) by the inode of {@code /proc/self/ns/pid}.
 * PIDs are only comparable inside one namespace: two containers sharing a file would otherwise both
 * see "their" PID 1 and elect two leaders.
 */
public final class PidNamespace {

    /**
     * Stored when the namespace cannot be read (not Linux, /proc not mounted). A process that knows
     * its own namespace refuses a file that records this value; one that does not opens any file.
     */
    public static final long UNKNOWN = 0;

    private static final long CURRENT = read(Path.of("/proc/self/ns/pid"));

    private PidNamespace() {}

    /** This process's namespace inode, or {@link #UNKNOWN}. */
    public static long current() {
        return CURRENT;
    }

    static long read(Path link) {
        try {
            // The link reads "pid:[4026531836]".
            String target = Files.readSymbolicLink(link).toString();
            int open = target.indexOf('[');
            int close = target.indexOf(']', open + 1);
            if (open < 0 || close < 0) {
                return UNKNOWN;
            }
            return Long.parseLong(target.substring(open + 1, close));
        } catch (IOException | UnsupportedOperationException | NumberFormatException e) {
            return UNKNOWN;
        }
    }
}
