package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.internal.Waits;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A sub-allocator in a memory-mapped file: variable-size blocks in one heap, shared by every
 * process on the host, that survives the death of any of them at any instruction. The backing store
 * for out-of-line payloads ({@link io.subetha.cxc.values.SharedUmbraPointer}'s long strings, and
 * any primitive that needs variable sizes). Layout: {@link SharedRegionDescriptor}.
 *
 * <p><b>Handles.</b> {@link #allocate} returns a handle: the block's offset in the file and a
 * generation, never an address, so it means the same in every process. Every use checks it against
 * the block's header: a handle of another region, of a freed block (a double free) or of a block
 * freed and allocated again is refused with a {@link IllegalArgumentException} that says which, and
 * changes nothing.
 *
 * <p><b>Protocol.</b> The free list (address-ordered, coalesced, first fit, a block split from its
 * end) changes only under the allocator lock, an {@link IntentLock} (an {@link OwnerRecord} whose
 * owner word holds the holder's PID, and a redo intent of {@link
 * SharedRegionDescriptor#JOURNAL_CAPACITY} entries). Each step under it is one intent:
 *
 * <ol>
 *   <li>take the lock: one CAS from the free owner word when its identity already names this
 *       process ({@link OwnerRecord#claimFree}: lock and unlock are two CASes uncontended); a
 *       holder found dead through {@code /proc} (gone, a zombie, its PID reused) is taken over by
 *       one CAS from exactly the word judged. A live holder is waited for, bounded ({@link
 *       #lockTimeout}); the timeout names it;
 *   <li>repair: a sealed intent left by a dead holder is applied again in place (its words are
 *       absolute values, so writing them twice is writing them once);
 *   <li>plan: read the list, validate every offset and size against the heap, and stage the new
 *       words as the intent's entries (nothing reachable is touched yet: a split allocation writes
 *       its new block's header in place, but inside the free block it splits, where no walk looks;
 *       a crash here leaves the heap as it was and the unsealed entries are void);
 *   <li>commit: seal the intent (one release store of its word, the commit point);
 *   <li>apply: write each word in place (a crash here is repaired by step 2 of the next holder);
 *   <li>clear the intent (release), release the lock (one CAS from the word this holder installed).
 * </ol>
 *
 * <p>So a SIGKILL at any point leaves either the heap before the step or a sealed intent that
 * completes it, and never a lock held by the dead: it is taken over at the next allocation or free.
 * A block allocated by a process that died before it freed it (or before the handle left {@code
 * allocate}) stays used until {@link #reclaimDead()} frees every block whose allocator is dead;
 * {@link #disown} makes a block survive its allocator.
 *
 * <p><b>Free cache.</b> A free of a small block (at most {@link
 * SharedRegionDescriptor#CACHE_MAX_BLOCK} bytes) does not take the lock: it takes the block out of
 * the allocated state by one CAS of its tag word, from exactly the generation and PID read, to
 * generation 0 (never a handle's) and this PID, writes this process's start time into the block
 * (release) and keeps the block in this handle's cache (at most {@link
 * SharedRegionDescriptor#CACHE_BLOCKS} blocks, and {@link SharedRegionDescriptor#cacheByteLimit}
 * bytes: under 1 % of the heap). An allocation of exactly a cached block's size takes it back: it
 * writes the header's meta word, then the tag with a new generation (release); no lock, no journal,
 * no CAS on the file. Every other free also takes the block by that CAS (under the lock, before its
 * step), and {@link #reclaimDead()} and {@link #disown} by a CAS from the word they judged, so two
 * frees of one handle (in two processes, one cached) never both win: the loser's error says freed
 * already. A cached block stays used in the heap: neighbours never coalesce into it, and it counts
 * in {@link #usedBytes()} and {@link #usedBlocks()} (it is not free to other processes) until this
 * handle allocates it again, or returns it to the free list: {@link #flushCache()}, {@link
 * #close()}, or the next allocation the cache cannot serve (so a block is reused from the cache
 * only while the cache is being reused at once; kept longer, reused blocks would pin holes in the
 * free list). A crash at any step of the cache path leaves the block tagged with the dead PID, so
 * {@link #reclaimDead()} frees it like the dead's allocated blocks (judged by start time once
 * written, by presence before). A handle dropped without {@code close()} keeps its cached blocks
 * until its process exits.
 *
 * <p>{@link #get} does not take the lock: it checks the handle, copies, and checks it again after
 * copying, so it never returns bytes of a block freed meanwhile. {@link #set} checks the handle and
 * writes under the lock: a {@code free} of the same block under the lock comes wholly before (the
 * set is refused: the handle is stale) or wholly after, and a cached free keeps the block's size
 * (it is reused only whole), so a late write can never land on a newer block's header or boundary
 * tag. A set killed mid-copy leaves its own block's payload half written (the block is still its
 * allocator's, to write again or free) and the lock to be taken over; nothing else. The region
 * still checks every boundary tag it follows and reports a damaged one as a {@link
 * CxcFormatException} rather than follow it.
 *
 * <p>Thread-safe; any number of processes may map the file.
 */
public final class SharedRegion extends MappedPrimitive {

    /** The ops a region counts, exported under these names. */
    public enum Op implements OpKind {
        ALLOCATE(1),
        FREE(2),
        GET(3),
        SET(4);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** How long a lock held by a live process is waited for, unless the handle says otherwise. */
    public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(10);

    /**
     * A region's creation settings.
     *
     * @param capacityBytes the heap's length, {@link SharedRegionDescriptor#MIN_CAPACITY}..{@link
     *     SharedRegionDescriptor#MAX_CAPACITY}; rounded up to a multiple of 64
     */
    public record Settings(long capacityBytes) {
        public static final long DEFAULT_CAPACITY = 64 * 1024;

        public Settings {
            if (capacityBytes < MIN_CAPACITY || capacityBytes > MAX_CAPACITY) {
                throw new CxcSettingsException(
                        "capacityBytes",
                        "capacityBytes must be "
                                + MIN_CAPACITY
                                + ".."
                                + MAX_CAPACITY
                                + " (4 KiB..1 GiB), got "
                                + capacityBytes);
            }
            capacityBytes =
                    (capacityBytes + HeaderDescriptor.ALIGNMENT - 1) & -HeaderDescriptor.ALIGNMENT;
        }
    }

    public static final PrimitiveType<SharedRegion, Settings> TYPE =
            PrimitiveType.<SharedRegion, Settings>define(
                            PrimitiveKinds.SHARED_REGION, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .shape(
                            settings ->
                                    new PrimitiveType.Shape(
                                            (int) settings.capacityBytes(), ALIGNMENT),
                            BODY_LAYOUT)
                    .initialiser(SharedRegion::initialise)
                    .bodyCheck(SharedRegion::problem)
                    .defaults(new Settings(Settings.DEFAULT_CAPACITY))
                    .construct((file, settings, options) -> new SharedRegion(file));

    private static final long OWN_PID = Pids.current();
    private static final long OWN_START_TIME = OwnerRecord.startTimeOf(OWN_PID);

    private final int heapEnd;
    private final int capacity;
    private volatile Duration lockTimeout = DEFAULT_LOCK_TIMEOUT;
    private final IntentLock lock;

    // This handle's free cache: blocks of this region tagged (generation 0, this PID), guarded by
    // the latch (one CAS on the heap, never held while waiting for anything).
    private volatile int cacheByteLimit;
    private final int[] cachedOffsets = new int[CACHE_BLOCKS];
    private final int[] cachedSizes = new int[CACHE_BLOCKS];
    private int cachedCount;
    private int cachedBytes;
    private long cachePops;
    private final long cacheSalt = java.util.concurrent.ThreadLocalRandom.current().nextLong();

    @SuppressWarnings("unused") // through CACHE_LATCH
    private volatile int cacheLatch;

    private static final VarHandle CACHE_LATCH;

    static {
        try {
            CACHE_LATCH =
                    java.lang.invoke.MethodHandles.lookup()
                            .findVarHandle(SharedRegion.class, "cacheLatch", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private SharedRegion(MappedFile file) {
        super(file, TYPE);
        this.capacity = file.header().capacity();
        this.heapEnd = HEAP_OFFSET + capacity;
        this.cacheByteLimit = SharedRegionDescriptor.cacheByteLimit(capacity);
        this.lock = new IntentLock(body, LOCK_OFFSET, JOURNAL_CAPACITY, 0, "region " + file());
    }

    // ---------------------------------------------------------------------------- factories

    /** Creates a region with a heap of {@code capacityBytes}; fails if the file exists. */
    public static SharedRegion create(Path path, long capacityBytes) {
        return create(path, capacityBytes, CxcFileOptions.defaults());
    }

    public static SharedRegion create(Path path, long capacityBytes, CxcFileOptions options) {
        return TYPE.create(path, new Settings(capacityBytes), options);
    }

    /** Opens an existing region, which must have been created with {@code capacityBytes}. */
    public static SharedRegion open(Path path, long capacityBytes) {
        return TYPE.open(path, new Settings(capacityBytes), CxcFileOptions.defaults());
    }

    /** Opens an existing region of any capacity. */
    public static SharedRegion open(Path path) {
        return TYPE.openAsRecorded(path, CxcFileOptions.defaults());
    }

    /** Opens the region, or creates it with {@code capacityBytes}; race-safe across processes. */
    public static SharedRegion openOrCreate(Path path, long capacityBytes) {
        return openOrCreate(path, capacityBytes, CxcFileOptions.defaults());
    }

    public static SharedRegion openOrCreate(Path path, long capacityBytes, CxcFileOptions options) {
        return TYPE.openOrCreate(path, new Settings(capacityBytes), options);
    }

    private static void initialise(io.subetha.cxc.mmf.AtomicBuffer body, Settings settings) {
        int capacity = (int) settings.capacityBytes();
        long salt = new SecureRandom().nextLong();
        body.setLongPlain(SALT_OFFSET, salt == 0 ? 1 : salt);
        body.setLongPlain(HEAP_OFFSET + SIZE_WORD, sizeWord(capacity, false));
        body.setLongPlain(HEAP_OFFSET + TAG_WORD, link(0, 0));
        body.setLongPlain(HEAP_OFFSET + capacity - 8, sizeWord(capacity, false));
        body.setLongPlain(FREE_HEAD_OFFSET, HEAP_OFFSET);
    }

    private static @Nullable String problem(io.subetha.cxc.mmf.AtomicBuffer body) {
        long heapEnd = body.capacity();
        long head = body.getLongAcquire(FREE_HEAD_OFFSET);
        if (head != 0
                && (head < HEAP_OFFSET || head > heapEnd - MIN_BLOCK || head % ALIGNMENT != 0)) {
            return "first free block at "
                    + head
                    + ", outside the heap ["
                    + HEAP_OFFSET
                    + ", "
                    + heapEnd
                    + ")";
        }
        long used = bytesOf(body.getLongAcquire(USED_OFFSET));
        if (used > heapEnd - HEAP_OFFSET) {
            return "used bytes " + used + ", more than the heap's " + (heapEnd - HEAP_OFFSET);
        }
        return IntentLock.intentProblem(body, LOCK_OFFSET, JOURNAL_CAPACITY);
    }

    // ----------------------------------------------------------------------------- settings

    /** How long a lock held by a live process is waited for before {@link CxcTimeoutException}. */
    public SharedRegion lockTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("lockTimeout must be positive, got " + timeout);
        }
        this.lockTimeout = timeout;
        return this;
    }

    public Duration lockTimeout() {
        return lockTimeout;
    }

    // ------------------------------------------------------------------------------ allocate

    /** The most bytes one allocation can hold: the heap less one block's overhead. */
    public int maxAllocation() {
        return capacity - OVERHEAD;
    }

    /**
     * Allocates a block of {@code size} bytes (zeroed only if never used before: write what you
     * read), owned by this process until freed or {@link #disown disowned}. A block of this
     * handle's free cache of exactly the size needed is taken first, without the lock; else the
     * cache is returned to the free list, under the lock, before the free list is searched.
     *
     * @return the block's handle, never 0
     * @throws IllegalArgumentException if {@code size} is outside 1..{@link #maxAllocation()}
     * @throws CxcCapacityException if no free block fits
     */
    public long allocate(int size) {
        if (size < 1 || size > maxAllocation()) {
            throw new IllegalArgumentException(
                    "size "
                            + size
                            + " is outside 1.."
                            + maxAllocation()
                            + " (this region's capacity "
                            + capacity
                            + " bytes less "
                            + OVERHEAD
                            + " bytes of block overhead)");
        }
        counters.increment(Op.ALLOCATE);
        int need = blockSize(size);
        if (need <= CACHE_MAX_BLOCK && cachedCount != 0) { // a racy hint; the latch decides
            long handle = allocateCached(need, size);
            if (handle != 0) {
                return handle;
            }
        }
        try {
            return allocateLocked(size, need);
        } catch (CxcCapacityException full) {
            // Another thread of this handle cached blocks while the search ran.
            if (flushCache() == 0) {
                throw full;
            }
            return allocateLocked(size, need);
        }
    }

    /** Takes a cached block of exactly {@code need} bytes, or returns 0. */
    private long allocateCached(int need, int size) {
        int block = 0;
        long pops;
        latchCache();
        try {
            for (int i = cachedCount - 1; i >= 0; i--) {
                if (cachedSizes[i] == need) {
                    block = cachedOffsets[i];
                    int last = --cachedCount;
                    cachedOffsets[i] = cachedOffsets[last];
                    cachedSizes[i] = cachedSizes[last];
                    cachedBytes -= need;
                    break;
                }
            }
            if (block == 0) {
                return 0;
            }
            pops = ++cachePops;
        } finally {
            unlatchCache();
        }
        int generation = generationOf(pops, cacheSalt);
        if (generation == 0) {
            generation = generationOf(pops, ~cacheSalt);
        }
        // Killed here: still a cached block, judged by its start time. Killed between the two
        // writes: generation 0 without the mark, judged by presence. reclaimDead frees either.
        Interleaving.at(Point.REGION_CACHE_POPPED);
        body.setLongPlain(block + META_WORD, meta(size, OWN_START_TIME));
        body.setLongRelease(block + TAG_WORD, tag(generation, OWN_PID));
        return handle(generation, block);
    }

    private long allocateLocked(int size, int need) {
        lock();
        try {
            // An allocation the cache could not serve returns the cache first (under this one
            // lock): a block reused from it stays where it lies instead of where first fit would
            // put it, so only a cache that is being reused at once may keep blocks out of the list.
            flushLocked();
            int previous = 0;
            int block = (int) body.getLongPlain(FREE_HEAD_OFFSET);
            int steps = 0;
            while (block != 0) {
                long sizeWord = checkedFreeBlock(block, previous);
                if (size(sizeWord) >= need) {
                    break;
                }
                previous = block;
                block = next(body.getLongPlain(block + TAG_WORD));
                if (++steps > capacity / MIN_BLOCK) {
                    throw corrupt("the free list has a cycle");
                }
            }
            if (block == 0) {
                throw new CxcCapacityException(
                        "region "
                                + file()
                                + " has no free block of "
                                + need
                                + " bytes for "
                                + size
                                + " bytes: largest free block "
                                + largestFreeLocked()
                                + " bytes, free "
                                + (capacity - usedLocked())
                                + " of capacity "
                                + capacity
                                + " bytes. Free blocks (or reclaimDead()) or create a"
                                + " larger region");
            }
            long allocations = body.getLongPlain(ALLOCATIONS_OFFSET);
            long salt = body.getLongPlain(SALT_OFFSET);
            int generation;
            do {
                generation = generationOf(++allocations, salt);
            } while (generation == 0);
            int free = size(body.getLongPlain(block + SIZE_WORD));
            int used;
            if (free - need >= MIN_BLOCK) {
                // Split from the end: the free block keeps its place in the list. The new block's
                // header lies inside the free block, past its own header (rest >= MIN_BLOCK) and
                // before its tail: no walk reaches it until the step commits, so it is written in
                // place before the seal (ordered before it by the seal's release), not staged. A
                // crash before the seal leaves it as dead bytes inside a free block.
                int rest = free - need;
                used = block + rest;
                body.setLongPlain(used + SIZE_WORD, sizeWord(need, true));
                body.setLongPlain(used + TAG_WORD, tag(generation, OWN_PID));
                body.setLongPlain(used + META_WORD, meta(size, OWN_START_TIME));
                plan(block + SIZE_WORD, sizeWord(rest, false));
                plan(block + rest - 8, sizeWord(rest, false));
            } else {
                // Exact fit: the header is the free block's own, reachable: staged.
                need = free;
                used = block;
                long links = body.getLongPlain(block + TAG_WORD);
                unlink(previous(links), next(links));
                plan(used + SIZE_WORD, sizeWord(need, true));
                plan(used + TAG_WORD, tag(generation, OWN_PID));
                plan(used + META_WORD, meta(size, OWN_START_TIME));
            }
            plan(used + need - 8, sizeWord(need, true));
            plan(ALLOCATIONS_OFFSET, allocations);
            long usedWord = body.getLongPlain(USED_OFFSET);
            plan(USED_OFFSET, used(bytesOf(usedWord) + need, blocksOf(usedWord) + 1));
            commit();
            return handle(generation, used);
        } finally {
            unlock();
        }
    }

    /**
     * Frees the block of {@code handle}, coalescing it with free neighbours.
     *
     * @throws IllegalArgumentException if the handle is not one of this region's allocated blocks:
     *     freed already, stale, or of another region (nothing is changed)
     */
    public void free(long handle) {
        counters.increment(Op.FREE);
        if (freeToCache(handle)) {
            return;
        }
        lock();
        try {
            int block = checkedBlock(handle, "free");
            Interleaving.at(Point.REGION_HANDLE_CHECKED);
            take(handle, block, "free");
            freeLocked(block);
        } finally {
            unlock();
        }
    }

    /**
     * The cached free: takes a small allocated block by one CAS of its tag word and keeps it; false
     * (nothing changed) when the block is not small, the cache is full, or the handle does not name
     * an allocated block (the locked path then says why).
     */
    private boolean freeToCache(long handle) {
        long offset = offset(handle);
        int generation = generation(handle);
        if (generation == 0
                || offset < HEAP_OFFSET
                || offset > heapEnd - MIN_BLOCK
                || offset % ALIGNMENT != 0) {
            return false;
        }
        int block = (int) offset;
        long sizeWord = body.getLongAcquire(block + SIZE_WORD);
        int size = size(sizeWord);
        if (!isUsed(sizeWord)
                || size > CACHE_MAX_BLOCK
                || size < MIN_BLOCK
                || size > heapEnd - block
                || cachedCount >= CACHE_BLOCKS // racy hints; the latch decides
                || cachedBytes + size > cacheByteLimit) { // 0 once the cache is off
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
        latchCache();
        try {
            if (cachedCount < CACHE_BLOCKS && cachedBytes + size <= cacheByteLimit) {
                cachedOffsets[cachedCount] = block;
                cachedSizes[cachedCount] = size;
                cachedCount++;
                cachedBytes += size;
                return true;
            }
        } finally {
            unlatchCache();
        }
        // Another thread filled the cache meanwhile: the block is taken already, free it now.
        lock();
        try {
            freeLocked(block);
        } finally {
            unlock();
        }
        return true;
    }

    /**
     * Takes the checked block of {@code handle} out of the allocated state before a step frees it:
     * a CAS of its tag word from the handle's generation to (0, this PID), so that a cached free of
     * the same handle elsewhere cannot take it too. A crash before the step commits leaves it
     * tagged with this dead PID, for {@link #reclaimDead()}.
     */
    private void take(long handle, int block, String operation) {
        long tag = body.getLongAcquire(block + TAG_WORD);
        if (generation(tag) != generation(handle)
                || !body.compareAndSetLong(block + TAG_WORD, tag, tag(0, OWN_PID))) {
            String problem = validate(handle);
            throw new IllegalArgumentException(
                    operation
                            + " refused in region "
                            + file()
                            + ": "
                            + (problem != null
                                    ? problem
                                    : String.format(
                                            "handle 0x%016x was freed already by another process"
                                                    + " (a double free)",
                                            handle)));
        }
    }

    /**
     * Returns this handle's cached free blocks to the free list (coalescing them), under the lock.
     *
     * @return how many blocks it returned
     */
    public int flushCache() {
        lock();
        try {
            return flushLocked();
        } finally {
            unlock();
        }
    }

    private int flushLocked() {
        if (cachedCount == 0) { // a racy hint: a block cached meanwhile waits for the next flush
            return 0;
        }
        int[] blocks;
        latchCache();
        try {
            blocks = java.util.Arrays.copyOf(cachedOffsets, cachedCount);
            cachedCount = 0;
            cachedBytes = 0;
        } finally {
            unlatchCache();
        }
        for (int block : blocks) {
            freeLocked(block);
        }
        return blocks.length;
    }

    /**
     * Turns this handle's free cache on (the default) or off; off, its blocks are returned to the
     * free list at once and every free takes the lock. The cache trades layout for speed: a block
     * taken back from it is reused where it lies instead of where first fit would put it (the cache
     * is returned at every allocation it cannot serve, which bounds this; see docs/PERFORMANCE.md,
     * "Issue 15's last figures").
     */
    public SharedRegion freeCache(boolean enabled) {
        cacheByteLimit = enabled ? SharedRegionDescriptor.cacheByteLimit(capacity) : 0;
        if (!enabled) {
            flushCache();
        }
        return this;
    }

    /** Whether this handle caches small freed blocks (see {@link #freeCache(boolean)}). */
    public boolean freeCache() {
        return cacheByteLimit != 0;
    }

    /** Bytes in this handle's free cache (counted in {@link #usedBytes()}). */
    public long cachedBytes() {
        latchCache();
        try {
            return cachedBytes;
        } finally {
            unlatchCache();
        }
    }

    /** Blocks in this handle's free cache (counted in {@link #usedBlocks()}). */
    public int cachedBlocks() {
        latchCache();
        try {
            return cachedCount;
        } finally {
            unlatchCache();
        }
    }

    /** Returns this handle's free cache to the free list, then closes the handle. */
    @Override
    public void close() {
        try {
            if (!isClosed() && cachedCount != 0) {
                flushCache();
            }
        } finally {
            super.close();
        }
    }

    private void latchCache() {
        int spins = 0;
        while (!CACHE_LATCH.compareAndSet(this, 0, 1)) {
            if (++spins % 64 == 0) {
                Thread.yield(); // the holder was descheduled mid-section
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private void unlatchCache() {
        CACHE_LATCH.setRelease(this, 0);
    }

    /**
     * Frees every used block whose allocating process is dead (gone, a zombie, or its PID reused),
     * e.g. blocks of a process killed between {@code allocate} and {@code free}.
     *
     * @return the bytes freed (block sizes)
     */
    public long reclaimDead() {
        lock();
        long freed = 0;
        try {
            Map<Long, Boolean> dead = new HashMap<>();
            int block = HEAP_OFFSET;
            while (block < heapEnd) {
                long sizeWord = checkedBlockAt(block);
                int size = size(sizeWord);
                if (isUsed(sizeWord)) {
                    long tag = body.getLongPlain(block + TAG_WORD);
                    long pid = pid(tag);
                    long metaWord = body.getLongPlain(block + META_WORD);
                    // Generation 0 without the mark: half-way into or out of a cache (or taken by
                    // a free killed before its step), the start time not yet (or no longer) its.
                    long startTime =
                            generation(tag) == 0 && !isCachedMeta(metaWord)
                                    ? ProcessProbe.UNKNOWN_START_TIME
                                    : startTime(metaWord);
                    if (pid != 0
                            && dead.computeIfAbsent(
                                    (startTime << 32) | pid,
                                    k -> ProcessProbe.status(pid, startTime) == ProcessStatus.DEAD)
                            // From the word judged: a live process's cached free of a dead
                            // process's block, meanwhile, keeps it.
                            && body.compareAndSetLong(block + TAG_WORD, tag, tag(0, OWN_PID))) {
                        freed += size;
                        block = freeLocked(block);
                        continue;
                    }
                }
                block += size;
            }
            return freed;
        } finally {
            unlock();
        }
    }

    /**
     * Makes the block of {@code handle} nobody's: {@link #reclaimDead()} never frees it, only an
     * explicit {@link #free}. For blocks meant to outlive their allocator (a string stored for
     * others).
     */
    public void disown(long handle) {
        int block = checkedBlock(handle, "disown");
        Interleaving.at(Point.REGION_HANDLE_CHECKED);
        long tag = body.getLongAcquire(block + TAG_WORD);
        // One word, by CAS from the generation checked: a free (cached or not) meanwhile wins.
        if (generation(tag) != generation(handle)
                || !body.compareAndSetLong(block + TAG_WORD, tag, tag(generation(handle), 0))) {
            checkedBlock(handle, "disown");
            throw new IllegalArgumentException(
                    String.format(
                            "disown refused in region %s: handle 0x%016x was freed meanwhile",
                            file(), handle));
        }
    }

    // ---------------------------------------------------------------------------- get / set

    /** The payload length {@code handle} was allocated with. */
    public int sizeOf(long handle) {
        return payloadLength(checkedBlock(handle, "sizeOf"));
    }

    /** The PID that allocated {@code handle}'s block; 0 once {@link #disown disowned}. */
    public long ownerOf(long handle) {
        int block = checkedBlock(handle, "ownerOf");
        return pid(body.getLongAcquire(block + TAG_WORD));
    }

    /** A copy of the block's whole payload. */
    public byte[] get(long handle) {
        counters.increment(Op.GET);
        int block = checkedBlock(handle, "get");
        byte[] bytes = new byte[payloadLength(block)];
        body.byteBuffer().get(block + PAYLOAD_OFFSET, bytes, 0, bytes.length);
        recheck(handle, block);
        return bytes;
    }

    /** Copies {@code length} payload bytes from {@code offset} into {@code destination}. */
    public void get(
            long handle, int offset, byte[] destination, int destinationOffset, int length) {
        counters.increment(Op.GET);
        int block = checkedRange(handle, offset, length, "get");
        java.util.Objects.checkFromIndexSize(destinationOffset, length, destination.length);
        body.byteBuffer()
                .get(block + PAYLOAD_OFFSET + offset, destination, destinationOffset, length);
        recheck(handle, block);
    }

    /** Copies {@code length} payload bytes from {@code offset} into {@code destination}. */
    public void get(long handle, int offset, ByteBuffer destination, int length) {
        counters.increment(Op.GET);
        int block = checkedRange(handle, offset, length, "get");
        ByteBuffer source = body.byteBuffer().slice(block + PAYLOAD_OFFSET + offset, length);
        destination.put(source);
        recheck(handle, block);
    }

    /** Writes {@code bytes} at the start of the payload; at most {@link #sizeOf} bytes. */
    public void set(long handle, byte[] bytes) {
        set(handle, 0, bytes, 0, bytes.length);
    }

    /** Writes {@code length} bytes of {@code source} at payload {@code offset}. */
    public void set(long handle, int offset, byte[] source, int sourceOffset, int length) {
        counters.increment(Op.SET);
        java.util.Objects.checkFromIndexSize(sourceOffset, length, source.length);
        lock();
        try {
            int block = checkedRange(handle, offset, length, "set");
            Interleaving.at(Point.REGION_SET_CHECKED);
            body.byteBuffer().put(block + PAYLOAD_OFFSET + offset, source, sourceOffset, length);
        } finally {
            unlock(); // its release CAS publishes the bytes
        }
    }

    /** Writes the remaining bytes of {@code source} at payload {@code offset}. */
    public void set(long handle, int offset, ByteBuffer source) {
        counters.increment(Op.SET);
        int length = source.remaining();
        lock();
        try {
            int block = checkedRange(handle, offset, length, "set");
            Interleaving.at(Point.REGION_SET_CHECKED);
            body.byteBuffer()
                    .put(block + PAYLOAD_OFFSET + offset, source, source.position(), length);
        } finally {
            unlock();
        }
        source.position(source.position() + length);
    }

    /**
     * Whether the payloads of {@code a} and {@code b} are equal: lengths, then 8 bytes at a time;
     * allocation-free.
     */
    public boolean payloadEquals(long a, long b) {
        int blockA = checkedBlock(a, "payloadEquals");
        int blockB = checkedBlock(b, "payloadEquals");
        int length = payloadLength(blockA);
        if (length != payloadLength(blockB)) {
            return false;
        }
        int pa = blockA + PAYLOAD_OFFSET;
        int pb = blockB + PAYLOAD_OFFSET;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            if (body.getLongPlain(pa + i) != body.getLongPlain(pb + i)) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (body.getByte(pa + i) != body.getByte(pb + i)) {
                return false;
            }
        }
        recheck(a, blockA);
        recheck(b, blockB);
        return true;
    }

    /**
     * Whether the payload of {@code handle} equals {@code other} from byte {@code from} on (its
     * length must equal {@code other.length}); allocation-free.
     */
    public boolean payloadEquals(long handle, byte[] other, int from) {
        int block = checkedBlock(handle, "payloadEquals");
        int length = payloadLength(block);
        if (length != other.length || from < 0 || from > length) {
            return false;
        }
        int p = block + PAYLOAD_OFFSET;
        int i = from;
        for (; i + 8 <= length; i += 8) {
            if (body.getLongPlain(p + i) != (long) BYTES_AS_LONG.get(other, i)) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (body.getByte(p + i) != other[i]) {
                return false;
            }
        }
        recheck(handle, block);
        return true;
    }

    private static final VarHandle BYTES_AS_LONG =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
                    long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /** Whether {@code handle} names an allocated block of this region now. */
    public boolean isAllocated(long handle) {
        return validate(handle) == null;
    }

    // -------------------------------------------------------------------------------- reads

    /** The heap's length in bytes: {@link #usedBytes()} + {@link #freeBytes()}. */
    public long capacity() {
        return capacity;
    }

    /**
     * Bytes in used blocks (payloads, their overhead and rounding), including blocks held in a free
     * cache (of any live handle: not free to other processes; {@link #cachedBytes()} is this
     * handle's share).
     */
    public long usedBytes() {
        return Math.min(capacity, bytesOf(body.getLongVolatile(USED_OFFSET)));
    }

    public long freeBytes() {
        return capacity - usedBytes();
    }

    /** Blocks allocated and not yet freed, and blocks in free caches (see {@link #usedBytes()}). */
    public long usedBlocks() {
        return blocksOf(body.getLongVolatile(USED_OFFSET));
    }

    /** Dead holders' half-done steps completed from the journal, by every process. */
    public long repairs() {
        return lock.repairs();
    }

    /**
     * The largest free block's size in bytes (the most one allocation can get is this less {@link
     * SharedRegionDescriptor#OVERHEAD}); walks the free list under the lock. Cached blocks are not
     * in it.
     */
    public int largestFreeBlock() {
        lock();
        try {
            return largestFreeLocked();
        } finally {
            unlock();
        }
    }

    /** Every block in address order, as the heap holds them now (under the lock). */
    public List<Block> blocks() {
        lock();
        try {
            List<Block> blocks = new ArrayList<>();
            for (int block = HEAP_OFFSET; block < heapEnd; ) {
                long sizeWord = checkedBlockAt(block);
                boolean used = isUsed(sizeWord);
                long tag = body.getLongPlain(block + TAG_WORD);
                blocks.add(
                        new Block(
                                block,
                                size(sizeWord),
                                used,
                                used ? pid(tag) : 0,
                                used && generation(tag) == 0));
                block += size(sizeWord);
            }
            return blocks;
        } finally {
            unlock();
        }
    }

    /** The free list's block offsets, in list order (under the lock). */
    public List<Integer> freeList() {
        lock();
        try {
            List<Integer> list = new ArrayList<>();
            int previous = 0;
            for (int block = (int) body.getLongPlain(FREE_HEAD_OFFSET); block != 0; ) {
                checkedFreeBlock(block, previous);
                list.add(block);
                if (list.size() > capacity / MIN_BLOCK) {
                    throw corrupt("the free list has a cycle");
                }
                previous = block;
                block = next(body.getLongPlain(block + TAG_WORD));
            }
            return list;
        } finally {
            unlock();
        }
    }

    /**
     * One block as {@link #blocks()} sees it; {@code cached}: used, in a free cache of {@code
     * ownerPid} (or half-way into or out of one).
     */
    public record Block(int offset, int size, boolean used, long ownerPid, boolean cached) {}

    /** The lock's holder PID now (0 = free), for diagnostics. */
    public long lockHolder() {
        return lock.holderPid();
    }

    @Override
    public Map<String, Object> describe() {
        long used = usedBytes();
        return fields(
                "capacityBytes", capacity,
                "usedBytes", used,
                "freeBytes", capacity - used,
                "usedBlocks", usedBlocks(),
                "cachedBytes", cachedBytes(),
                "allocations", body.getLongVolatile(ALLOCATIONS_OFFSET),
                "repairs", lock.repairs(),
                "lockHolderPid", lockHolder(),
                "lockWaiterPid", lock.waiterPid());
    }

    // ------------------------------------------------------------------------------- the lock

    /** Takes the allocator lock; a dead holder's sealed step is completed first. */
    private void lock() {
        lock.lock(Waits.nanos(lockTimeout));
    }

    private void unlock() {
        lock.unlock();
    }

    private void plan(int offset, long value) {
        lock.stage(offset, value);
    }

    private void commit() {
        lock.commit();
    }

    /** Plans the removal of a free block between {@code previous} and {@code next}. */
    private void unlink(int previous, int next) {
        if (previous == 0) {
            plan(FREE_HEAD_OFFSET, next);
        } else {
            plan(previous + TAG_WORD, link(previous(body.getLongPlain(previous + TAG_WORD)), next));
        }
        if (next != 0) {
            plan(next + TAG_WORD, link(previous, next(body.getLongPlain(next + TAG_WORD))));
        }
    }

    /**
     * Frees the used block at {@code block} (checked) under the lock.
     *
     * @return the start of the free block it became part of
     */
    private int freeLocked(int block) {
        int size = size(body.getLongPlain(block + SIZE_WORD));
        int end = block + size;
        boolean nextFree = end < heapEnd && !isUsed(checkedBlockAt(end));
        int before = 0;
        if (block > HEAP_OFFSET) {
            long tail = body.getLongPlain(block - 8);
            int beforeSize = size(tail);
            before = block - beforeSize;
            if (beforeSize < MIN_BLOCK
                    || before < HEAP_OFFSET
                    || body.getLongPlain(before + SIZE_WORD) != tail) {
                throw corrupt(
                        "the boundary tag before block " + block + " does not match its block");
            }
            if (isUsed(tail)) {
                before = 0;
            }
        }
        int start;
        if (before != 0 && nextFree) {
            // before + block + next become one: next leaves the list.
            int nextSize = size(body.getLongPlain(end + SIZE_WORD));
            int merged = size(body.getLongPlain(before + SIZE_WORD)) + size + nextSize;
            long nextLinks = body.getLongPlain(end + TAG_WORD);
            long beforeLinks = body.getLongPlain(before + TAG_WORD);
            plan(before + SIZE_WORD, sizeWord(merged, false));
            plan(before + merged - 8, sizeWord(merged, false));
            // next directly follows before in address order, so it is before's list successor.
            plan(before + TAG_WORD, link(previous(beforeLinks), next(nextLinks)));
            if (next(nextLinks) != 0) {
                int after = next(nextLinks);
                plan(after + TAG_WORD, link(before, next(body.getLongPlain(after + TAG_WORD))));
            }
            plan(block + SIZE_WORD, 0);
            plan(end + SIZE_WORD, 0);
            start = before;
        } else if (before != 0) {
            int merged = size(body.getLongPlain(before + SIZE_WORD)) + size;
            plan(before + SIZE_WORD, sizeWord(merged, false));
            plan(before + merged - 8, sizeWord(merged, false));
            plan(block + SIZE_WORD, 0);
            start = before;
        } else if (nextFree) {
            // block takes next's place in the list.
            int merged = size + size(body.getLongPlain(end + SIZE_WORD));
            long nextLinks = body.getLongPlain(end + TAG_WORD);
            plan(block + SIZE_WORD, sizeWord(merged, false));
            plan(block + TAG_WORD, nextLinks);
            plan(block + META_WORD, 0);
            plan(block + merged - 8, sizeWord(merged, false));
            if (previous(nextLinks) == 0) {
                plan(FREE_HEAD_OFFSET, block);
            } else {
                int p = previous(nextLinks);
                plan(p + TAG_WORD, link(previous(body.getLongPlain(p + TAG_WORD)), block));
            }
            if (next(nextLinks) != 0) {
                int n = next(nextLinks);
                plan(n + TAG_WORD, link(block, next(body.getLongPlain(n + TAG_WORD))));
            }
            plan(end + SIZE_WORD, 0);
            start = block;
        } else {
            // Between two used blocks: into the list after the last free block before it.
            int previous = 0;
            int successor = (int) body.getLongPlain(FREE_HEAD_OFFSET);
            int steps = 0;
            while (successor != 0 && successor < block) {
                checkedFreeBlock(successor, previous);
                previous = successor;
                successor = next(body.getLongPlain(successor + TAG_WORD));
                if (++steps > capacity / MIN_BLOCK) {
                    throw corrupt("the free list has a cycle");
                }
            }
            plan(block + SIZE_WORD, sizeWord(size, false));
            plan(block + TAG_WORD, link(previous, successor));
            plan(block + META_WORD, 0);
            plan(block + size - 8, sizeWord(size, false));
            if (previous == 0) {
                plan(FREE_HEAD_OFFSET, block);
            } else {
                plan(
                        previous + TAG_WORD,
                        link(previous(body.getLongPlain(previous + TAG_WORD)), block));
            }
            if (successor != 0) {
                plan(
                        successor + TAG_WORD,
                        link(block, next(body.getLongPlain(successor + TAG_WORD))));
            }
            start = block;
        }
        long usedWord = body.getLongPlain(USED_OFFSET);
        plan(USED_OFFSET, used(bytesOf(usedWord) - size, blocksOf(usedWord) - 1));
        commit();
        return start;
    }

    // ------------------------------------------------------------------------------- checks

    private int largestFreeLocked() {
        int largest = 0;
        int steps = 0;
        for (int block = (int) body.getLongPlain(FREE_HEAD_OFFSET); block != 0; ) {
            largest = Math.max(largest, size(checkedFreeBlock(block, 0)));
            block = next(body.getLongPlain(block + TAG_WORD));
            if (++steps > capacity / MIN_BLOCK) {
                throw corrupt("the free list has a cycle");
            }
        }
        return largest;
    }

    private long usedLocked() {
        return bytesOf(body.getLongPlain(USED_OFFSET));
    }

    /** The size word of the block at {@code block}, after checking its bounds and boundary tag. */
    private long checkedBlockAt(int block) {
        if (block < HEAP_OFFSET || block > heapEnd - MIN_BLOCK || block % ALIGNMENT != 0) {
            throw corrupt(
                    "a block at offset "
                            + block
                            + ", outside the heap ["
                            + HEAP_OFFSET
                            + ", "
                            + heapEnd
                            + ")");
        }
        long sizeWord = body.getLongPlain(block + SIZE_WORD);
        int size = size(sizeWord);
        if (size < MIN_BLOCK
                || size % ALIGNMENT != 0
                || size > heapEnd - block
                || body.getLongPlain(block + size - 8) != sizeWord) {
            throw corrupt(
                    "the block at offset "
                            + block
                            + " has size word 0x"
                            + Long.toHexString(sizeWord)
                            + " and a boundary tag that does not match");
        }
        return sizeWord;
    }

    /** {@link #checkedBlockAt} for a block the free list names after {@code previous}. */
    private long checkedFreeBlock(int block, int previous) {
        long sizeWord = checkedBlockAt(block);
        if (isUsed(sizeWord) || block <= previous) {
            throw corrupt(
                    "the free list names block "
                            + block
                            + " after "
                            + previous
                            + (isUsed(sizeWord) ? ", a used block" : ", out of address order"));
        }
        return sizeWord;
    }

    private CxcFormatException corrupt(String problem) {
        return new CxcFormatException(
                "region "
                        + file()
                        + " is corrupt: "
                        + problem
                        + ". Its blocks cannot be trusted; recreate the region");
    }

    /** Null if {@code handle} names an allocated block now, else why not. */
    private String validate(long handle) {
        long offset = offset(handle);
        if (handle == 0) {
            return "handle 0 is not a handle (allocate never returns 0)";
        }
        if (offset < HEAP_OFFSET || offset > heapEnd - MIN_BLOCK || offset % ALIGNMENT != 0) {
            return String.format(
                    "handle 0x%016x names offset %d, outside this region's heap [%d, %d) or not"
                            + " %d-aligned: a handle of another region, or not a handle",
                    handle, offset, HEAP_OFFSET, heapEnd, ALIGNMENT);
        }
        int block = (int) offset;
        long sizeWord = body.getLongAcquire(block + SIZE_WORD);
        long tag = body.getLongAcquire(block + TAG_WORD);
        int size = size(sizeWord);
        if (!isUsed(sizeWord)
                || size < MIN_BLOCK
                || size > heapEnd - block
                || generation(tag) == 0) {
            return String.format(
                    "handle 0x%016x names no allocated block: it was freed already (a double free"
                            + " or a stale handle), or it is another region's",
                    handle);
        }
        if (generation(tag) != generation(handle)) {
            return String.format(
                    "handle 0x%016x is stale: the block at offset %d now has generation 0x%08x,"
                            + " the handle 0x%08x (it was freed and allocated again, or the handle"
                            + " is another region's)",
                    handle, offset, generation(tag), generation(handle));
        }
        return null;
    }

    private int checkedBlock(long handle, String operation) {
        String problem = validate(handle);
        if (problem != null) {
            throw new IllegalArgumentException(
                    operation + " refused in region " + file() + ": " + problem);
        }
        return (int) offset(handle);
    }

    private int checkedRange(long handle, int offset, int length, String operation) {
        int block = checkedBlock(handle, operation);
        int payload = payloadLength(block);
        if (offset < 0 || length < 0 || offset > payload - length) {
            throw new IllegalArgumentException(
                    operation
                            + " of "
                            + length
                            + " bytes at offset "
                            + offset
                            + " is outside the block's payload of "
                            + payload
                            + " bytes");
        }
        return block;
    }

    /** The block's payload length, never past its end (the file may say otherwise). */
    private int payloadLength(int block) {
        int length = length(body.getLongAcquire(block + META_WORD));
        int room = size(body.getLongAcquire(block + SIZE_WORD)) - OVERHEAD;
        return Math.max(0, Math.min(length, room));
    }

    private void recheck(long handle, int block) {
        Interleaving.at(Point.REGION_PAYLOAD_READ);
        VarHandle.acquireFence();
        if (generation(body.getLongAcquire(block + TAG_WORD)) != generation(handle)
                || !isUsed(body.getLongAcquire(block + SIZE_WORD))) {
            throw new IllegalArgumentException(
                    String.format(
                            "get refused in region %s: handle 0x%016x was freed while it was read",
                            file(), handle));
        }
    }
}
