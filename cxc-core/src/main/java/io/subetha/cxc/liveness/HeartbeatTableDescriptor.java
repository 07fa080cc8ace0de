package io.subetha.cxc.liveness;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.mmf.HeaderDescriptor;

/**
 * Body layout of a {@link HeartbeatTable} file: a 64-byte table header, then {@code capacity} slots
 * of 64 bytes each, one per registered process. Offsets are relative to the body, which follows the
 * 64-byte common header; slot offsets are relative to {@link #slotOffset}. Little-endian. The file
 * header's capacity is the slot count and its slot size is {@link #SLOT_LENGTH}.
 *
 * <pre>
 * Table header
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "HEARTBT1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Global epoch (u64)                       8   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Last epoch tick, CLOCK_MONOTONIC ns     16   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (40 bytes)               24   |
 * ~                                                               ~
 * +---------------------------------------------------------------+
 *
 * Slot i, at 64 + 64 * i (one cache line each: every slot has one writer)
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ -.
 * |                  Owner PID (u32, 0 = free)                0   |  |
 * +---------------------------------------------------------------+  |
 * |                  Generation (u32)                         4   |  | owner record
 * +---------------------------------------------------------------+  | (OwnerRecord):
 * |                  Owner start time, low 32 bits            8   |  | owner word,
 * +---------------------------------------------------------------+  | identity word,
 * |                  Generation of the start time (u32)      12   |  | heartbeat
 * +---------------------------------------------------------------+  |
 * |                  Last beat, global epoch (u64)           16   |  |
 * |                                                               |  |
 * +---------------------------------------------------------------+ -'
 * |                  Last beat, CLOCK_MONOTONIC ns (u64)     24   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Registered at, global epoch (u64)       32   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (24 bytes)               40   |
 * ~                                                               ~
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Owner record</b>, claimed and judged through {@link io.subetha.cxc.claim.OwnerRecord}:
 *       every claim raises the generation (skipping 0) in the same CAS that installs the PID, so
 *       two racing registrants never share a slot, a reclaim from a stale observation fails, and a
 *       watchdog can tell a slot's new owner from the dead one it replaced. Freeing keeps the
 *       generation. The start time counts only for the generation beside it.
 *   <li><b>Last beat</b> is written by the owner (and raised once by the claim that installed it);
 *       the global epoch by anyone who ticks.
 * </ul>
 */
public final class HeartbeatTableDescriptor {

    public static final int MAGIC_OFFSET = 0;
    public static final int GLOBAL_EPOCH_OFFSET = 8;
    public static final int LAST_TICK_NANOS_OFFSET = 16;
    public static final int TABLE_HEADER_LENGTH = 64;

    /** The slot's {@link io.subetha.cxc.claim.OwnerRecord}; its heartbeat is the last beat. */
    public static final int OWNER_RECORD_OFFSET = 0;

    public static final int OWNER_WORD_OFFSET = OWNER_RECORD_OFFSET + OwnerRecord.OWNER_WORD_OFFSET;
    public static final int LAST_BEAT_EPOCH_OFFSET =
            OWNER_RECORD_OFFSET + OwnerRecord.HEARTBEAT_OFFSET;
    public static final int LAST_BEAT_NANOS_OFFSET = 24;
    public static final int REGISTERED_AT_OFFSET = 32;
    public static final int SLOT_LENGTH = 64;

    /** 2: the owner record's identity word replaced the separate start time and its generation. */
    public static final int LAYOUT_VERSION = 2;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "HEARTBT1";

    /** {@link #MAGIC} read as a little-endian u64. */
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);

    public static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                requireCapacity(capacity);
                if (slotSize != SLOT_LENGTH) {
                    throw new IllegalArgumentException(
                            "heartbeat slots are " + SLOT_LENGTH + " bytes, not " + slotSize);
                }
                return TABLE_HEADER_LENGTH + (long) capacity * SLOT_LENGTH;
            };

    private HeartbeatTableDescriptor() {}

    public static int slotOffset(int slot) {
        return TABLE_HEADER_LENGTH + slot * SLOT_LENGTH;
    }

    /** The generation (u32) held in an owner word. */
    public static int generation(long ownerWord) {
        return (int) OwnerRecord.key(ownerWord);
    }

    /** A table's (and a barrier's) capacity rule, as its settings record states it. */
    static void requireCapacity(int capacity) {
        new HeartbeatTable.Settings(capacity);
    }
}
