package io.subetha.cxc.values;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.mmf.HeaderDescriptor;

/**
 * Body layout of a {@link SharedNaNValue} or {@link SharedNaNTaggedValue} file: a 64-byte cell
 * header, then {@code cells} boxed 64-bit words, each one aligned u64 written by one atomic store
 * or CAS (so a reader never sees half a value, and a SIGKILL leaves each cell old or new). The
 * header's capacity is the cell count, its slot size 8. Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "NANCELL1" or "NANTAGD1" (ASCII)   0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Highest user tag (u32; tagged files)     8   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                          12   |
 * +---------------------------------------------------------------+
 * |                  Cell 0 (u64: a boxed value)             64   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Cell 1 ...                              72   |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * A new file's cells hold {@link SharedNaNValue#NULL}.
 */
public final class NaNCellsDescriptor {

    public static final int MAX_USER_TAG_OFFSET = 8;
    public static final int CELLS_OFFSET = 64;
    public static final int CELL_LENGTH = 8;
    public static final int LAYOUT_VERSION = 1;

    /** The most cells a file holds: 1 Mi (8 MiB). */
    public static final int MAX_CELLS = 1 << 20;

    public static final String VALUE_MAGIC = "NANCELL1";
    public static final String TAGGED_MAGIC = "NANTAGD1";

    public static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                if (slotSize != CELL_LENGTH) {
                    throw new IllegalArgumentException(
                            "a NaN cell file's slot size is " + CELL_LENGTH + ", not " + slotSize);
                }
                requireCells(capacity);
                long length = CELLS_OFFSET + (long) capacity * CELL_LENGTH;
                return (length + HeaderDescriptor.ALIGNMENT - 1) & -HeaderDescriptor.ALIGNMENT;
            };

    private NaNCellsDescriptor() {}

    static int requireCells(int cells) {
        return CxcSettingsException.requireInRange("cells", cells, 1, MAX_CELLS, " (MAX_CELLS)");
    }

    static int cellOffset(int index) {
        return CELLS_OFFSET + index * CELL_LENGTH;
    }
}
