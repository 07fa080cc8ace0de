package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One region handle's free cache of small blocks, kept beside the free list so that a free and an
 * allocation of a small block take no lock.
 *
 * <p>A free of a block of at most {@link SharedRegionDescriptor#CACHE_MAX_BLOCK} bytes takes the
 * block out of the allocated state by one CAS of its tag word, from exactly the generation and PID
 * read, to generation 0 (never a handle's) and this PID, writes this process's start time into the
 * block (release) and keeps it (at most {@link SharedRegionDescriptor#CACHE_BLOCKS} blocks, and the
 * byte limit: under 1 % of the heap). An allocation of exactly a cached block's size takes it back:
 * it writes the header's meta word, then the tag with a new generation (release); no lock, no
 * journal, no CAS on the file. A cached block stays used in the heap (neighbours never coalesce
 * into it) until this handle allocates it again or returns it to the free list ({@link #flush}). A
 * crash at any step leaves the block tagged with the dead PID, for {@code reclaimDead} (judged by
 * start time once written, by presence before).
 *
 * <p>The cache's arrays are guarded by a latch (one CAS on the heap, never held while waiting for
 * anything), so the handle's threads share it.
 */
final class FreeCache {

    private static final long OWN_PID = Pids.current();
    private static final long OWN_START_TIME = OwnerRecord.startTimeOf(OWN_PID);

    private static final VarHandle LATCH;

    static {
        try {
            LATCH = MethodHandles.lookup().findVarHandle(FreeCache.class, "latch", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final AtomicBuffer body;
    private final BlockValidator blocks;
    private final FreeList freeList;
    private final AllocatorLock lock;
    private final int byteLimit;
    private final int heapEnd;
    // Generations of popped blocks: a bijection of the pop count mixed with this handle's salt, so
    // a handle of the block's earlier life does not match it.
    private final long salt = ThreadLocalRandom.current().nextLong();

    private final int[] offsets = new int[CACHE_BLOCKS];
    private final int[] sizes = new int[CACHE_BLOCKS];
    private int count;
    private int bytes;
    private long pops;

    @SuppressWarnings("unused") // through LATCH
    private volatile int latch;

    /**
     * @param byteLimit the most bytes kept; 0 turns the cache off (every free takes the lock)
     */
    FreeCache(
            AtomicBuffer body,
            BlockValidator blocks,
            FreeList freeList,
            AllocatorLock lock,
            int capacity,
            int byteLimit) {
        this.body = body;
        this.blocks = blocks;
        this.freeList = freeList;
        this.lock = lock;
        this.heapEnd = HEAP_OFFSET + capacity;
        this.byteLimit = byteLimit;
    }

    /** Whether an allocation of a {@code need}-byte block may be served here (a racy hint). */
    boolean mayServe(int need) {
        return need <= CACHE_MAX_BLOCK && count != 0;
    }

    /** Takes a cached block of exactly {@code need} bytes for a payload of {@code size}, or 0. */
    long allocate(int need, int size) {
        int block = 0;
        long pop;
        latch();
        try {
            for (int i = count - 1; i >= 0; i--) {
                if (sizes[i] == need) {
                    block = offsets[i];
                    int last = --count;
                    offsets[i] = offsets[last];
                    sizes[i] = sizes[last];
                    bytes -= need;
                    break;
                }
            }
            if (block == 0) {
                return 0;
            }
            pop = ++pops;
        } finally {
            unlatch();
        }
        int generation = generationOf(pop, salt);
        if (generation == 0) {
            generation = generationOf(pop, ~salt);
        }
        // Killed here: still a cached block, judged by its start time. Killed between the two
        // writes: generation 0 without the mark, judged by presence. reclaimDead frees either.
        Interleaving.at(Point.REGION_CACHE_POPPED);
        body.setLongPlain(block + META_WORD, meta(size, OWN_START_TIME));
        body.setLongRelease(block + TAG_WORD, tag(generation, OWN_PID));
        return handle(generation, block);
    }

    /**
     * The cached free: takes a small allocated block by one CAS of its tag word and keeps it; false
     * (nothing changed) when the block is not small, the cache is full, or the handle does not name
     * an allocated block (the locked path then says why).
     */
    boolean free(long handle) {
        long offset = offset(handle);
        int generation = generation(handle);
        if (generation == 0 || !blocks.inHeap(offset)) {
            return false;
        }
        int block = (int) offset;
        long sizeWord = body.getLongAcquire(block + SIZE_WORD);
        int size = size(sizeWord);
        if (!isUsed(sizeWord)
                || size > CACHE_MAX_BLOCK
                || size < MIN_BLOCK
                || size > heapEnd - block
                || count >= CACHE_BLOCKS // racy hints; the latch decides
                || bytes + size > byteLimit) { // always, when the cache is off
            return false;
        }
        long tag = body.getLongAcquire(block + TAG_WORD);
        if (generation(tag) != generation
                || !body.compareAndSetLong(block + TAG_WORD, tag, tag(0, OWN_PID))) {
            return false;
        }
        // The block is this process's alone from the CAS on. Killed here: (0, this PID) with the
        // allocator's start time, judged by presence: freed by reclaimDead once this PID is gone.
        Interleaving.at(Point.REGION_CACHE_CLAIMED);
        body.setLongRelease(block + META_WORD, cachedMeta(OWN_START_TIME));
        size = size(body.getLongPlain(block + SIZE_WORD)); // the block's, now that it is ours
        latch();
        try {
            if (count < CACHE_BLOCKS && bytes + size <= byteLimit) {
                offsets[count] = block;
                sizes[count] = size;
                count++;
                bytes += size;
                return true;
            }
        } finally {
            unlatch();
        }
        // Another thread filled the cache meanwhile: the block is taken already, free it now.
        lock.lock();
        try {
            freeList.free(block);
        } finally {
            lock.unlock();
        }
        return true;
    }

    /**
     * Returns the cached blocks to the free list (coalescing them), under the lock.
     *
     * @return how many blocks it returned
     */
    int flush() {
        lock.lock();
        try {
            return flushLocked();
        } finally {
            lock.unlock();
        }
    }

    /** {@link #flush()}, the caller holding the lock. */
    int flushLocked() {
        if (count == 0) { // a racy hint: a block cached meanwhile waits for the next flush
            return 0;
        }
        int[] returned;
        latch();
        try {
            returned = Arrays.copyOf(offsets, count);
            count = 0;
            bytes = 0;
        } finally {
            unlatch();
        }
        for (int block : returned) {
            freeList.free(block);
        }
        return returned.length;
    }

    /** Whether this cache keeps blocks at all. */
    boolean enabled() {
        return byteLimit != 0;
    }

    /** Whether it holds any block now (a racy hint). */
    boolean isEmpty() {
        return count == 0;
    }

    long bytes() {
        latch();
        try {
            return bytes;
        } finally {
            unlatch();
        }
    }

    int blocks() {
        latch();
        try {
            return count;
        } finally {
            unlatch();
        }
    }

    private void latch() {
        int spins = 0;
        while (!LATCH.compareAndSet(this, 0, 1)) {
            if (++spins % 64 == 0) {
                Thread.yield(); // the holder was descheduled mid-section
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private void unlatch() {
        LATCH.setRelease(this, 0);
    }
}
