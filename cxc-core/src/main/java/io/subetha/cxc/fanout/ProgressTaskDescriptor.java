package io.subetha.cxc.fanout;

/**
 * Body layout of a {@link ProgressTask} file. Offsets are relative to the body, which follows the
 * 64-byte common header. Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "PROGRES1" (ASCII)                 0   |
 * +---------------------------------------------------------------+
 * |                  Total units (u64, fixed at creation)     8   |
 * +---------------------------------------------------------------+
 * |                  Done units (u64, atomic adds)           16   |
 * +---------------------------------------------------------------+
 * |     State (u32: RUNNING, COMPLETED, FAILING, FAILED)     24   |
 * |     PID of the process that ended it (u32)                    |
 * +---------------------------------------------------------------+
 * |                  Last update, epoch ms (u64)             32   |
 * +---------------------------------------------------------------+
 * |                  Reason length (u32), reserved           40   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                          48   |
 * +---------------------------------------------------------------+
 * |                  Failure reason, UTF-8 (256 bytes)       64   |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Done</b> is only ever added to: every worker's {@code advance} is one atomic add.
 *   <li><b>State word</b>: the task ends once, by one CAS from {@code RUNNING}: to {@code
 *       COMPLETED}, or to {@code FAILING} naming the failing PID, which alone then writes the
 *       reason and publishes {@code FAILED} with a release store. A failer killed in between leaves
 *       {@code FAILING} under a dead PID: readers report the task failed, reason unknown.
 * </ul>
 */
public final class ProgressTaskDescriptor {

    public static final String MAGIC = "PROGRES1";
    public static final int LAYOUT_VERSION = 1;

    public static final int TOTAL_OFFSET = 8;
    public static final int DONE_OFFSET = 16;
    public static final int STATE_OFFSET = 24;
    public static final int LAST_UPDATE_OFFSET = 32;
    public static final int REASON_LENGTH_OFFSET = 40;
    public static final int REASON_OFFSET = 64;
    public static final int MAX_REASON_BYTES = 256;

    public static final int BODY_LENGTH = REASON_OFFSET + MAX_REASON_BYTES;

    public static final int RUNNING = 0;
    public static final int COMPLETED = 1;
    public static final int FAILING = 2;
    public static final int FAILED = 3;

    private ProgressTaskDescriptor() {}

    public static long stateWord(int state, long pid) {
        return (pid << 32) | state;
    }

    public static int state(long word) {
        return (int) word;
    }

    public static long pid(long word) {
        return word >>> 32;
    }
}
