package io.subetha.cxc.collections;

import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.primitive.PrimitiveType;

/**
 * Body layout of a {@link SharedVec} file. Offsets are relative to the body, which follows the
 * 64-byte common header; the header's capacity is the vec's, its slot size the codec's payload
 * size. Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "SHVEC001" (ASCII)                  0   |
 * +---------------------------------------------------------------+
 * |                  Codec block: fingerprint u64, size u32    8   |
 * |                  (written and checked by PrimitiveType)       |
 * +---------------------------------------------------------------+
 * |                  Length (u64): elements 0..len-1 exist    24   |
 * +---------------------------------------------------------------+
 * |                  Version (u64): odd while a step that     32   |
 * |                  changes len or an element is applied         |
 * +---------------------------------------------------------------+
 * |                  Reserved (16 bytes)                      40   |
 * +---------------------------------------------------------------+
 * |                  Intent lock ({@link IntentLock}, 8      56   |
 * |                  entries, payload area = one element)         |
 * +---------------------------------------------------------------+
 * |                  Slot 0: sequence (u64, odd while being        |
 * |                  written), element (payload, 8-aligned)       |
 * +---------------------------------------------------------------+
 * |                  ... capacity slots, then zero padding to      |
 * |                  a multiple of 64 bytes                        |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Length</b> is changed only through the intent lock; a reader trusts it only after
 *       checking it against the capacity.
 *   <li><b>Slot sequence</b>: element {@code i} lives in slot {@code i}. A writer makes the
 *       sequence odd before it touches the element and even (a new value) after; a reader keeps
 *       what it read only if it saw the same even sequence before and after.
 *   <li><b>Version</b> is made odd before and even after every step that changes the length or an
 *       element, so {@link SharedVec#cloneToList()} can tell a consistent snapshot.
 * </ul>
 */
public final class SharedVecDescriptor {

    public static final int LENGTH_OFFSET = PrimitiveType.TYPED_BODY_START;
    public static final int VERSION_OFFSET = 32;
    public static final int LOCK_OFFSET = 56;
    public static final int LOCK_ENTRIES = 8;
    public static final int SEQUENCE_OFFSET = 0;
    public static final int ELEMENT_OFFSET = 8;

    /**
     * 2: the intent lock grew a waiter word (its entries moved 8 bytes); a version-1 file is
     * refused.
     */
    public static final int LAYOUT_VERSION = 2;

    public static final String MAGIC = "SHVEC001";

    /** The largest capacity a vec may have. */
    public static final int MAX_CAPACITY = 1 << 24;

    private SharedVecDescriptor() {}

    public static int slotsOffset(int elementSize) {
        return LOCK_OFFSET + IntentLock.length(LOCK_ENTRIES, elementSize);
    }

    public static int slotLength(int elementSize) {
        return ELEMENT_OFFSET + IntentLock.align8(elementSize);
    }

    /** Bytes of a body for {@code capacity} elements of {@code elementSize} bytes. */
    public static long bodyLength(int capacity, int elementSize) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException(
                    "capacity " + capacity + " is outside 1.." + MAX_CAPACITY);
        }
        if (elementSize < 1 || elementSize > HeaderDescriptor.MAX_BODY_LENGTH / 2) {
            throw new IllegalArgumentException("element size " + elementSize + " bytes is invalid");
        }
        long length = slotsOffset(elementSize) + (long) capacity * slotLength(elementSize);
        long a = HeaderDescriptor.ALIGNMENT;
        return (length + a - 1) / a * a;
    }
}
