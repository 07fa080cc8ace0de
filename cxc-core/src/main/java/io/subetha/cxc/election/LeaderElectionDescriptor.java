package io.subetha.cxc.election;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.HeaderDescriptor;

/**
 * Body layout of a {@link SharedLeaderElection} file: 512 bytes holding the magic, the leader's
 * seat as an {@link OwnerRecord} (leader PID and term, the leader's identity, its heartbeat), the
 * global epoch, the epoch pacer's stamp, the settings every participant runs at, and a table of
 * {@value #CANDIDATE_CAPACITY} candidate seats (one {@link OwnerRecord} each) through which the
 * participants see each other, and the file's incarnation. Offsets are relative to the body, which
 * follows the 64-byte common header. Little-endian.
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
 * |                  Tick interval, ns (u64)                 48   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Grace, in epochs (u32)                  56   |
 * +---------------------------------------------------------------+
 * |                  Candidate seats (u32, 16)               60   |
 * +---------------------------------------------------------------+ -.
 * |                  Candidate 0: owner record (24 bytes)    64   |  | candidate table:
 * ~                  heartbeat = the epoch of its last beat       ~  | 16 owner records,
 * +---------------------------------------------------------------+  | key = generation
 * ~                  Candidates 1..15                        88   ~  |
 * +---------------------------------------------------------------+ -'
 * |                  Incarnation (u64, random, not 0)       448   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Term when retired (u64)                456   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (48 bytes)              464   |
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
 *   <li><b>Tick interval and grace</b> are written once, when the file is created, and every {@link
 *       ElectionParticipant} runs at them: an epoch paced by the fastest caller made a slower one
 *       look stale (participants with different settings deposed each other).
 *   <li><b>Candidates.</b> Each participant holds a seat and beats it with the epoch, so a survivor
 *       of a dead leader can see whether a lower live PID is about to claim the vacant seat and let
 *       it, instead of claiming and being preempted at once (one handover per failover). A seat
 *       whose beat lags by more than the grace, or whose process is dead, counts as gone and is
 *       taken over by CAS from exactly the word judged.
 *   <li><b>Incarnation</b>: a random value written when the file is created, so a participant that
 *       sees the path name another inode can tell for sure whether the file there is the one it
 *       maps (a file key read by path can be a moment late) before it retires its mapping.
 *   <li><b>Term.</b> A new file's starts at the seconds since boot, and a participant re-joining a
 *       file that replaced one it saw lifts it above the old file's; {@link #RETIRED_WORD} marks a
 *       file retired under running processes.
 *   <li><b>Term when retired</b>: the highest term the retired word replaced, raised (never
 *       lowered) just before the retiring CAS, so a retired file found at its path again (an open
 *       that raced a replacement, a file moved back) is revived with no leader above that term.
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
    public static final int TICK_INTERVAL_OFFSET = 48;
    public static final int GRACE_OFFSET = 56;
    public static final int CANDIDATE_CAPACITY_OFFSET = 60;
    public static final int CANDIDATES_OFFSET = 64;

    /** Candidate seats: participants beyond this many take part without one. */
    public static final int CANDIDATE_CAPACITY = 16;

    public static final int INCARNATION_OFFSET =
            CANDIDATES_OFFSET + CANDIDATE_CAPACITY * OwnerRecord.LENGTH;

    /** The highest term a {@link #RETIRED_WORD} replaced (u64, a max register). */
    public static final int RETIRED_TERM_OFFSET = INCARNATION_OFFSET + 8;

    /** A multiple of 64, as every body: the retired term, then reserved zeros. */
    public static final int BODY_LENGTH = 512;

    /**
     * The leader word of a file retired under running processes (deleted or replaced at its path):
     * no leader and the highest term, which no claim ever replaces, so nobody leads on an orphaned
     * file again. A writable open of a file holding it revives it: a file at a path someone opens
     * is in use, whatever a participant concluded when it retired it.
     */
    public static final long RETIRED_WORD = OwnerRecord.ownerWord(0, 0xFFFF_FFFFL);

    /** The leader PID (and a candidate seat's) that names no process. */
    public static final long NO_LEADER = 0;

    /** The highest term a floor may lift a word to: one below the retired word's. */
    public static final long MAX_TERM_FLOOR = 0xFFFF_FFFEL;

    /**
     * 3: the stored tick interval and grace, the candidate table, the incarnation. (2: the leader's
     * seat is an owner record.)
     */
    public static final int LAYOUT_VERSION = 3;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "LEADER01";

    /** {@link #MAGIC} read as a little-endian u64. */
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);

    private LeaderElectionDescriptor() {}

    /** The offset of candidate seat {@code index}'s owner record. */
    public static int candidateRecordOffset(int index) {
        return CANDIDATES_OFFSET + index * OwnerRecord.LENGTH;
    }

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
