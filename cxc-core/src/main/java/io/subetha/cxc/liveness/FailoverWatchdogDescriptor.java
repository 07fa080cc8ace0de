package io.subetha.cxc.liveness;

import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.mmf.HeaderDescriptor;

/**
 * Body layout of a {@link FailoverWatchdog} file: a 64-byte header, then a pool of {@code capacity
 * × workPerSlot} work entries of 16 bytes. The file header's capacity is the watched {@link
 * HeartbeatTable}'s slot count and its slot size is {@code workPerSlot × 16}, the bytes of pool
 * each heartbeat slot brings. Offsets relative to the body; little-endian.
 *
 * <pre>
 * Watchdog header
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "WATCHDG1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Heartbeat table path length (u32)        8   |
 * +---------------------------------------------------------------+
 * |                  Heartbeat table path, UTF-8 (52 bytes,  12   |
 * ~                  zero-padded)                                 ~
 * +---------------------------------------------------------------+
 *
 * Work entry e, at 64 + 16 * e
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Work id (u64)                            0   |
 * |                                                               |
 * +---------------------------------------------------------------+ -.
 * |  Owner's heartbeat generation, or claimant's PID (u32)   8   |  | owner word:
 * +-------------------------------+---------------+---------------+  | one aligned u64,
 * |  Owner's heartbeat slot (u16) |  State (u8)   |  Tag (u8)     |  | CAS'd as one
 * +-------------------------------+---------------+---------------+ -'
 * </pre>
 *
 * <ul>
 *   <li><b>Heartbeat table path</b> names the table whose slots own the work: relative to the
 *       watchdog file's directory, or absolute. Opening the watchdog opens that table, so a file is
 *       never paired with another table by mistake.
 *   <li><b>Owner word.</b> The entry's state (free, claiming, owned) and its owner: a heartbeat
 *       slot <em>and</em> that slot's generation, so work of a dead owner is told apart from the
 *       slot's next owner. Assigning, completing and moving a work id are each one CAS on this
 *       word: a move changes only the owner, in one step, so a work id is never lost and never
 *       owned twice, however many watchdogs scan at once. A free entry has state 0 and keeps its
 *       tag.
 *   <li><b>Claiming.</b> While an assigner holds a free entry between its two CASes, the word names
 *       the assigner's PID instead of a generation: the entry is freed again only when that process
 *       is provably dead, never merely slow, because an assigner that resumes writes the work id
 *       into the entry it claimed. A dead assigner whose PID is already reused keeps its entry
 *       claimed until that process exits too: an entry leaked, never a work id lost.
 *   <li><b>Tag</b> rises (mod 256) each time the entry is assigned, so a {@code complete} that read
 *       an entry just before it was completed and re-assigned to the same owner cannot free the new
 *       work id (the ABA problem).
 *   <li><b>Work id</b> is written only while its entry is claiming (by the assigner, the one
 *       process whose CAS took the free entry) and is stable while it is owned.
 * </ul>
 */
public final class FailoverWatchdogDescriptor {

    public static final int MAGIC_OFFSET = 0;
    public static final int TABLE_PATH_LENGTH_OFFSET = 8;
    public static final int TABLE_PATH_OFFSET = 12;

    /** The most UTF-8 bytes of the heartbeat table's path a watchdog file holds. */
    public static final int MAX_TABLE_PATH_BYTES = 52;

    public static final int WATCHDOG_HEADER_LENGTH = 64;

    public static final int WORK_ID_OFFSET = 0;
    public static final int OWNER_WORD_OFFSET = 8;
    public static final int ENTRY_LENGTH = 16;

    /** The most work ids one heartbeat slot may be assigned. */
    public static final int MAX_WORK_PER_SLOT = 4096;

    public static final int STATE_FREE = 0;
    public static final int STATE_CLAIMING = 1;
    public static final int STATE_OWNED = 2;

    /** 2: a claiming entry names its assigner's PID. */
    public static final int LAYOUT_VERSION = 2;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "WATCHDG1";

    /** {@link #MAGIC} read as a little-endian u64. */
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);

    public static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                HeartbeatTableDescriptor.requireCapacity(capacity);
                if (slotSize % ENTRY_LENGTH != 0
                        || slotSize / ENTRY_LENGTH < 1
                        || slotSize / ENTRY_LENGTH > MAX_WORK_PER_SLOT) {
                    throw new IllegalArgumentException(
                            "slot size must be "
                                    + ENTRY_LENGTH
                                    + " × work per slot (1.."
                                    + MAX_WORK_PER_SLOT
                                    + "), got "
                                    + slotSize);
                }
                long pool = (long) capacity * slotSize;
                long aligned =
                        (pool + HeaderDescriptor.ALIGNMENT - 1)
                                / HeaderDescriptor.ALIGNMENT
                                * HeaderDescriptor.ALIGNMENT;
                return WATCHDOG_HEADER_LENGTH + aligned;
            };

    private FailoverWatchdogDescriptor() {}

    public static int entryOffset(int entry) {
        return WATCHDOG_HEADER_LENGTH + entry * ENTRY_LENGTH;
    }

    public static long packOwnerWord(int tag, int state, int slot, int generation) {
        return ((long) (tag & 0xFF) << 56)
                | ((long) (state & 0xFF) << 48)
                | ((long) (slot & 0xFFFF) << 32)
                | (generation & 0xFFFF_FFFFL);
    }

    /** The word of an entry claimed by {@code assignerPid} for heartbeat {@code slot}. */
    public static long packClaimWord(int tag, int slot, long assignerPid) {
        return packOwnerWord(tag, STATE_CLAIMING, slot, (int) assignerPid);
    }

    /** The assigner's PID of a claiming entry's word. */
    public static long claimant(long ownerWord) {
        return ownerWord & 0xFFFF_FFFFL;
    }

    public static int tag(long ownerWord) {
        return (int) (ownerWord >>> 56) & 0xFF;
    }

    public static int state(long ownerWord) {
        return (int) (ownerWord >>> 48) & 0xFF;
    }

    /** The heartbeat slot of an owner word (u16). */
    public static int slot(long ownerWord) {
        return (int) (ownerWord >>> 32) & 0xFFFF;
    }

    /** The heartbeat generation of an owner word (u32). */
    public static int generation(long ownerWord) {
        return (int) ownerWord;
    }
}
