package io.subetha.cxc.wake;

import io.subetha.cxc.claim.OwnerRecord;

/**
 * Layout of a doorbell region: the words through which a waiter tells writers that it sleeps, at
 * any 64-byte aligned offset of a primitive's body ({@link #LENGTH} bytes). Little-endian.
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
 * |                  Waiter slot 31                        1056   |
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
 *       and is dropped.
 * </ul>
 */
public final class DoorbellDescriptor {

    public static final int ANNOUNCED_OFFSET = 0;
    public static final int SLOTS_OFFSET = 64;

    /** Waiter slots per doorbell: one bit each in the announced word. */
    public static final int SLOTS = 32;

    public static final int SLOT_LENGTH = 32;

    /** Within a waiter slot. */
    public static final int OWNER_OFFSET = 0;

    public static final int WAKE_ADDRESS_OFFSET = OwnerRecord.LENGTH;

    /** The region's length: a primitive reserves this many bytes, 64-byte aligned. */
    public static final int LENGTH = SLOTS_OFFSET + SLOTS * SLOT_LENGTH;

    private DoorbellDescriptor() {}

    /** The body offset of waiter slot {@code index} of the region at {@code region}. */
    public static int slotOffset(int region, int index) {
        return region + SLOTS_OFFSET + index * SLOT_LENGTH;
    }
}
