package io.subetha.cxc.election;

import io.subetha.cxc.mmf.HeaderDescriptor;

/**
 * Body layout of a {@link FencedLedger} file. Offsets are relative to the body, which follows the
 * 64-byte common header. Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "FENCED01" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+ -.
 * |                  Fence holder PID (u32, 0 = none yet)     8   |  | fence word:
 * +---------------------------------------------------------------+  | one aligned u64,
 * |                  Highest term seen (u32)                 12   |  | CAS'd as one
 * +---------------------------------------------------------------+ -'
 * |                  Accepted writes (u64)                   16   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Writes rejected: stale term (u64)       24   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Writes rejected: term conflict (u64)    32   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (24 bytes)               40   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Fence word.</b> The highest term any accepted write carried (the high-water mark) in the
 *       high half and the PID that wrote under it in the low half, as in the election's leader
 *       word. Raising the term and naming its holder is one compare-and-set, so a term is never
 *       held by two writers and the mark never goes down.
 *   <li><b>Counters</b> are shared by every process (atomic adds): how many writes the ledger
 *       accepted and why it refused the others.
 * </ul>
 */
public final class FencedLedgerDescriptor {

    public static final int MAGIC_OFFSET = 0;
    public static final int FENCE_WORD_OFFSET = 8;
    public static final int ACCEPTED_OFFSET = 16;
    public static final int REJECTED_STALE_OFFSET = 24;
    public static final int REJECTED_CONFLICT_OFFSET = 32;

    public static final int BODY_LENGTH = 64;
    public static final int LAYOUT_VERSION = 1;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "FENCED01";

    /** {@link #MAGIC} read as a little-endian u64. */
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);

    /** Terms are u32, as the election's: the largest term a write may carry. */
    public static final long MAX_TERM = 0xFFFF_FFFFL;

    private static final long PID_MASK = 0xFFFF_FFFFL;

    private FencedLedgerDescriptor() {}

    /** The PID that holds the highest term (0 = no write accepted yet). */
    public static long holderPid(long fenceWord) {
        return fenceWord & PID_MASK;
    }

    /** The highest term held in a fence word (u32). */
    public static long highestTerm(long fenceWord) {
        return fenceWord >>> 32;
    }

    public static long packFenceWord(long pid, long term) {
        return (term << 32) | (pid & PID_MASK);
    }
}
