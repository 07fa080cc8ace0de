package io.subetha.cxc.collections;

import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.primitive.PrimitiveType;

/**
 * Body layout of a {@link SharedLinkedList} file. Offsets are relative to the body, which follows
 * the 64-byte common header; the header's capacity is the list's (nodes), its slot size the codec's
 * payload size. Little-endian. Links are body offsets of nodes (0 = none), never addresses, and are
 * checked against the node area before they are followed.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "SHLIST01" (ASCII)                  0   |
 * +---------------------------------------------------------------+
 * |                  Codec block (PrimitiveType)               8   |
 * +---------------------------------------------------------------+
 * |                  Size (u64)                               24   |
 * +---------------------------------------------------------------+
 * |                  Head node offset (u64, 0 = empty)        32   |
 * +---------------------------------------------------------------+
 * |                  Tail node offset (u64, 0 = empty)        40   |
 * +---------------------------------------------------------------+
 * |                  Free list head node offset (u64)         48   |
 * +---------------------------------------------------------------+
 * |                  Version (u64): odd while a step applies  56   |
 * +---------------------------------------------------------------+
 * |                  Intent lock ({@link IntentLock}, 16      64   |
 * |                  entries, no payload area)                    |
 * +---------------------------------------------------------------+
 * |                  Node 0: prev (u64), next (u64),               |
 * |                  element (payload, 8-aligned)                 |
 * +---------------------------------------------------------------+
 * |                  ... capacity nodes, zero padding to 64        |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Every node is on exactly one of two chains: the list (head to tail through next, back through
 * prev) or the free list (through next, prev 0). A new file links every node into the free list.
 */
public final class SharedLinkedListDescriptor {

    public static final int SIZE_OFFSET = PrimitiveType.TYPED_BODY_START;
    public static final int HEAD_OFFSET = 32;
    public static final int TAIL_OFFSET = 40;
    public static final int FREE_OFFSET = 48;
    public static final int VERSION_OFFSET = 56;
    public static final int LOCK_OFFSET = 64;
    public static final int LOCK_ENTRIES = 16;
    public static final int NODES_OFFSET = LOCK_OFFSET + IntentLock.length(LOCK_ENTRIES, 0);

    public static final int PREV_OFFSET = 0;
    public static final int NEXT_OFFSET = 8;
    public static final int ELEMENT_OFFSET = 16;

    /**
     * 2: the intent lock grew a waiter word (its entries moved 8 bytes); a version-1 file is
     * refused.
     */
    public static final int LAYOUT_VERSION = 2;

    public static final String MAGIC = "SHLIST01";

    public static final int MAX_CAPACITY = 1 << 24;

    private SharedLinkedListDescriptor() {}

    public static int nodeLength(int elementSize) {
        return ELEMENT_OFFSET + IntentLock.align8(elementSize);
    }

    public static long bodyLength(int capacity, int elementSize) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException(
                    "capacity " + capacity + " is outside 1.." + MAX_CAPACITY);
        }
        if (elementSize < 1 || elementSize > HeaderDescriptor.MAX_BODY_LENGTH / 2) {
            throw new IllegalArgumentException("element size " + elementSize + " bytes is invalid");
        }
        long length = NODES_OFFSET + (long) capacity * nodeLength(elementSize);
        long a = HeaderDescriptor.ALIGNMENT;
        return (length + a - 1) / a * a;
    }
}
