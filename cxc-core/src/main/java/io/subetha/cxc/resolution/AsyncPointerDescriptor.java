package io.subetha.cxc.resolution;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.primitive.PrimitiveType;

/**
 * Body layout of a {@link SharedAsyncPointer} file. Offsets are relative to the body, which follows
 * the 64-byte common header; the header's slot size is the value codec's size. Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "ASYNCPT1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Codec layout fingerprint (u64)           8   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Value codec size (u32)                  16   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (44 bytes)               20   |
 * ~                                                               ~
 * +---------------------------------------------------------------+ -.
 * |                  Fetcher owner word (u64: PID | key)     64   |  |
 * |                                                               |  | the fetcher's claim:
 * +---------------------------------------------------------------+  | an OwnerRecord
 * |                  Fetcher identity (u64)                  72   |  | (24 bytes); heartbeat
 * |                                                               |  | = CLOCK_MONOTONIC ns
 * +---------------------------------------------------------------+  | when the fetch began
 * |                  Fetcher heartbeat (u64)                 80   |  |
 * |                                                               |  |
 * +---------------------------------------------------------------+ -'
 * |                  Reserved, zero (40 bytes)               88   |
 * ~                                                               ~
 * +---------------------------------------------------------------+ -.
 * |                  State: EMPTY 0, RESOLVED 1 (u32)       128   |  | state word: one
 * +---------------------------------------------------------------+  | aligned u64,
 * |                  Epoch (u32; every reset adds one)      132   |  | CAS'd as one
 * +---------------------------------------------------------------+ -'
 * |                  Fetches started (u64)                  136   |
 * |                  Fetches that threw (u64)               144   |
 * |                  Takeovers of a dead fetcher (u64)      152   |
 * |                  Resets (u64)                           160   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (24 bytes)              168   |
 * +---------------------------------------------------------------+
 * |                  Value: codec size bytes, zero-padded   192   |
 * ~                  to 8, body padded to 64                      ~
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Fetcher record.</b> Who is fetching: a claim through {@link OwnerRecord}. Its key rises
 *       with each fetch; its heartbeat is the instant the fetch began (a fetch is never judged
 *       stale, only dead: see {@link SharedAsyncPointer}).
 *   <li><b>State word.</b> {@code RESOLVED} in epoch e means the value region holds the value
 *       fetched in epoch e and nobody writes it until a reset moves the word to {@code EMPTY} in
 *       epoch e+1; readers copy the value and then check the word again (a seqlock whose version is
 *       the word).
 *   <li><b>Counters</b> are shared by every process (atomic adds).
 * </ul>
 */
final class AsyncPointerDescriptor {

    static final String MAGIC = "ASYNCPT1";
    static final int LAYOUT_VERSION = 1;

    static final int FETCHER_RECORD_OFFSET = 64;
    static final int STATE_OFFSET = 128;
    static final int FETCHES_OFFSET = 136;
    static final int FAILURES_OFFSET = 144;
    static final int TAKEOVERS_OFFSET = 152;
    static final int RESETS_OFFSET = 160;
    static final int VALUE_OFFSET = 192;

    static final long EMPTY = 0;
    static final long RESOLVED = 1;

    /** The largest value a pointer holds: a once-cell holds a handle or a small record. */
    static final int MAX_VALUE_BYTES = 1 << 20;

    static {
        if (PrimitiveType.TYPED_BODY_START > 24
                || FETCHER_RECORD_OFFSET + OwnerRecord.LENGTH > 88) {
            throw new ExceptionInInitializerError("async-pointer layout overlaps");
        }
    }

    private AsyncPointerDescriptor() {}

    static long bodyLength(int valueBytes) {
        long end = VALUE_OFFSET + ((valueBytes + 7L) & ~7L);
        return (end + 63) & ~63L;
    }

    static long state(long stateWord) {
        return stateWord & 0xFFFF_FFFFL;
    }

    static long epoch(long stateWord) {
        return stateWord >>> 32;
    }

    static long stateWord(long epoch, long state) {
        return ((epoch & 0xFFFF_FFFFL) << 32) | state;
    }
}
