package io.subetha.cxc.versioned;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.primitive.PrimitiveType;

/**
 * Body layout of a {@link SharedTimePointTile} file. Offsets are relative to the body, which
 * follows the 64-byte common header (capacity: the tile's points; slot size: the stride).
 * Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "TIMETIL1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Codec fingerprint (u64)                  8   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Value size (u32)                        16   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (u32)                    20   |
 * +---------------------------------------------------------------+
 * |                  Points (u32, the header's capacity)     24   |
 * +---------------------------------------------------------------+
 * |                  Slot stride (u32, the header's slot)    28   |
 * +---------------------------------------------------------------+
 * |                  Start: the first point's time (i64)     32   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Step between points (i64, 1 or more)    40   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                     48..63    |
 * +---------------------------------------------------------------+
 * |                  Slot 0 .. points-1 (one stride each)    64   |
 * +---------------------------------------------------------------+
 *
 * Slot i (the point at start + i * step)
 * +---------------------------------------------------------------+
 * |                  Owner record (24 bytes)                  0   |  the recorder writing it
 * +---------------------------------------------------------------+
 * |                  Stamp (u64): the owner key the value    24   |
 * |                  was recorded under; 0 = never recorded       |
 * +---------------------------------------------------------------+
 * |                  Value, value-size bytes                 32   |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Owner record</b>: a recorder claims the slot under the next generation before it writes
 *       a byte, and frees it after the stamp.
 *   <li><b>Stamp</b>: release-stored after the value, equal to the generation of the claim that
 *       wrote it. The value is whole exactly when the stamp equals the owner word's key: a claim
 *       that has not finished (or whose recorder died) holds a newer key.
 * </ul>
 */
public final class SharedTimePointTileDescriptor {

    public static final int LAYOUT_VERSION = 1;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "TIMETIL1";

    public static final int VALUE_SIZE_OFFSET = PrimitiveType.CODEC_SIZES_OFFSET;
    public static final int POINTS_OFFSET = 24;
    public static final int SLOT_STRIDE_OFFSET = 28;
    public static final int START_OFFSET = 32;
    public static final int STEP_OFFSET = 40;
    public static final int SLOTS_OFFSET = 64;

    /** Within a slot. */
    public static final int OWNER_OFFSET = 0;

    public static final int STAMP_OFFSET = OwnerRecord.LENGTH;
    public static final int VALUE_OFFSET = 32;

    /** The most time points one tile holds. */
    public static final int TILE_CAP = 1024;

    /** The largest value a codec may describe. */
    public static final int MAX_VALUE_SIZE = 1 << 16;

    public static final BodyLayout BODY_LAYOUT =
            (points, stride) -> {
                if (points < 1 || points > TILE_CAP) {
                    throw new IllegalArgumentException(
                            "a time-point-tile holds 1.." + TILE_CAP + " points, not " + points);
                }
                if (stride < 64 || stride % 64 != 0 || stride > strideFor(MAX_VALUE_SIZE)) {
                    throw new IllegalArgumentException(
                            "a time-point-tile's slots are a multiple of 64 bytes, 64.."
                                    + strideFor(MAX_VALUE_SIZE)
                                    + ", not "
                                    + stride);
                }
                return bodyLength(points, stride);
            };

    private SharedTimePointTileDescriptor() {}

    public static int strideFor(int valueSize) {
        return (VALUE_OFFSET + valueSize + 63) & ~63;
    }

    public static long bodyLength(int points, int stride) {
        return SLOTS_OFFSET + (long) points * stride;
    }

    public static int slotOffset(int point, int stride) {
        return SLOTS_OFFSET + point * stride;
    }
}
