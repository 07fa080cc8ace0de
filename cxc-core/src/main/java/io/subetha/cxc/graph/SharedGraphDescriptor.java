package io.subetha.cxc.graph;

import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.primitive.PrimitiveType;

/**
 * Body layout of a {@link SharedGraph} file. Offsets are relative to the body, which follows the
 * 64-byte common header. Nodes and edges share one slot stride (the larger of the two records), so
 * the header's capacity ({@code maxNodes + maxEdges} slots) and slot size (the stride) give the
 * body's length. Little-endian. Links are body offsets of edge slots (0 = none), never addresses,
 * checked against the edge area before they are followed.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "SHGRAPH1" (ASCII)                  0   |
 * +---------------------------------------------------------------+
 * |                  Codec block: fingerprint, node and edge   8   |
 * |                  payload sizes (PrimitiveType)                |
 * +---------------------------------------------------------------+
 * |                  Node count (u64): ids 0..count-1 exist   24   |
 * +---------------------------------------------------------------+
 * |                  Edge count (u64)                         32   |
 * +---------------------------------------------------------------+
 * |                  Free edge list head (u64 edge offset)    40   |
 * +---------------------------------------------------------------+
 * |                  Max nodes (u32)          48 | max edges (u32) 52 |
 * +---------------------------------------------------------------+
 * |                  Reserved (8 bytes)                       56   |
 * +---------------------------------------------------------------+
 * |                  Intent lock ({@link IntentLock}, 16      64   |
 * |                  entries, no payload area)                    |
 * +---------------------------------------------------------------+
 * |                  Node slot i (i below max nodes):              |
 * |                   adjacency generation (u64, odd while its     |
 * |                   out-edges change), first out-edge (u64),     |
 * |                   out-degree (u64), payload                    |
 * +---------------------------------------------------------------+
 * |                  Edge slot j (after the nodes):                |
 * |                   from (u32) | to (u32), next (u64: the from    |
 * |                   node's next out-edge, or the next free       |
 * |                   edge), payload                               |
 * +---------------------------------------------------------------+
 * |                  ... zero padding to a multiple of 64          |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Every edge slot is on exactly one chain: its from node's out-list or the free list. A node's
 * payload is written once, before the node count publishes it, and never changes.
 */
public final class SharedGraphDescriptor {

    public static final int NODE_COUNT_OFFSET = PrimitiveType.TYPED_BODY_START;
    public static final int EDGE_COUNT_OFFSET = 32;
    public static final int FREE_EDGE_OFFSET = 40;
    public static final int MAX_NODES_OFFSET = 48;
    public static final int MAX_EDGES_OFFSET = 52;
    public static final int LOCK_OFFSET = 64;
    public static final int LOCK_ENTRIES = 16;
    public static final int SLOTS_OFFSET = LOCK_OFFSET + IntentLock.length(LOCK_ENTRIES, 0);

    public static final int NODE_GENERATION_OFFSET = 0;
    public static final int NODE_HEAD_OFFSET = 8;
    public static final int NODE_DEGREE_OFFSET = 16;
    public static final int NODE_PAYLOAD_OFFSET = 24;

    public static final int EDGE_ENDS_OFFSET = 0;
    public static final int EDGE_NEXT_OFFSET = 8;
    public static final int EDGE_PAYLOAD_OFFSET = 16;

    /**
     * 2: the intent lock grew a waiter word (its entries moved 8 bytes); a version-1 file is
     * refused.
     */
    public static final int LAYOUT_VERSION = 2;

    public static final String MAGIC = "SHGRAPH1";

    public static final int MAX_NODES = 1 << 24;
    public static final int MAX_EDGES = 1 << 26;

    private SharedGraphDescriptor() {}

    /** The slot stride for these payload sizes. */
    public static int stride(int nodeSize, int edgeSize) {
        return Math.max(
                NODE_PAYLOAD_OFFSET + IntentLock.align8(nodeSize),
                EDGE_PAYLOAD_OFFSET + IntentLock.align8(edgeSize));
    }

    public static long bodyLength(int slots, int stride) {
        if (slots < 2 || slots > MAX_NODES + MAX_EDGES) {
            throw new IllegalArgumentException(
                    "capacity "
                            + slots
                            + " (max nodes + max edges) is outside 2.."
                            + (MAX_NODES + MAX_EDGES));
        }
        if (stride < EDGE_PAYLOAD_OFFSET + 8 || stride % 8 != 0 || stride > (1 << 20)) {
            throw new IllegalArgumentException("slot size " + stride + " is not a graph stride");
        }
        long length = SLOTS_OFFSET + (long) slots * stride;
        long a = HeaderDescriptor.ALIGNMENT;
        return (length + a - 1) / a * a;
    }
}
