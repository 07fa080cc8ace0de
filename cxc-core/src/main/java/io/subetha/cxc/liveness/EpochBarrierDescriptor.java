package io.subetha.cxc.liveness;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.wake.DoorbellDescriptor;

/**
 * Body layout of an {@link EpochBarrier} file: a 64-byte barrier header, then {@code capacity}
 * participant slots of 64 bytes each, then the doorbell region. Offsets relative to the body;
 * little-endian. The file header's capacity is the participant slot count and its slot size is
 * {@link #SLOT_LENGTH}.
 *
 * <pre>
 * Barrier header
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "BARRIER1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Current epoch (u32, wraps)               8   |
 * +---------------------------------------------------------------+
 * |                  Grace, in heartbeat intervals (u32)     12   |
 * +---------------------------------------------------------------+
 * |                  Heartbeat interval, ns (u64)            16   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (40 bytes)               24   |
 * ~                                                               ~
 * +---------------------------------------------------------------+
 *
 * Participant slot i, at 64 + 64 * i (one cache line each: every slot has one writer)
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ -.
 * |                  Participant PID (u32, 0 = free)          0   |  |
 * +---------------------------------------------------------------+  |
 * |                  Generation (u32)                         4   |  | owner record
 * +---------------------------------------------------------------+  | (OwnerRecord):
 * |                  Participant start time, low 32 bits      8   |  | owner word,
 * +---------------------------------------------------------------+  | identity word,
 * |                  Generation of the start time (u32)      12   |  | heartbeat
 * +---------------------------------------------------------------+  |
 * |                  Last heartbeat, CLOCK_MONOTONIC ns      16   |  |
 * |                                                               |  |
 * +---------------------------------------------------------------+ -'
 * |                  Arrived at epoch (u32)                  24   |  | arrival word:
 * +---------------------------------------------------------------+  | counts only while
 * |                  Generation of the arrival (u32)         28   |  | its generation is
 * +---------------------------------------------------------------+ -' the owner's
 * |                  Reserved, zero (32 bytes)               32   |
 * ~                                                               ~
 * +---------------------------------------------------------------+
 *
 * Doorbell region, at 64 + 64 * capacity ({@link DoorbellDescriptor#LENGTH} bytes)
 * +---------------------------------------------------------------+
 * |                  Announced (u64) and 32 waiter slots:         |
 * ~                  see DoorbellDescriptor                       ~
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Current epoch</b> advances by one CAS from the epoch every live participant (or a
 *       quorum) arrived at; compared with wrap-around arithmetic, as TCP sequence numbers.
 *   <li><b>Owner record</b> as in {@link HeartbeatTableDescriptor}, through {@link
 *       io.subetha.cxc.claim.OwnerRecord}: joining CASes in the PID and the next generation;
 *       dropping or leaving CASes the PID back to 0 and keeps the generation.
 *   <li><b>Arrival word</b> carries the generation it was written under, so a new participant in a
 *       reused slot never inherits its predecessor's arrival.
 *   <li><b>Last heartbeat</b> is a {@link System#nanoTime()} stamp: on Linux HotSpot that is
 *       CLOCK_MONOTONIC, common to every process of the host, so a waiter compares a peer's stamp
 *       with its own clock.
 *   <li><b>Doorbell region</b>: a waiting participant announces itself there before it sleeps; the
 *       arrival that advances the current epoch, and a leave, ring it ({@link
 *       io.subetha.cxc.wake.Doorbell}).
 * </ul>
 */
public final class EpochBarrierDescriptor {

    public static final int MAGIC_OFFSET = 0;
    public static final int CURRENT_EPOCH_OFFSET = 8;
    public static final int GRACE_EPOCHS_OFFSET = 12;
    public static final int HEARTBEAT_INTERVAL_OFFSET = 16;
    public static final int BARRIER_HEADER_LENGTH = 64;

    /** The slot's {@link OwnerRecord}; its heartbeat is a CLOCK_MONOTONIC stamp. */
    public static final int OWNER_RECORD_OFFSET = 0;

    public static final int OWNER_WORD_OFFSET = OWNER_RECORD_OFFSET + OwnerRecord.OWNER_WORD_OFFSET;
    public static final int HEARTBEAT_NANOS_OFFSET =
            OWNER_RECORD_OFFSET + OwnerRecord.HEARTBEAT_OFFSET;
    public static final int ARRIVAL_WORD_OFFSET = 24;
    public static final int SLOT_LENGTH = 64;

    /**
     * 2: the owner record's identity word replaced the separate start time and its generation. 3:
     * the doorbell region after the participant slots.
     */
    public static final int LAYOUT_VERSION = 3;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "BARRIER1";

    /** {@link #MAGIC} read as a little-endian u64. */
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);

    public static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                HeartbeatTableDescriptor.requireCapacity(capacity);
                if (slotSize != SLOT_LENGTH) {
                    throw new IllegalArgumentException(
                            "participant slots are " + SLOT_LENGTH + " bytes, not " + slotSize);
                }
                return doorbellOffset(capacity) + (long) DoorbellDescriptor.LENGTH;
            };

    private EpochBarrierDescriptor() {}

    /** The doorbell region, after the last participant slot (64-byte aligned: slots are 64). */
    public static int doorbellOffset(int capacity) {
        return BARRIER_HEADER_LENGTH + capacity * SLOT_LENGTH;
    }

    public static int slotOffset(int slot) {
        return BARRIER_HEADER_LENGTH + slot * SLOT_LENGTH;
    }

    public static long packArrivalWord(int epoch, int generation) {
        return ((long) generation << 32) | (epoch & 0xFFFF_FFFFL);
    }

    public static int arrivalEpoch(long arrivalWord) {
        return (int) arrivalWord;
    }

    public static int arrivalGeneration(long arrivalWord) {
        return (int) (arrivalWord >>> 32);
    }
}
