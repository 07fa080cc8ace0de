package io.subetha.cxc.graph;

import io.subetha.cxc.mmf.HeaderDescriptor;

/**
 * Body layout of a {@link SharedTopologyMap} file. Offsets are relative to the body, which follows
 * the 64-byte common header; the header's capacity is the number of link slots. Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "TOPOMAP1" (ASCII)                  0   |
 * +---------------------------------------------------------------+
 * |                  Epoch (u64): advanced by advanceEpoch     8   |
 * +---------------------------------------------------------------+
 * |                  Reserved (48 bytes)                      16   |
 * +---------------------------------------------------------------+
 * |                  Link slot i, 32 bytes, at 64 + 32 i:          |
 * |   +0  key (u64): 0 = empty, else 1 | source (31) | dest (32)   |
 * |   +8  weight (u64): epoch low 24 bits | decayed load (40 bits,  |
 * |       saturating)                                              |
 * |   +16 samples (u64): records ever counted on the link           |
 * |   +24 reserved                                                 |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>A slot's key is claimed once by CAS from 0 and never changes (open addressing, linear probing
 * from a hash of the key; links are never removed, their load decays to nothing). The weight word
 * is one CAS'd word, so a load and the epoch it was decayed to always agree.
 */
public final class SharedTopologyMapDescriptor {

    public static final int EPOCH_OFFSET = 8;
    public static final int SLOTS_OFFSET = 64;
    public static final int SLOT_LENGTH = 32;
    public static final int KEY_OFFSET = 0;
    public static final int WEIGHT_OFFSET = 8;
    public static final int SAMPLES_OFFSET = 16;

    public static final int EPOCH_BITS = 24;
    public static final int LOAD_BITS = 40;
    public static final long MAX_LOAD = (1L << LOAD_BITS) - 1;
    public static final long EPOCH_MASK = (1L << EPOCH_BITS) - 1;
    public static final long USED = 1L << 63;

    public static final int LAYOUT_VERSION = 1;
    public static final String MAGIC = "TOPOMAP1";
    public static final int MAX_CAPACITY = 1 << 22;

    private SharedTopologyMapDescriptor() {}

    public static long bodyLength(int capacity, int slotSize) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException(
                    "capacity " + capacity + " is outside 1.." + MAX_CAPACITY + " links");
        }
        if (slotSize != SLOT_LENGTH) {
            throw new IllegalArgumentException(
                    "slot size " + slotSize + ", must be " + SLOT_LENGTH);
        }
        long length = SLOTS_OFFSET + (long) capacity * SLOT_LENGTH;
        long a = HeaderDescriptor.ALIGNMENT;
        return (length + a - 1) / a * a;
    }

    public static long key(int source, int destination) {
        return USED | ((long) source << 32) | (destination & 0xFFFF_FFFFL);
    }

    public static int source(long key) {
        return (int) ((key & ~USED) >>> 32);
    }

    public static int destination(long key) {
        return (int) key;
    }

    public static long weight(long epoch, long load) {
        return ((epoch & EPOCH_MASK) << LOAD_BITS) | Math.min(load, MAX_LOAD);
    }

    public static long epochOf(long weight) {
        return weight >>> LOAD_BITS;
    }

    public static long loadOf(long weight) {
        return weight & MAX_LOAD;
    }

    /** {@code now - then} in the epoch field's wrap-around, as a signed number of epochs. */
    public static long epochsSince(long now, long then) {
        long d = (now - then) & EPOCH_MASK;
        return d >= (1L << (EPOCH_BITS - 1)) ? d - (1L << EPOCH_BITS) : d;
    }

    /** {@code load} halved once per epoch elapsed. */
    public static long decayed(long load, long epochs) {
        return epochs <= 0 ? load : epochs >= 63 ? 0 : load >>> epochs;
    }
}
