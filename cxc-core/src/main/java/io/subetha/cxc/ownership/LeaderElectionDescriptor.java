package io.subetha.cxc.ownership;

import io.subetha.cxc.mmf.FileSpec;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.mmf.PrimitiveKind;

/**
 * Body layout of a {@link SharedLeaderElection} file: the seed's 64-byte {@code LeaderHeader}
 * (magic, leader PID, election term, leader heartbeat, global epoch, 32 bytes of padding), with the
 * padding put to work. Offsets are relative to the body, which follows the 64-byte common header.
 * Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "LEADER01" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+ -.
 * |                  Leader PID (u32, 0 = no leader)          8   |  | leader word:
 * +---------------------------------------------------------------+  | one aligned u64,
 * |                  Election term (u32)                     12   |  | CAS'd as one
 * +---------------------------------------------------------------+ -'
 * |                  Leader heartbeat, in epochs (u64)       16   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Global epoch (u64)                      24   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Leader start time (u64)                 32   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Term of the start time (u32)            40   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (u32)                    44   |
 * +---------------------------------------------------------------+
 * |                  Last epoch tick, CLOCK_MONOTONIC ns     48   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (u64)                    56   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Leader word.</b> PID in the low half, term in the high half of one little-endian u64: a
 *       handover and its new term are one compare-and-set, so a term is never held by two PIDs and
 *       serves as a fencing token.
 *   <li><b>Leader start time</b> is the leader process's start time ({@link
 *       io.subetha.cxc.process.ProcessProbe#startTime}), valid only while the term beside it equals
 *       the current term; it tells a dead leader from a new process that reused its PID.
 *   <li><b>Last epoch tick</b> lets every participant advance the epoch, at most once per interval
 *       in total, so the epoch keeps moving when the leader dies.
 * </ul>
 */
public final class LeaderElectionDescriptor {

    public static final int MAGIC_OFFSET = 0;
    public static final int LEADER_WORD_OFFSET = 8;
    public static final int LEADER_HEARTBEAT_OFFSET = 16;
    public static final int GLOBAL_EPOCH_OFFSET = 24;
    public static final int LEADER_START_TIME_OFFSET = 32;
    public static final int START_TIME_TERM_OFFSET = 40;
    public static final int LAST_TICK_NANOS_OFFSET = 48;

    public static final int BODY_LENGTH = 64;
    public static final int LAYOUT_VERSION = 1;

    /** "LEADER01" read as a little-endian u64. */
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic("LEADER01");

    public static final FileSpec FILE_SPEC =
            FileSpec.fixed(PrimitiveKind.LEADER_ELECTION, LAYOUT_VERSION, BODY_LENGTH);

    private static final long PID_MASK = 0xFFFF_FFFFL;

    private LeaderElectionDescriptor() {}

    /** The leader PID held in a leader word (0 = none). */
    public static long leaderPid(long leaderWord) {
        return leaderWord & PID_MASK;
    }

    /** The election term held in a leader word (u32). */
    public static long term(long leaderWord) {
        return leaderWord >>> 32;
    }

    public static long packLeaderWord(long pid, long term) {
        return (term << 32) | (pid & PID_MASK);
    }
}
