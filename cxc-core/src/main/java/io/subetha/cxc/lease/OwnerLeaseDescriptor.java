package io.subetha.cxc.lease;

import io.subetha.cxc.claim.IntentLock;
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
 * |    Token floor (u64, a u32 value): the highest key of any     8 |
 * |    slot ever unbound; every acquisition's key is above it       |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero (48 bytes)               16   |
 * +---------------------------------------------------------------+
 *
 * Name slot i, at 64 + i * 128
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ -.
 * |    Holder PID (u32, 0 = free, 0xFFFFFFFF = retiring)      0   |  | owner record
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
 * where a thread that waits for a held name announces itself; every release rings it. After it,
 * at bindLockOffset(capacity): the bind lock, an IntentLock of BIND_STEP_ENTRIES entries and a
 * MAX_NAME_BYTES payload (the name a step copies into its slot).
 *
 * Bind word
 *   0                      never bound: a probe ends here
 *   bit 62 set             unbound: the slot's name was retired; a probe passes it;
 *                          bind generation (bits 40-61) of the binding it ended
 *   bit 63 set             bound: bind generation (bits 40-61; 0 for a slot's first
 *                          binding, one more for each later one, mod 2^22), name length
 *                          in bytes (bits 32-39), FNV-1a 32 of the name (bits 0-31)
 * </pre>
 *
 * <ul>
 *   <li><b>Bind word.</b> A name is given a slot by open addressing from its hash's home slot, only
 *       under the bind lock: the binder probes until a never-bound slot (or round the table), and
 *       binds the name at the first unbound or never-bound slot of the way; with none, it retires
 *       the slot without a live holder that was least recently acquired. Either is one intent of
 *       the lock (name bytes, then the bind word; for a retirement the token floor and the unbound
 *       word first, and the owner word freed last), so a binder SIGKILLed half-way leaves a step
 *       that the next holder of the lock replays or that never happened. A name is therefore bound
 *       to at most one slot, and a lock-free reader's probe, which passes unbound slots and ends at
 *       a never-bound one, finds it wherever it is.
 *   <li><b>Retiring.</b> Before its intent, a binder that retires a slot CASes the owner word from
 *       exactly the word it judged free, expired or dead (never a lingering one) to "retiring" (PID
 *       0xFFFFFFFF, key kept), which no acquirer CASes from. A retiring word found by a holder of
 *       the bind lock was left by a binder that died before sealing: it is CASed back to free.
 *   <li><b>Owner record.</b> Acquiring is the {@link OwnerRecord} claim: one CAS of the owner word
 *       from exactly the word judged free, expired or dead, to the acquirer's PID under the next
 *       key: one more than the slot's, or than the token floor if that is higher. It is the lease's
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

    /** The token floor: the highest key of a slot ever unbound (a u32 value in a u64 word). */
    public static final int FLOOR_OFFSET = 8;

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

    /**
     * 3: names leave their slots (token floor, bind generations, unbound words, bind lock). A file
     * of version 2 is refused at open as an older release's, untouched: its slots carry no
     * generations and no lock, so this release cannot share it with that one; stop its processes
     * and recreate it (a lease table holds nothing that outlives them).
     */
    public static final int LAYOUT_VERSION = 3;

    /** A bind step's entries: token floor, unbound word, name copy, bound word, owner word. */
    public static final int BIND_STEP_ENTRIES = 5;

    /** An owner word's PID while a binder retires the slot: no process has it. */
    public static final long RETIRING_PID = 0xFFFF_FFFFL;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "OWNLEAS1";

    /** {@link #MAGIC} read as a little-endian u64. */
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);

    public static final long EMPTY = 0;

    private static final long BOUND_FLAG = 1L << 63;
    private static final long UNBOUND_FLAG = 1L << 62;
    private static final int GENERATION_SHIFT = 40;

    /** Bind generations are 22 bits. */
    public static final long GENERATION_MASK = (1L << 22) - 1;

    private static final long LOW = 0xFFFF_FFFFL;
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
                return bindLockOffset(capacity)
                        + IntentLock.length(BIND_STEP_ENTRIES, MAX_NAME_BYTES);
            };

    /** The doorbell region, after the last name slot (64-byte aligned: slots are 128 bytes). */
    public static int doorbellOffset(int capacity) {
        return TABLE_HEADER_LENGTH + capacity * SLOT_LENGTH;
    }

    /** The bind lock, after the doorbell region (8-aligned). */
    public static int bindLockOffset(int capacity) {
        return doorbellOffset(capacity) + DoorbellDescriptor.LENGTH;
    }

    private OwnerLeaseDescriptor() {}

    public static int slotOffset(int slot) {
        return TABLE_HEADER_LENGTH + slot * SLOT_LENGTH;
    }

    // ---------------------------------------------------------------------- bind word

    public static boolean isBound(long bindWord) {
        return (bindWord & BOUND_FLAG) != 0;
    }

    /** A slot whose name was retired: passed by a probe, free to bind under the bind lock. */
    public static boolean isUnbound(long bindWord) {
        return (bindWord & UNBOUND_FLAG) != 0 && !isBound(bindWord);
    }

    /** A slot's first binding's word (generation 0). */
    public static long boundWord(int length, int hash) {
        return boundWord(length, hash, 0);
    }

    public static long boundWord(int length, int hash, long generation) {
        return BOUND_FLAG
                | ((generation & GENERATION_MASK) << GENERATION_SHIFT)
                | ((long) (length & 0xFF) << 32)
                | (hash & LOW);
    }

    /** The word a retired binding of {@code generation} leaves. */
    public static long unboundWord(long generation) {
        return UNBOUND_FLAG | ((generation & GENERATION_MASK) << GENERATION_SHIFT);
    }

    /** The bind generation of a bound or unbound word. */
    public static long bindGeneration(long bindWord) {
        return (bindWord >>> GENERATION_SHIFT) & GENERATION_MASK;
    }

    /** The generation the next binding of a slot whose bind word is {@code bindWord} takes. */
    public static long nextBindGeneration(long bindWord) {
        return bindWord == EMPTY ? 0 : (bindGeneration(bindWord) + 1) & GENERATION_MASK;
    }

    /**
     * Whether a bound word is of a name of {@code length} bytes and {@code hash}, any generation.
     */
    public static boolean boundTo(long bindWord, int length, int hash) {
        return isBound(bindWord) && boundLength(bindWord) == length && boundHash(bindWord) == hash;
    }

    /** The name length of a bound word; unchecked: compare it with {@link #MAX_NAME_BYTES}. */
    public static int boundLength(long bindWord) {
        return (int) ((bindWord >>> 32) & 0xFF);
    }

    public static int boundHash(long bindWord) {
        return (int) bindWord;
    }

    // --------------------------------------------------------------------- owner word

    /** The owner word of a slot being retired, its key kept. */
    public static long retiringWord(long key) {
        return OwnerRecord.ownerWord(RETIRING_PID, key);
    }

    public static boolean isRetiring(long ownerWord) {
        return OwnerRecord.pid(ownerWord) == RETIRING_PID;
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

    /**
     * The key an acquisition from {@code ownerWord} installs: one more than the slot's key, or than
     * {@code floor} (the token floor) if that is as high; u32, skipping 0.
     */
    public static long nextKey(long ownerWord, long floor) {
        long next = OwnerRecord.nextGeneration(ownerWord);
        long low = floor & LOW;
        if (low < next) {
            return next;
        }
        long above = (low + 1) & LOW;
        return above == 0 ? 1 : above;
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
