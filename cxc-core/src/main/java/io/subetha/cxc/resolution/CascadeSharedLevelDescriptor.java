package io.subetha.cxc.resolution;

import io.subetha.cxc.claim.OwnerRecord;

/**
 * Body layout of a {@link CascadeSharedLevel} file: a fixed-capacity open-addressing hash table of
 * codec-typed keys and values. Offsets are relative to the body, which follows the 64-byte common
 * header; the header's capacity is the number of slots and its slot size the slot stride.
 * Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "CASCADE1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Codec layout fingerprint (u64)           8   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Key codec size (u32)                    16   |
 * +---------------------------------------------------------------+
 * |                  Value codec size (u32)                  20   |
 * +---------------------------------------------------------------+
 * |                  Puts stored (u64)                       24   |
 * |                  Evictions (u64)                         32   |
 * |                  Puts dropped: window busy (u64)         40   |
 * |                  Takeovers of a dead writer's slot (u64) 48   |
 * |                  Second copies removed by cleanups (u64) 56   |
 * +---------------------------------------------------------------+
 * |                  Slot 0 (stride = slot size)             64   |
 * ~                  ... capacity slots, body padded to 64        ~
 * +---------------------------------------------------------------+
 *
 * One slot, at 64 + index * stride (stride a multiple of 8)
 * +---------------------------------------------------------------+ -.
 * |                  Writer PID (u32, 0 = stable)             0   |  | owner word = the
 * +---------------------------------------------------------------+  | entry's seqlock:
 * |                  Version (u32, +1 per write)              4   |  | OwnerRecord
 * +---------------------------------------------------------------+  |
 * |                  Writer identity (u64)                    8   |  |
 * +---------------------------------------------------------------+  |
 * |                  Written at (u64, CLOCK_MONOTONIC ns)    16   |  |
 * +---------------------------------------------------------------+ -'
 * |                  Key hash (u64; 0 never used, 1 removed) 24   |
 * +---------------------------------------------------------------+
 * |                  Key: key codec size bytes, zero-padded  32   |
 * ~                  to 8                                         ~
 * +---------------------------------------------------------------+
 * |                  Value: value codec size bytes,               |
 * ~                  zero-padded to 8                             ~
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Owner word.</b> A writer claims the slot through {@link OwnerRecord} (its PID in the low
 *       half, the next version in the high half), writes hash, key and value with plain stores and
 *       releases it (PID 0, version kept). A reader accepts a slot only if it read the same stable
 *       word before and after copying it: the word is the entry's seqlock.
 *   <li><b>Written at</b> is the record's heartbeat, set by the claim: the entry's age for
 *       eviction.
 * </ul>
 */
final class CascadeSharedLevelDescriptor {

    static final String MAGIC = "CASCADE1";
    static final int LAYOUT_VERSION = 1;

    static final int PUTS_OFFSET = 24;
    static final int EVICTIONS_OFFSET = 32;
    static final int DROPPED_OFFSET = 40;
    static final int TAKEOVERS_OFFSET = 48;
    static final int DUPLICATES_OFFSET = 56;
    static final int SLOTS_OFFSET = 64;

    static final int HASH_OFFSET = OwnerRecord.LENGTH;
    static final int KEY_OFFSET = HASH_OFFSET + 8;

    static final long NEVER_USED = 0;
    static final long REMOVED = 1;

    /** Slots a key may live in, from its home slot on: every get looks at no more. */
    static final int PROBE_WINDOW = 16;

    static final int MIN_CAPACITY = 8;
    static final int MAX_CAPACITY = 1 << 24;

    /** The largest key or value, in bytes. */
    static final int MAX_PAYLOAD_BYTES = 4096;

    private CascadeSharedLevelDescriptor() {}

    static int padded(int bytes) {
        return (bytes + 7) & ~7;
    }

    static int stride(int keyBytes, int valueBytes) {
        return KEY_OFFSET + padded(keyBytes) + padded(valueBytes);
    }

    static long bodyLength(int capacity, int stride) {
        long end = SLOTS_OFFSET + (long) capacity * stride;
        return (end + 63) & ~63L;
    }
}
