package io.subetha.cxc.resolution;

import io.subetha.cxc.internal.BodyLayout;

/**
 * Body layout of a {@link SharedUniversal} file: two regions of the same size, one active (the set,
 * in its current representation) and one spare (where a migration builds the next). Offsets are
 * relative to the body, which follows the 64-byte common header; the header's capacity is the most
 * keys the set holds and its slot size the slot stride. Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "UNIVSET1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Codec layout fingerprint (u64)           8   |
 * +---------------------------------------------------------------+
 * |                  Key codec size (u32)                    16   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (44 bytes)               20   |
 * +---------------------------------------------------------------+ -.
 * |                  Writer lock: owner word (u64)           64   |  | IntentLock of no
 * |                  identity (u64)                          72   |  | entries (48 bytes):
 * |                  heartbeat (u64, ns, last full claim)    80   |  | its OwnerRecord says
 * |                  intent word (u64, always 0 here)        88   |  | who may change the
 * |                  sealed intents replayed (u64, 0)        96   |  | set; the waiter word
 * |                  waiter (u64, 0 = none)                 104   |  | whose turn is next
 * +---------------------------------------------------------------+ -'
 * |                  Reserved, zero (16 bytes)              112   |
 * +---------------------------------------------------------------+
 * |                  Version (u64; odd while the active      128  |
 * |                  region changes: the readers' seqlock)        |
 * +---------------------------------------------------------------+
 * |                  Layout word: representation (u32,       136  |
 * |                  0 SORTED_ARRAY, 1 HASH) | active region (u32)|
 * +---------------------------------------------------------------+
 * |                  Count of keys (u64)                     144  |
 * |                  Tombstones in a HASH region (u64)       152  |
 * +---------------------------------------------------------------+ -.
 * |                  Intent: op (u64; 0 none, 1 insert,      160  |  | the writer's redo
 * |                  2 remove, 3 migrate)                         |  | record: what a
 * |                  Intent a: count before / source layout  168  |  | repairer needs to
 * |                  Intent b: position / target repr.       176  |  | roll the op forward
 * |                  Intent progress (u64)                   184  |  |
 * +---------------------------------------------------------------+  |
 * |                  Inserts, removes, migrations,           192  |  |
 * |                  takeovers, repairs (u64 each)                |  |
 * +---------------------------------------------------------------+  |
 * |                  Intent key: key size bytes, padded      256  |  |
 * ~                  to 64                                        ~  |
 * +---------------------------------------------------------------+ -'
 * |                  Region 0: table size slots              R0   |
 * ~                  Region 1: table size slots              R1   ~
 * +---------------------------------------------------------------+
 *
 * One slot: state (u64; 0 empty, 1 full, 2 removed: HASH only), then the key zero-padded to 8.
 * The table size is twice the capacity (a HASH region stays at most half full, and every capacity
 * has its own body length); a SORTED_ARRAY region uses its first count slots, in ascending
 * key-byte order.
 * </pre>
 *
 * <p>The lock's words 88..112 were reserved zero before the set moved onto {@link
 * io.subetha.cxc.claim.IntentLock}; zero is a free lock's value (and no waiter), so layout version
 * 1 stands.
 */
final class UniversalDescriptor {

    static final String MAGIC = "UNIVSET1";
    static final int LAYOUT_VERSION = 1;

    static final int LOCK_OFFSET = 64;

    static {
        if (LOCK_OFFSET + io.subetha.cxc.claim.IntentLock.length(0, 0) > 128) {
            throw new ExceptionInInitializerError("the writer lock overlaps the version word");
        }
    }

    static final int VERSION_OFFSET = 128;
    static final int LAYOUT_OFFSET = 136;
    static final int COUNT_OFFSET = 144;
    static final int TOMBSTONES_OFFSET = 152;
    static final int INTENT_OP_OFFSET = 160;
    static final int INTENT_A_OFFSET = 168;
    static final int INTENT_B_OFFSET = 176;
    static final int INTENT_PROGRESS_OFFSET = 184;
    static final int INSERTS_OFFSET = 192;
    static final int REMOVES_OFFSET = 200;
    static final int MIGRATIONS_OFFSET = 208;
    static final int TAKEOVERS_OFFSET = 216;
    static final int REPAIRS_OFFSET = 224;
    static final int INTENT_KEY_OFFSET = 256;

    static final long INTENT_NONE = 0;
    static final long INTENT_INSERT = 1;
    static final long INTENT_REMOVE = 2;
    static final long INTENT_MIGRATE = 3;

    static final long EMPTY = 0;
    static final long FULL = 1;
    static final long REMOVED = 2;

    static final int MAX_CAPACITY = 1 << 20;
    static final int MAX_KEY_BYTES = 1024;

    private UniversalDescriptor() {}

    static int padded(int bytes) {
        return (bytes + 7) & ~7;
    }

    static int stride(int keyBytes) {
        return 8 + padded(keyBytes);
    }

    static int tableSize(int capacity) {
        return 2 * capacity;
    }

    static int regionOffset(int stride, int region, int tableSize) {
        int first = (INTENT_KEY_OFFSET + stride - 8 + 63) & ~63;
        return first + region * tableSize * stride;
    }

    /** How the body's length follows from the capacity and the slot stride. */
    static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                if (capacity < 1 || capacity > MAX_CAPACITY) {
                    throw new IllegalArgumentException(
                            "capacity must be 1.." + MAX_CAPACITY + " keys, got " + capacity);
                }
                if (slotSize < stride(1) || slotSize > stride(MAX_KEY_BYTES) || slotSize % 8 != 0) {
                    throw new IllegalArgumentException(
                            "slot size must be a multiple of 8 in "
                                    + stride(1)
                                    + ".."
                                    + stride(MAX_KEY_BYTES)
                                    + " bytes, got "
                                    + slotSize);
                }
                return bodyLength(capacity, slotSize);
            };

    static long bodyLength(int capacity, int stride) {
        int tableSize = tableSize(capacity);
        long end = regionOffset(stride, 0, tableSize) + 2L * tableSize * stride;
        return (end + 63) & ~63L;
    }

    static long layoutWord(int region, long representation) {
        return ((long) region << 32) | representation;
    }

    static int region(long layoutWord) {
        return (int) (layoutWord >>> 32);
    }

    static int representation(long layoutWord) {
        return (int) layoutWord;
    }
}
