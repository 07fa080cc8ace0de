package io.subetha.cxc.versioned;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.primitive.PrimitiveType;

/**
 * Body layout of a {@link SharedVersionedChain} file. Offsets are relative to the body, which
 * follows the 64-byte common header (capacity: the versions retained; slot size: the stride).
 * Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "VERCHAN1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Codec fingerprint (u64)                  8   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Value size (u32)                        16   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (u32)                    20   |
 * +---------------------------------------------------------------+
 * |                  Retained (u32, the header's, again)     24   |
 * +---------------------------------------------------------------+
 * |                  Slot stride (u32, the header's slot)    28   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                     32..63    |
 * +---------------------------------------------------------------+
 * |                  Versions given (u64)                    64   |  own cache line
 * +---------------------------------------------------------------+
 * |                  Slot 0 .. retained-1 (one stride each) 128   |
 * +---------------------------------------------------------------+
 *
 * Slot (version v lives in slot v % retained)
 * +---------------------------------------------------------------+
 * |                  Owner record (24 bytes)                  0   |  owner word: PID | v's lap
 * +---------------------------------------------------------------+
 * |                  Stamp (u64): the version written here   24   |
 * +---------------------------------------------------------------+
 * |                  Value, value-size bytes                 32   |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Versions given</b>: one {@code getAndAdd} per push: versions are distinct and gap-free
 *       whatever the number of processes.
 *   <li><b>Owner record</b>: the pusher writing the slot, under the {@link #lapKey lap key} of its
 *       version; free (PID 0) between pushes. Every claim installs a new key, so a reader that
 *       finds the key unchanged around its copy read bytes no pusher wrote meanwhile.
 *   <li><b>Stamp</b>: the version whose value the slot holds, release-stored after the value; 0
 *       before the first. It only rises.
 * </ul>
 */
public final class SharedVersionedChainDescriptor {

    public static final int LAYOUT_VERSION = 1;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "VERCHAN1";

    public static final int VALUE_SIZE_OFFSET = PrimitiveType.CODEC_SIZES_OFFSET;
    public static final int RETAINED_OFFSET = 24;
    public static final int SLOT_STRIDE_OFFSET = 28;
    public static final int VERSIONS_OFFSET = 64;
    public static final int SLOTS_OFFSET = 128;

    /** Within a slot. */
    public static final int OWNER_OFFSET = 0;

    public static final int STAMP_OFFSET = OwnerRecord.LENGTH;
    public static final int VALUE_OFFSET = 32;

    /** The most versions a chain retains. */
    public static final int MAX_RETAINED = 1 << 20;

    /** The largest value a codec may describe. */
    public static final int MAX_VALUE_SIZE = 1 << 16;

    private static final long MAX_LAP_KEY = 0xFFFF_FFFFL;

    public static final BodyLayout BODY_LAYOUT =
            (retained, stride) -> {
                if (retained < 1 || retained > MAX_RETAINED) {
                    throw new IllegalArgumentException(
                            "a versioned-chain retains 1.."
                                    + MAX_RETAINED
                                    + " versions, not "
                                    + retained);
                }
                if (stride < 64 || stride % 64 != 0 || stride > strideFor(MAX_VALUE_SIZE)) {
                    throw new IllegalArgumentException(
                            "a versioned-chain's slots are a multiple of 64 bytes, 64.."
                                    + strideFor(MAX_VALUE_SIZE)
                                    + ", not "
                                    + stride);
                }
                return bodyLength(retained, stride);
            };

    private SharedVersionedChainDescriptor() {}

    public static int strideFor(int valueSize) {
        return (VALUE_OFFSET + valueSize + 63) & ~63;
    }

    public static long bodyLength(int retained, int stride) {
        return SLOTS_OFFSET + (long) retained * stride;
    }

    public static int slotOffset(long version, int retained, int stride) {
        return SLOTS_OFFSET + (int) (version % retained) * stride;
    }

    /** The owner key of a push of {@code version}: 1..2^32-1, distinct for the slot's versions. */
    public static long lapKey(long version, int retained) {
        return (version / retained) % MAX_LAP_KEY + 1;
    }
}
