package io.subetha.cxc.lease;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.wake.DoorbellDescriptor;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Body layout of an {@link OwnerLease} file. Offsets are relative to the body, which follows the
 * 64-byte common header; the header's capacity is the number of name slots, its slot size {@link
 * #SLOT_LENGTH}. Little-endian.
 *
 * <pre>
 * Table header
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "OWNLEAS1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (56 bytes)                8   |
 * +---------------------------------------------------------------+
 *
 * Name slot i, at 64 + i * 128
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ -.
 * |                  Holder PID (u32, 0 = free)               0   |  | owner record
 * +---------------------------------------------------------------+  | (OwnerRecord):
 * |                  Token: the acquisition's key (u32)       4   |  | owner word,
 * +---------------------------------------------------------------+  | identity word,
 * |                  Identity: start time | key (u64)         8   |  | heartbeat =
 * +---------------------------------------------------------------+  | acquired at
 * |                  Acquired at (u64, CLOCK_MONOTONIC ns)   16   |  |
 * +---------------------------------------------------------------+ -'
 * |    Deadline (u32: ms of CLOCK_MONOTONIC mod 2^32; bit 0 =  24 |  | lease word:
 * |    linger: held until then even if the holder dies)           |  | CAS'd as one,
 * +---------------------------------------------------------------+  | valid only for
 * |                  Key the deadline belongs to (u32)       28   |  | that key
 * +---------------------------------------------------------------+ -'
 * |                  Bind word (u64, below)                  32   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (24 bytes)               40   |
 * +---------------------------------------------------------------+
 * |                  Name, UTF-8 (64 bytes, zero-padded)     64   |
 * |                                                               |
 * +---------------------------------------------------------------+
 *
 * After the last name slot, at 64 + capacity * 128: the doorbell region (DoorbellDescriptor),
 * where a thread that waits for a held name announces itself; every release rings it.
 *
 * Bind word
 *   0                      no name: the slot is empty
 *   bit 63 clear, not 0    being bound: binder PID (bits 0-31), its start time's low
 *                          31 bits (bits 32-62); the name bytes are not yet valid
 *   bit 63 set             bound: name length in bytes (bits 32-39), FNV-1a 32 of the
 *                          name (bits 0-31); bound for the life of the file
 * </pre>
 *
 * <ul>
 *   <li><b>Bind word.</b> A name is given a slot once, by open addressing from its hash's home
 *       slot: a binder CASes an empty slot's word to "being bound" under its own PID, writes the
 *       name, then publishes "bound" with a release store. A bound slot keeps its name for the life
 *       of the file, so every slot before a name's own in its probe sequence is bound to another
 *       name, and two binders of one name always meet at the same slot. A binder that died before
 *       publishing leaves "being bound" under a dead PID: whoever meets it CASes it back to empty.
 *   <li><b>Owner record.</b> Acquiring is the {@link OwnerRecord} claim: one CAS of the owner word
 *       from exactly the word judged free, expired or dead, to the acquirer's PID under the next
 *       key. The key rises by one per acquisition of the slot, hence of its name: it is the lease's
 *       fencing token.
 *   <li><b>Name.</b> A name of up to {@link #MAX_NAME_BYTES} UTF-8 bytes is stored as it is. A
 *       longer one is stored as its digest: the byte {@code 0xFF} (which no UTF-8 text contains, so
 *       a digest never equals a name stored as it is) then the SHA-256 of its UTF-8 bytes, 33
 *       bytes; the bind word's length and hash are those of the stored bytes. Two long names with
 *       one digest would be one name: one slot, one owner word, so they would exclude each other
 *       more than asked, never admit two holders.
 *   <li><b>Lease word.</b> The holder's deadline, tagged with the key it was published for, so a
 *       paused ex-holder's late write can never extend or shorten its successor's lease: a reader
 *       uses the deadline only when its key is the owner word's. Until the new holder publishes it,
 *       the lease counts as held unless its holder is dead.
 * </ul>
 */
public final class OwnerLeaseDescriptor {

    public static final int MAGIC_OFFSET = 0;
    public static final int TABLE_HEADER_LENGTH = 64;

    /** The slot's {@link OwnerRecord}; its heartbeat is the acquisition time. */
    public static final int OWNER_RECORD_OFFSET = 0;

    public static final int LEASE_WORD_OFFSET = 24;
    public static final int BIND_WORD_OFFSET = 32;
    public static final int NAME_OFFSET = 64;

    /**
     * The longest name stored as it is, in UTF-8 bytes (ShedLock's JDBC name column is as long); a
     * longer one is stored as {@link #DIGEST_MARK} and its SHA-256.
     */
    public static final int MAX_NAME_BYTES = 64;

    /** The first byte of a stored digest: never a byte of UTF-8 text. */
    public static final byte DIGEST_MARK = (byte) 0xFF;

    /** The length of a stored digest: the mark and a SHA-256. */
    public static final int DIGEST_NAME_BYTES = 33;

    public static final int SLOT_LENGTH = 128;

    /** The most name slots a file may have. */
    public static final int MAX_CAPACITY = 65_536;

    public static final int LAYOUT_VERSION = 2;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "OWNLEAS1";

    /** {@link #MAGIC} read as a little-endian u64. */
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);

    public static final long EMPTY = 0;

    private static final long BOUND_FLAG = 1L << 63;
    private static final long LOW = 0xFFFF_FFFFL;
    private static final long START_TIME_BITS = 0x7FFF_FFFFL;
    private static final long LINGER_BIT = 1;

    public static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                if (capacity < 1 || capacity > MAX_CAPACITY) {
                    throw new IllegalArgumentException(
                            "a lease table has 1.."
                                    + MAX_CAPACITY
                                    + " name slots, not "
                                    + capacity);
                }
                if (slotSize != SLOT_LENGTH) {
                    throw new IllegalArgumentException(
                            "lease slots are " + SLOT_LENGTH + " bytes, not " + slotSize);
                }
                return doorbellOffset(capacity) + DoorbellDescriptor.LENGTH;
            };

    /** The doorbell region, after the last name slot (64-byte aligned: slots are 128 bytes). */
    public static int doorbellOffset(int capacity) {
        return TABLE_HEADER_LENGTH + capacity * SLOT_LENGTH;
    }

    private OwnerLeaseDescriptor() {}

    public static int slotOffset(int slot) {
        return TABLE_HEADER_LENGTH + slot * SLOT_LENGTH;
    }

    // ---------------------------------------------------------------------- bind word

    public static boolean isBound(long bindWord) {
        return (bindWord & BOUND_FLAG) != 0;
    }

    public static boolean isBeingBound(long bindWord) {
        return bindWord != EMPTY && !isBound(bindWord);
    }

    public static long boundWord(int length, int hash) {
        return BOUND_FLAG | ((long) (length & 0xFF) << 32) | (hash & LOW);
    }

    /** The name length of a bound word; unchecked: compare it with {@link #MAX_NAME_BYTES}. */
    public static int boundLength(long bindWord) {
        return (int) ((bindWord >>> 32) & 0xFF);
    }

    public static int boundHash(long bindWord) {
        return (int) bindWord;
    }

    public static long bindingWord(long pid, long startTime) {
        return ((startTime & START_TIME_BITS) << 32) | (pid & LOW);
    }

    public static long binderPid(long bindWord) {
        return bindWord & LOW;
    }

    /** The low 31 bits of the binder's start time. */
    public static long binderStartTime(long bindWord) {
        return (bindWord >>> 32) & START_TIME_BITS;
    }

    /** The low 31 bits of a start time, as a binding word keeps it. */
    public static long startTimeBits(long startTime) {
        return startTime & START_TIME_BITS;
    }

    /** FNV-1a, 32 bits, of a name's UTF-8 bytes. */
    public static int hash(byte[] name) {
        int hash = 0x811c9dc5;
        for (byte b : name) {
            hash ^= b & 0xFF;
            hash *= 0x01000193;
        }
        return hash;
    }

    public static byte[] utf8(String name) {
        return name.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The bytes a slot stores for {@code name}: its UTF-8 bytes up to {@link #MAX_NAME_BYTES},
     * beyond that {@link #DIGEST_MARK} and the SHA-256 of its UTF-8 bytes.
     *
     * @throws IllegalArgumentException for an empty name
     */
    public static byte[] storedName(String name) {
        byte[] bytes = utf8(name);
        if (bytes.length == 0) {
            throw new IllegalArgumentException(
                    "name \"\" is 0 UTF-8 bytes; a lease name is at least 1 byte");
        }
        if (bytes.length <= MAX_NAME_BYTES) {
            return bytes;
        }
        byte[] stored = new byte[DIGEST_NAME_BYTES];
        stored[0] = DIGEST_MARK;
        System.arraycopy(sha256(bytes), 0, stored, 1, DIGEST_NAME_BYTES - 1);
        return stored;
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    // --------------------------------------------------------------------- lease word

    /**
     * @param deadlineMillis ms of CLOCK_MONOTONIC (mod 2^32); rounded up to even, bit 0 is linger
     */
    public static long leaseWord(long key, long deadlineMillis, boolean linger) {
        long even = (deadlineMillis + 1) & ~LINGER_BIT;
        return (key << 32) | (even & LOW) | (linger ? LINGER_BIT : 0);
    }

    public static long leaseKey(long leaseWord) {
        return leaseWord >>> 32;
    }

    /** The deadline, ms of CLOCK_MONOTONIC mod 2^32. */
    public static int deadlineMillis(long leaseWord) {
        return (int) (leaseWord & ~LINGER_BIT);
    }

    public static boolean lingers(long leaseWord) {
        return (leaseWord & LINGER_BIT) != 0;
    }

    /** Whether the deadline has passed at {@code nowMillis} (wrap-around compare, ±24 days). */
    public static boolean expired(long leaseWord, long nowMillis) {
        return (int) nowMillis - deadlineMillis(leaseWord) >= 0;
    }

    /** CLOCK_MONOTONIC in ms, the deadline's unit: common to every process of a host. */
    public static long nowMillis() {
        return Math.floorDiv(System.nanoTime(), 1_000_000L);
    }
}
