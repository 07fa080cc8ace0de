package io.subetha.cxc.wake;

import io.subetha.cxc.claim.OwnerRecord;

/**
 * Layout of a doorbell region: the words through which a waiter tells writers that it sleeps, at
 * any 64-byte aligned offset of a primitive's body ({@link #length} of its slot count bytes; {@link
 * #LENGTH} for the default {@link #SLOTS}). Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Announced (u64 bit set: bit i =          0   |  own cache line:
 * |                  waiter slot i sleeps)                        |  read by every write
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                       8..63   |
 * +---------------------------------------------------------------+
 * |                  Waiter slot 0 (32 bytes)                64   |
 * +---------------------------------------------------------------+
 * |                  ...                                          |
 * +---------------------------------------------------------------+
 * |                  Waiter slot n-1 (n = 1..64, per file)         |
 * +---------------------------------------------------------------+
 * |                  Zero padding to a multiple of 64 bytes        |
 * +---------------------------------------------------------------+
 *
 * Waiter slot
 * +---------------------------------------------------------------+
 * |                  Owner record (24 bytes): PID | key,      0   |
 * |                  identity (start time), heartbeat (unused)    |
 * +---------------------------------------------------------------+
 * |                  Wake address (u64; 0 = none)            24   |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Waiter slot</b>: claimed once by a waiter through {@link OwnerRecord} (free, or its
 *       owner dead by PID and start time) and kept until the waiter closes. Only the owner writes
 *       the wake address, after its claim and before its first announcement.
 *   <li><b>Wake address</b>: names the waiter's socket ({@link WakeSocket}): PID in bits 0..21, a
 *       per-process sequence in 22..31, the owner's start time's low 32 bits in 32..63.
 *   <li><b>Announced</b>: a waiter sets its bit by CAS before its last look and sleep, and clears
 *       it by CAS once awake; a writer, after its write and a full fence, reads the word, and only
 *       if it is not zero takes every announcement with one CAS to zero and rings each: one ring
 *       per announcement. A bit left by a dead waiter is taken by the next writer, whose ring fails
 *       and is dropped. A writer that serves one waiter (it knows the waiter's slot, e.g. from the
 *       request it answers) takes that bit alone by CAS and rings that slot only.
 *   <li><b>Slot count</b>: a primitive's own, fixed when its file is made (1 to {@link #MAX_SLOTS},
 *       one bit each in the announced word). A waiter that finds every slot held by a live waiter
 *       polls instead of sleeping (see {@link DoorbellWaiter}): a primitive whose waiters may
 *       outnumber its slots loses speed past them, never a wake-up.
 * </ul>
 */
public final class DoorbellDescriptor {

    public static final int ANNOUNCED_OFFSET = 0;
    public static final int SLOTS_OFFSET = 64;

    /** Waiter slots of a doorbell made without a count: one bit each in the announced word. */
    public static final int SLOTS = 32;

    /** The most waiter slots a region has: the bits of its announced word. */
    public static final int MAX_SLOTS = Long.SIZE;

    public static final int SLOT_LENGTH = 32;

    /** Within a waiter slot. */
    public static final int OWNER_OFFSET = 0;

    public static final int WAKE_ADDRESS_OFFSET = OwnerRecord.LENGTH;

    /** The length of a region of {@link #SLOTS}: a primitive reserves this many bytes. */
    public static final int LENGTH = SLOTS_OFFSET + SLOTS * SLOT_LENGTH;

    private DoorbellDescriptor() {}

    /**
     * The length of a region of {@code slots} waiter slots, a multiple of 64 bytes: what a
     * primitive reserves for it.
     *
     * @throws IllegalArgumentException if {@code slots} is not 1 to {@link #MAX_SLOTS}
     */
    public static int length(int slots) {
        requireSlots(slots);
        int bytes = SLOTS_OFFSET + slots * SLOT_LENGTH;
        return (bytes + 63) & ~63;
    }

    /**
     * @throws IllegalArgumentException if {@code slots} is not 1 to {@link #MAX_SLOTS}
     */
    static void requireSlots(int slots) {
        if (slots < 1 || slots > MAX_SLOTS) {
            throw new IllegalArgumentException(
                    "a doorbell has 1 to "
                            + MAX_SLOTS
                            + " waiter slots (one bit each in its announced word), not "
                            + slots
                            + "; waiters past the slots poll instead of sleeping");
        }
    }

    /** The body offset of waiter slot {@code index} of the region at {@code region}. */
    public static int slotOffset(int region, int index) {
        return region + SLOTS_OFFSET + index * SLOT_LENGTH;
    }
}
