package io.subetha.cxc.eventlog;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.mmf.HeaderDescriptor;

/**
 * Body layout of a {@link NamedReaders} file: the saved positions of an event log's named readers,
 * beside the log. Offsets are relative to the body, which follows the 64-byte common header; the
 * header's capacity is the number of reader slots, its slot size {@link #SLOT_LENGTH}.
 * Little-endian.
 *
 * <pre>
 * Table header
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "EVREADR1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Capacity (u32, the header's, again)      8   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                     12..63    |
 * +---------------------------------------------------------------+
 * |                  Naming turn: an OwnerRecord (24)        64   |  own cache line
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                     88..127   |
 * +---------------------------------------------------------------+
 *
 * Reader slot i, at 128 + i * 128
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ -.
 * |                  Holder PID (u32, 0 = nobody reads)       0   |  | owner record
 * +---------------------------------------------------------------+  | (OwnerRecord):
 * |                  Key: the claim's generation (u32)        4   |  | owner word,
 * +---------------------------------------------------------------+  | identity word,
 * |                  Identity: start time | key (u64)         8   |  | heartbeat =
 * +---------------------------------------------------------------+  | claimed at
 * |                  Claimed at (u64, CLOCK_MONOTONIC ns)    16   |  |
 * +---------------------------------------------------------------+ -'
 * |                  Position (u64): the next sequence       24   |
 * |                  the reader handles                           |
 * +---------------------------------------------------------------+
 * |                  Name length (u32, 0 = no name yet)      32   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                          36   |
 * +---------------------------------------------------------------+
 * |                  Name, UTF-8 (88 bytes, zero-padded)     40   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Naming turn.</b> An {@link OwnerRecord} held while a reader name is looked up and, if
 *       absent, given a slot: names are given one at a time, so one name never gets two slots.
 *       Taken from a dead holder at once.
 *   <li><b>Name length.</b> Published last, with a release store, by the naming turn's holder after
 *       it wrote the name bytes and the first position: a slot whose length is 0 holds no name, and
 *       only the turn's holder writes it. A slot keeps its name for the life of the file.
 *   <li><b>Owner record.</b> Who reads under the name now: claimed by one CAS from exactly the word
 *       judged free or dead (its process gone, a zombie, or its PID reused), never from a live
 *       process. Its holder is the only writer of the position.
 *   <li><b>Position.</b> The sequence the reader handles next: every event before it was handled.
 *       One aligned 8-byte release store per save, so a crash leaves the old or the new value.
 * </ul>
 */
public final class NamedReadersDescriptor {

    public static final int LAYOUT_VERSION = 1;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "EVREADR1";

    /** {@link #MAGIC} read as a little-endian u64. */
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);

    public static final int CAPACITY_OFFSET = 8;
    public static final int NAMING_TURN_OFFSET = 64;
    public static final int TABLE_HEADER_LENGTH = 128;

    /** Within a reader slot. */
    public static final int OWNER_RECORD_OFFSET = 0;

    public static final int POSITION_OFFSET = OwnerRecord.LENGTH;
    public static final int NAME_LENGTH_OFFSET = 32;
    public static final int NAME_OFFSET = 40;

    public static final int SLOT_LENGTH = 128;

    /** The longest reader name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = SLOT_LENGTH - NAME_OFFSET;

    /** The most named readers one file holds. */
    public static final int MAX_CAPACITY = 4096;

    public static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                if (capacity < 1 || capacity > MAX_CAPACITY) {
                    throw new IllegalArgumentException(
                            "a named readers table has 1.."
                                    + MAX_CAPACITY
                                    + " reader slots, not "
                                    + capacity);
                }
                if (slotSize != SLOT_LENGTH) {
                    throw new IllegalArgumentException(
                            "reader slots are " + SLOT_LENGTH + " bytes, not " + slotSize);
                }
                return bodyLength(capacity);
            };

    private NamedReadersDescriptor() {}

    public static long bodyLength(int capacity) {
        return TABLE_HEADER_LENGTH + (long) capacity * SLOT_LENGTH;
    }

    public static int slotOffset(int slot) {
        return TABLE_HEADER_LENGTH + slot * SLOT_LENGTH;
    }
}
