package io.subetha.cxc.region;

import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.mmf.HeaderDescriptor;

/**
 * Body layout of a {@link SharedRegion} file. Offsets are relative to the body, which follows the
 * 64-byte common header; the header's capacity is the heap's length in bytes and its slot size is
 * {@link #ALIGNMENT}. Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "REGION01" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Allocations so far (u64)                 8   |
 * |                  (the source of block generations)            |
 * +---------------------------------------------------------------+
 * |                  Salt (u64, random at creation)          16   |
 * +---------------------------------------------------------------+
 * |                  First free block (u64 body offset, 0=none) 24 |
 * +---------------------------------------------------------------+
 * |                  Used: bytes (u32 high: sizes of used     32   |
 * |                  blocks) | blocks (u32 low); one word, so a step |
 * |                  counts with one journal entry                  |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                          40   |
 * +---------------------------------------------------------------+ -.
 * |                  Allocator lock: an IntentLock           48   |  | owner record (24),
 * |                  of 12 entries, no payload (240 bytes):       |  | intent word, repairs
 * |                  owner record 48, intent word 72,             |  | done, waiter, 12 x
 * |                  repairs done 80, waiter 88,                  |  | (body offset, new
 * |                  entries 96..288                              |  | value)
 * +---------------------------------------------------------------+ -'
 * |                  Reserved, zero                         288   |
 * +---------------------------------------------------------------+
 * |                  Heap: capacity bytes of blocks          320   |
 * |                  ...                                          |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p><b>Blocks</b> tile the heap with no gap: every byte of it is in exactly one block, 16-byte
 * aligned, at least {@link #MIN_BLOCK} bytes. Each block starts with three words and ends with a
 * copy of its first (a boundary tag, so that a block freed can find whether the block before it is
 * free):
 *
 * <pre>
 *  block + 0   size word: size in bytes (u32, low) | flags (u32, high; bit 0 = used)
 *  block + 8   used: generation (u32, high) | allocating PID (u32, low; 0 = disowned)
 *              free: previous free block (u32, high) | next free block (u32, low); 0 = none
 *  block + 16  used: payload length (u32, high) | allocator's start time, low 32 bits (u32, low)
 *              free: 0
 *  block + 24  payload (used)
 *  block + size - 8   size word again (the boundary tag)
 * </pre>
 *
 * <p><b>Cached blocks.</b> A small block freed into a process's free cache stays used in the heap
 * (its size word and boundary tag untouched, so neighbours never coalesce into it) and changes only
 * its two header words: its tag becomes generation 0 (never a handle's) with the caching PID, and
 * its meta word {@link #CACHED_MARK} with that process's start time. Generation 0 with any other
 * meta word is a block half-way into or out of a cache (or claimed by a free under the lock): its
 * PID is judged by presence alone.
 *
 * <pre>
 *  block + 8   cached: 0 (u32, high) | caching PID (u32, low)
 *  block + 16  cached: 0xFFFFFFFF (u32, high) | caching process's start time, low 32 bits
 * </pre>
 *
 * <p>Free blocks form a doubly linked list in address order, never two adjacent (they coalesce). A
 * handle is {@code generation << 32 | block offset}: the generation is a bijection of the
 * allocation count mixed with the salt, so a handle of another region, a handle whose block was
 * freed, or one freed and allocated again, does not match the block's header.
 *
 * <p><b>Journal.</b> Every change to the heap's structure (block headers, links, the counters) is
 * made under the lock as one {@link IntentLock} step: the new words are staged as its entries, the
 * intent word is sealed (release), then the words are applied in place, then the intent is cleared.
 * A lock holder's death before the seal leaves the heap untouched; after it, the next holder
 * applies the same words again (idempotent).
 *
 * <p>Layout version 3: version 2 had no cached blocks (its processes would judge a cached block's
 * owner by a start time it does not have); version 1 had the lock at 8 as a bare owner record and a
 * journal of its own at 64. Older files are refused by their version.
 */
public final class SharedRegionDescriptor {

    public static final int MAGIC_OFFSET = 0;
    public static final int ALLOCATIONS_OFFSET = 8;
    public static final int SALT_OFFSET = 16;
    public static final int FREE_HEAD_OFFSET = 24;
    public static final int USED_OFFSET = 32;
    public static final int LOCK_OFFSET = 48;

    /** The most words one step stages (an exact-fit allocation: 8; a free into a gap: 7). */
    public static final int JOURNAL_CAPACITY = 12;

    public static final int LOCK_LENGTH = IntentLock.length(JOURNAL_CAPACITY, 0);
    public static final int REPAIRS_OFFSET = LOCK_OFFSET + IntentLock.REPAIRS_OFFSET;

    /** Where the heap starts. */
    public static final int HEAP_OFFSET = 320;

    public static final int LAYOUT_VERSION = 3;
    public static final String MAGIC = "REGION01";
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);

    /** Block alignment and size granularity. */
    public static final int ALIGNMENT = 16;

    public static final int SIZE_WORD = 0;
    public static final int TAG_WORD = 8;
    public static final int META_WORD = 16;
    public static final int PAYLOAD_OFFSET = 24;

    /** Header plus boundary tag: what a block costs beyond its payload (before rounding). */
    public static final int OVERHEAD = 32;

    public static final int MIN_BLOCK = 32;

    /** The smallest heap: 4 KiB. */
    public static final long MIN_CAPACITY = 4096;

    /** The largest heap: 1 GiB (offsets are u32 and a buffer is int-indexed). */
    public static final long MAX_CAPACITY = 1L << 30;

    /** The most blocks one region handle keeps in its free cache. */
    public static final int CACHE_BLOCKS = 8;

    /** The largest block size a free cache keeps (a payload of up to 224 bytes). */
    public static final int CACHE_MAX_BLOCK = 256;

    /** A cached block's meta word, high half: no payload length is this large. */
    public static final long CACHED_MARK = 0xFFFF_FFFFL << 32;

    static final long USED_FLAG = 1L << 32;
    private static final long LOW = 0xFFFF_FFFFL;

    static {
        if (LOCK_OFFSET + LOCK_LENGTH > HEAP_OFFSET || USED_OFFSET + 8 > LOCK_OFFSET) {
            throw new ExceptionInInitializerError("region header fields overlap");
        }
    }

    /** Body length from the header's capacity (heap bytes) and slot size (the alignment). */
    public static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                if (slotSize != ALIGNMENT) {
                    throw new IllegalArgumentException(
                            "a region's slot size is its alignment, "
                                    + ALIGNMENT
                                    + ", not "
                                    + slotSize);
                }
                if (capacity < MIN_CAPACITY
                        || capacity > MAX_CAPACITY
                        || capacity % HeaderDescriptor.ALIGNMENT != 0) {
                    throw new IllegalArgumentException(
                            "a region's capacity must be "
                                    + MIN_CAPACITY
                                    + ".."
                                    + MAX_CAPACITY
                                    + " bytes, a multiple of "
                                    + HeaderDescriptor.ALIGNMENT
                                    + ", not "
                                    + capacity);
                }
                return HEAP_OFFSET + (long) capacity;
            };

    private SharedRegionDescriptor() {}

    public static long sizeWord(int size, boolean used) {
        return (used ? USED_FLAG : 0) | (size & LOW);
    }

    public static int size(long sizeWord) {
        return (int) sizeWord;
    }

    public static boolean isUsed(long sizeWord) {
        return (sizeWord & USED_FLAG) != 0;
    }

    public static long link(int previous, int next) {
        return ((long) previous << 32) | (next & LOW);
    }

    public static int previous(long link) {
        return (int) (link >>> 32);
    }

    public static int next(long link) {
        return (int) link;
    }

    public static long tag(int generation, long pid) {
        return ((long) generation << 32) | (pid & LOW);
    }

    public static int generation(long tagOrHandle) {
        return (int) (tagOrHandle >>> 32);
    }

    public static long pid(long tag) {
        return tag & LOW;
    }

    public static long meta(int length, long startTime) {
        return ((long) length << 32) | (startTime & LOW);
    }

    public static int length(long meta) {
        return (int) (meta >>> 32);
    }

    public static long startTime(long meta) {
        return meta & LOW;
    }

    /** A cached block's meta word: the mark and the caching process's start time. */
    public static long cachedMeta(long startTime) {
        return CACHED_MARK | (startTime & LOW);
    }

    public static boolean isCachedMeta(long meta) {
        return (meta & CACHED_MARK) == CACHED_MARK;
    }

    /**
     * The most bytes one handle's free cache holds in a heap of {@code capacity}: under 1 % of it
     * (no block at all in a 4 KiB heap: its smallest used block is 48 bytes), and at most {@link
     * #CACHE_BLOCKS} blocks of {@link #CACHE_MAX_BLOCK}.
     */
    public static int cacheByteLimit(int capacity) {
        return Math.min(CACHE_BLOCKS * CACHE_MAX_BLOCK, capacity / 128);
    }

    /** The used word: bytes in the high half, blocks in the low (both fit: heap ≤ 1 GiB). */
    public static long used(long bytes, long blocks) {
        return (bytes << 32) | (blocks & LOW);
    }

    public static long bytesOf(long usedWord) {
        return usedWord >>> 32;
    }

    public static long blocksOf(long usedWord) {
        return usedWord & LOW;
    }

    public static long handle(int generation, int offset) {
        return ((long) generation << 32) | (offset & LOW);
    }

    public static long offset(long handle) {
        return handle & LOW;
    }

    /** The block size a payload of {@code length} bytes needs. */
    public static int blockSize(int length) {
        long size = (length + (long) OVERHEAD + ALIGNMENT - 1) & -ALIGNMENT;
        return (int) Math.max(MIN_BLOCK, size);
    }

    /** Generation {@code n}'s u32, never 0: a bijection of n mixed with the salt. */
    public static int generationOf(long allocations, long salt) {
        return (int) (allocations * 0x9E3779B1L) ^ (int) salt ^ (int) (salt >>> 32);
    }
}
