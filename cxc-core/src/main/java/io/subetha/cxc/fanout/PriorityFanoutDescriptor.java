package io.subetha.cxc.fanout;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.wake.DoorbellDescriptor;

/**
 * Body layout of a {@link PriorityFanout} file. Offsets are relative to the body, which follows the
 * 64-byte common header. Little-endian. The header's capacity is the capacity of one level, its
 * slot size the stride of one slot (an 8-byte slot word, an 8-byte attempts word and the payload,
 * rounded up to 8).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "PRIOFAN1" (ASCII)                 0   |
 * +---------------------------------------------------------------+
 * |            Codec fingerprint (u64), payload size (u32)    8   |
 * |                    (written by PrimitiveType)                 |
 * +---------------------------------------------------------------+
 * |                  Grace, nanoseconds (u64)                32   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                          40   |
 * +---------------------------------------------------------------+
 * |  Level 0 header (128 bytes): tail (u64) on its own 64 bytes, 64 |
 * |  then head (u64) and the returned-items hint (u64)            |
 * +---------------------------------------------------------------+
 * |  ... levels 1 to MAX_PRIORITIES - 1                           |
 * +---------------------------------------------------------------+
 * |  Participant records, 64 bytes each, MAX_PARTICIPANTS:  1088  |
 * |  an OwnerRecord (owner word PID|generation, identity,         |
 * |  heartbeat in CLOCK_MONOTONIC ns)                              |
 * +---------------------------------------------------------------+
 * |  Doorbell region (DoorbellDescriptor, 1088 bytes):      9280   |
 * |  takers asleep until a submit or a return rings             |
 * +---------------------------------------------------------------+
 * |  Slots of level 0, capacity × slot stride:            10368   |
 * |    slot word (u64), attempts word (u64), then the payload     |
 * +---------------------------------------------------------------+
 * |  ... slots of levels 1 to MAX_PRIORITIES - 1                  |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p><b>Positions.</b> Each level is a ring: position {@code p} (a u64 that only rises) lives in
 * slot {@code p % capacity}, in lap {@code p / capacity}. The tail is the next position a producer
 * reserves, the head the next one a consumer takes; positions behind the head whose slot is still
 * {@code FULL} are items returned from a dead or silent consumer's claim.
 *
 * <p><b>Slot word</b> (one CAS'd u64, every state change of a slot is one CAS on it):
 *
 * <pre>
 *  bits  0..31  lap of the position the slot holds or awaits (low 32 bits)
 *  bits 32..34  state: EMPTY, WRITING, FULL, TAKING, CLAIMED, ABANDONED
 *  bits 35..41  participant record of the process writing, taking or claiming it
 *  bits 42..63  that record's generation (low 22 bits)
 * </pre>
 *
 * A zeroed slot is {@code EMPTY} for lap 0. A slot names its owner by participant record and
 * generation, never by PID: the record (claimed through {@link OwnerRecord}) says who that is and
 * whether it is alive.
 *
 * <p><b>Attempts word</b> (one CAS'd u64 beside the slot word): how many claims of the item the
 * slot holds have been made, in every process.
 *
 * <pre>
 *  bits  0..31  claims of the item (a claim that ends in a process's death counts too)
 *  bits 32..63  lap of the position those claims were of (low 32 bits)
 * </pre>
 *
 * A word whose lap is not the slot's current lap counts 0: a new lap's item starts afresh without
 * anyone writing the word at submit, and a claimer raises it only by a CAS from a word of its own
 * lap or an older one ({@link FanoutAttempts}).
 *
 * <p><b>Doorbell</b>: where a taker waiting for an item ({@link PriorityFanout#claimHighest(int,
 * java.time.Duration)}) announces itself; a submit that commits an item and a scan or release that
 * returns one rings it ({@link io.subetha.cxc.wake.Doorbell}).
 */
public final class PriorityFanoutDescriptor {

    public static final String MAGIC = "PRIOFAN1";

    /**
     * 3: a doorbell region before the slots and an attempts word in each slot (2 had neither, so
     * its slots lie elsewhere). 2: {@code TAKING} is a taker's reservation that anyone may undo
     * back to {@code FULL} (in 1 it was a drain's half-taken slot that repair finished).
     */
    public static final int LAYOUT_VERSION = 3;

    public static final int GRACE_NANOS_OFFSET = 32;

    /** Levels every file has: priorities {@code 0 .. MAX_PRIORITIES - 1}. */
    public static final int MAX_PRIORITIES = 8;

    /** Handles that may write or claim at once (7 bits of the slot word). */
    public static final int MAX_PARTICIPANTS = 128;

    public static final int LEVELS_OFFSET = 64;
    public static final int LEVEL_LENGTH = 128;
    public static final int TAIL_OFFSET = 0;
    public static final int HEAD_OFFSET = 64;
    public static final int RETURNED_OFFSET = 72;

    public static final int PARTICIPANTS_OFFSET = LEVELS_OFFSET + MAX_PRIORITIES * LEVEL_LENGTH;
    public static final int PARTICIPANT_STRIDE = 64;
    public static final int DOORBELL_OFFSET =
            PARTICIPANTS_OFFSET + MAX_PARTICIPANTS * PARTICIPANT_STRIDE;
    public static final int SLOTS_OFFSET = DOORBELL_OFFSET + DoorbellDescriptor.LENGTH;

    public static final int SLOT_WORD_LENGTH = 8;

    /** Within a slot: the attempts word, after the slot word. */
    public static final int ATTEMPTS_OFFSET = SLOT_WORD_LENGTH;

    /** Within a slot: the payload, after the slot word and the attempts word. */
    public static final int PAYLOAD_OFFSET = ATTEMPTS_OFFSET + 8;

    /** Most slots one level may hold. */
    public static final int MAX_CAPACITY_PER_PRIORITY = 1 << 20;

    /** Largest payload a slot may hold. */
    public static final int MAX_PAYLOAD = 64 * 1024;

    public static final int EMPTY = 0;
    public static final int WRITING = 1;
    public static final int FULL = 2;
    public static final int TAKING = 3;
    public static final int CLAIMED = 4;
    public static final int ABANDONED = 5;

    static final String[] STATE_NAMES = {
        "EMPTY", "WRITING", "FULL", "TAKING", "CLAIMED", "ABANDONED", "6", "7"
    };

    private static final long LAP_MASK = 0xFFFF_FFFFL;
    private static final int GENERATION_BITS = 22;
    private static final long GENERATION_MASK = (1L << GENERATION_BITS) - 1;

    /** How the body's length follows from the capacity per level and the slot stride. */
    public static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                if (capacity < 1 || capacity > MAX_CAPACITY_PER_PRIORITY) {
                    throw new IllegalArgumentException(
                            "a priority level holds 1.."
                                    + MAX_CAPACITY_PER_PRIORITY
                                    + " items, not "
                                    + capacity);
                }
                if (slotSize < PAYLOAD_OFFSET + 8
                        || slotSize > PAYLOAD_OFFSET + MAX_PAYLOAD
                        || slotSize % 8 != 0) {
                    throw new IllegalArgumentException(
                            "a slot is a multiple of 8 bytes in "
                                    + (PAYLOAD_OFFSET + 8)
                                    + ".."
                                    + (PAYLOAD_OFFSET + MAX_PAYLOAD)
                                    + ", not "
                                    + slotSize);
                }
                long length = SLOTS_OFFSET + (long) MAX_PRIORITIES * capacity * slotSize;
                return (length + 63) & ~63L;
            };

    static {
        if (PrimitiveType.TYPED_BODY_START > GRACE_NANOS_OFFSET
                || OwnerRecord.LENGTH > PARTICIPANT_STRIDE
                || DOORBELL_OFFSET % 64 != 0
                || SLOTS_OFFSET % 64 != 0) {
            throw new ExceptionInInitializerError("priority-fanout layout overlaps");
        }
    }

    private PriorityFanoutDescriptor() {}

    /** The stride of a slot holding {@code payloadSize} bytes. */
    public static int slotStride(int payloadSize) {
        return PAYLOAD_OFFSET + ((Math.max(payloadSize, 1) + 7) & ~7);
    }

    public static int levelOffset(int level) {
        return LEVELS_OFFSET + level * LEVEL_LENGTH;
    }

    public static int participantOffset(int participant) {
        return PARTICIPANTS_OFFSET + participant * PARTICIPANT_STRIDE;
    }

    public static long pack(long lap, int state, int participant, long generation) {
        return (lap & LAP_MASK)
                | ((long) state << 32)
                | ((long) participant << 35)
                | ((generation & GENERATION_MASK) << 42);
    }

    /** The slot word of an empty slot awaiting lap {@code lap}. */
    public static long empty(long lap) {
        return lap & LAP_MASK;
    }

    public static long lapTag(long word) {
        return word & LAP_MASK;
    }

    public static int state(long word) {
        return (int) ((word >>> 32) & 7);
    }

    public static int participant(long word) {
        return (int) ((word >>> 35) & 0x7F);
    }

    public static long generation(long word) {
        return word >>> 42;
    }

    /** A generation as the slot word keeps it. */
    public static long generationTag(long generation) {
        return generation & GENERATION_MASK;
    }
}
