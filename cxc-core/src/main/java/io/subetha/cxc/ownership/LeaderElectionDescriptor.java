package io.subetha.cxc.ownership;

import io.subetha.cxc.mmf.HeaderDescriptor;

/**
 * Body layout of a {@link SharedLeaderElection} file: 64 bytes holding the magic, the leader's seat
 * as an {@link OwnerRecord} (leader PID and term, the leader's identity, its heartbeat), the global
 * epoch and the epoch pacer's stamp. Offsets are relative to the body, which follows the 64-byte
 * common header. Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "LEADER01" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+ -.
 * |                  Leader PID (u32, 0 = no leader)          8   |  |
 * +---------------------------------------------------------------+  |
 * |                  Election term (u32)                     12   |  | owner record
 * +---------------------------------------------------------------+  | (OwnerRecord):
 * |                  Leader start time, low 32 bits          16   |  | leader word,
 * +---------------------------------------------------------------+  | identity word,
 * |                  Term of the start time (u32)            20   |  | heartbeat
 * +---------------------------------------------------------------+  |
 * |                  Leader heartbeat, in epochs (u64)       24   |  |
 * |                                                               |  |
 * +---------------------------------------------------------------+ -'
 * |                  Global epoch (u64)                      32   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Last epoch tick, CLOCK_MONOTONIC ns     40   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (16 bytes)               48   |
 * ~                                                               ~
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Leader word.</b> PID in the low half, term in the high half of one little-endian u64
 *       (the owner record's owner word, the term its key): a handover and its new term are one
 *       compare-and-set, so a term is never held by two PIDs and serves as a fencing token.
 *   <li><b>Leader start time</b> is published with the term it belongs to, in one word: it tells a
 *       dead leader from a new process that reused its PID, and a process that finds its own PID in
 *       the leader word from the dead process that had that PID before it.
 *   <li><b>Last epoch tick</b> lets every participant advance the epoch, at most once per interval
 *       in total, so the epoch keeps moving when the leader dies.
 * </ul>
 */
public final class LeaderElectionDescriptor {

    public static final int MAGIC_OFFSET = 0;

    /** The leader's seat: an {@link OwnerRecord} whose key is the term. */
    public static final int LEADER_RECORD_OFFSET = 8;

    public static final int LEADER_WORD_OFFSET =
            LEADER_RECORD_OFFSET + OwnerRecord.OWNER_WORD_OFFSET;
    public static final int LEADER_IDENTITY_OFFSET =
            LEADER_RECORD_OFFSET + OwnerRecord.IDENTITY_OFFSET;
    public static final int LEADER_HEARTBEAT_OFFSET =
            LEADER_RECORD_OFFSET + OwnerRecord.HEARTBEAT_OFFSET;
    public static final int GLOBAL_EPOCH_OFFSET = 32;
    public static final int LAST_TICK_NANOS_OFFSET = 40;

    public static final int BODY_LENGTH = 64;

    /** 2: the leader's seat is an owner record (identity word with its term). */
    public static final int LAYOUT_VERSION = 2;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "LEADER01";

    /** {@link #MAGIC} read as a little-endian u64. */
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);

    private LeaderElectionDescriptor() {}

    /** The leader PID held in a leader word (0 = none). */
    public static long leaderPid(long leaderWord) {
        return OwnerRecord.pid(leaderWord);
    }

    /** The election term held in a leader word (u32). */
    public static long term(long leaderWord) {
        return OwnerRecord.key(leaderWord);
    }

    public static long packLeaderWord(long pid, long term) {
        return OwnerRecord.ownerWord(pid, term);
    }
}
