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
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
 * SharedRegionDescriptor#JOURNAL_CAPACITY} entries). Taking it is one CAS uncontended; a holder
 * found dead through {@code /proc} (gone, a zombie, its PID reused) is taken over by one CAS from
 * exactly the word judged, and its sealed intent applied again first; a live holder is waited for,
 * bounded ({@link Settings#lockTimeout}), and the timeout names it. Each step under the lock reads
 * and validates the list, stages its new words, seals the intent (the commit point), applies the
 * words in place and clears the intent. So a SIGKILL at any point leaves either the heap before the
 * step or a sealed intent that completes it, and never a lock held by the dead. A block allocated
 * by a process that died before it freed it stays used until {@link #reclaimDead()} frees every
 * block whose allocator is dead; {@link #disown} makes a block survive its allocator.
 *
 * <p><b>Free cache.</b> A free of a small block (at most {@link
 * SharedRegionDescriptor#CACHE_MAX_BLOCK} bytes) takes no lock: one CAS of its tag word takes the
 * block out of the allocated state into this handle's cache, and an allocation of exactly its size
 * takes it back with no CAS at all. Every other free takes the block by that CAS too (under the
 * lock, before its step), and {@link #reclaimDead()} and {@link #disown} by a CAS from the word
 * they judged, so two frees of one handle (in two processes, one cached) never both win: the
 * loser's error says freed already. A cached block stays used in the heap and counts in {@link
 * #usedBytes()} and {@link #usedBlocks()} (it is not free to other processes) until this handle
 * allocates it again, or returns it to the free list: {@link #flushCache()}, {@link #close()}, or
 * the next allocation the cache cannot serve (so a block is reused from the cache only while the
 * cache is being reused at once; kept longer, reused blocks would pin holes in the free list). A
 * crash at any step of the cache path leaves the block tagged with the dead PID, for {@link
 * #reclaimDead()}. A handle dropped without {@code close()} keeps its cached blocks until its
 * process exits. {@link Settings#freeCache} turns the cache off.
 *
 * <p>{@link #get} takes no lock and checks the handle again after copying, so it never returns
 * bytes of a block freed meanwhile; {@link #set} writes under the lock, so a late write never lands
 * on a newer block. The region checks every boundary tag it follows and reports a damaged one as a
 * {@link CxcFormatException} rather than follow it.
 *
 * <p>The parts, each over the body's buffer: {@code FreeList} (the list's steps under the lock),
 * {@code FreeCache} (this handle's cache), {@code BlockOwners} (the tag word's claims and the
 * reclaim of the dead's blocks), {@code PayloadAccess} (get and set), {@code BlockValidator} (what
 * is checked before a word of the file is trusted), {@code AllocatorLock}.
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

    /** How long a lock held by a live process is waited for, unless the settings say otherwise. */
    public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(10);

    /**
     * A region's settings.
     *
     * @param capacityBytes the heap's length, {@link SharedRegionDescriptor#MIN_CAPACITY}..{@link
     *     SharedRegionDescriptor#MAX_CAPACITY}; rounded up to a multiple of 64. Fixed when the file
     *     is created
     * @param lockTimeout how long this handle waits for a lock held by a live process before {@link
     *     CxcTimeoutException}; positive. The handle's own, not recorded in the file
     * @param freeCache whether this handle caches small freed blocks (see {@link SharedRegion});
     *     off, every free takes the lock. The cache trades layout for speed: a block taken back
     *     from it is reused where it lies instead of where first fit would put it (the cache is
     *     returned at every allocation it cannot serve, which bounds this; see
     *     docs/PERFORMANCE.md). The handle's own
     */
    public record Settings(long capacityBytes, Duration lockTimeout, boolean freeCache) {
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
            if (lockTimeout.isNegative() || lockTimeout.isZero()) {
                throw new CxcSettingsException(
                        "lockTimeout", "lockTimeout must be positive, got " + lockTimeout);
            }
        }

        /** A heap of {@code capacityBytes}, the default lock timeout, the free cache on. */
        public Settings(long capacityBytes) {
            this(capacityBytes, DEFAULT_LOCK_TIMEOUT, true);
        }

        public Settings withLockTimeout(Duration timeout) {
            return new Settings(capacityBytes, timeout, freeCache);
        }

        public Settings withFreeCache(boolean enabled) {
            return new Settings(capacityBytes, lockTimeout, enabled);
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
                    .initialiser(
                            (body, settings) ->
                                    FreeList.initialise(body, (int) settings.capacityBytes()))
                    .bodyCheck(FreeList::bodyProblem)
                    .defaults(new Settings(Settings.DEFAULT_CAPACITY))
                    .recorded(file -> new Settings(file.header().capacity()))
                    .construct((file, settings, options) -> new SharedRegion(file, settings));

    private final Settings settings;
    private final int capacity;
    private final AllocatorLock lock;
    private final BlockValidator validator;
    private final FreeList freeList;
    private final FreeCache cache;
    private final BlockOwners owners;
    private final PayloadAccess payloads;

    private SharedRegion(MappedFile file, Settings settings) {
        super(file, TYPE);
        this.settings = settings;
        this.capacity = file.header().capacity();
        Path path = file.path();
        this.lock = new AllocatorLock(body, path, settings.lockTimeout());
        this.validator = new BlockValidator(body, path, capacity);
        this.freeList = new FreeList(body, lock, validator, path, capacity);
        this.cache =
                new FreeCache(
                        body,
                        validator,
                        freeList,
                        lock,
                        capacity,
                        settings.freeCache() ? cacheByteLimit(capacity) : 0);
        this.owners = new BlockOwners(body, validator, freeList, lock, path, capacity);
        this.payloads = new PayloadAccess(body, validator, lock, path);
    }

    /** Opens an existing region, which must have been created with {@code settings}' capacity. */
    public static SharedRegion open(Path path, Settings settings) {
        return TYPE.open(path, settings);
    }

    /** Opens the region, or creates it with {@code settings}; race-safe across processes. */
    public static SharedRegion openOrCreate(Path path, Settings settings) {
        return TYPE.openOrCreate(path, settings);
    }

    /** The settings this handle was built with (those an observer opened it with, recorded). */
    public Settings settings() {
        return settings;
    }

    /** How long a lock held by a live process is waited for before {@link CxcTimeoutException}. */
    public Duration lockTimeout() {
        return settings.lockTimeout();
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
        countOp(Op.ALLOCATE);
        int need = blockSize(size);
        if (cache.mayServe(need)) { // a racy hint; the cache's latch decides
            long handle = cache.allocate(need, size);
            if (handle != 0) {
                return handle;
            }
        }
        try {
            return allocateFromList(size, need);
        } catch (CxcCapacityException full) {
            // Another thread of this handle cached blocks while the search ran.
            if (cache.flush() == 0) {
                throw full;
            }
            return allocateFromList(size, need);
        }
    }

    private long allocateFromList(int size, int need) {
        lock.lock();
        try {
            // An allocation the cache could not serve returns the cache first (under this one
            // lock): a block reused from it stays where it lies instead of where first fit would
            // put it, so only a cache that is being reused at once may keep blocks out of the list.
            cache.flushLocked();
            return freeList.allocate(size, need);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Frees the block of {@code handle}, coalescing it with free neighbours.
     *
     * @throws IllegalArgumentException if the handle is not one of this region's allocated blocks:
     *     freed already, stale, or of another region (nothing is changed)
     */
    public void free(long handle) {
        countOp(Op.FREE);
        if (cache.free(handle)) {
            return;
        }
        lock.lock();
        try {
            int block = validator.checkedBlock(handle, "free");
            Interleaving.at(Point.REGION_HANDLE_CHECKED);
            owners.take(handle, block, "free");
            freeList.free(block);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns this handle's cached free blocks to the free list (coalescing them), under the lock.
     *
     * @return how many blocks it returned
     */
    public int flushCache() {
        return cache.flush();
    }

    /** Whether this handle caches small freed blocks ({@link Settings#freeCache}). */
    public boolean freeCache() {
        return cache.enabled();
    }

    /** Bytes in this handle's free cache (counted in {@link #usedBytes()}). */
    public long cachedBytes() {
        return cache.bytes();
    }

    /** Blocks in this handle's free cache (counted in {@link #usedBlocks()}). */
    public int cachedBlocks() {
        return cache.blocks();
    }

    /** Returns this handle's free cache to the free list, then closes the handle. */
    @Override
    public void close() {
        try {
            if (!isClosed() && !cache.isEmpty()) {
                flushCache();
            }
        } finally {
            super.close();
        }
    }

    /**
     * Frees every used block whose allocating process is dead (gone, a zombie, or its PID reused),
     * e.g. blocks of a process killed between {@code allocate} and {@code free}, and blocks in a
     * dead process's free cache.
     *
     * @return the bytes freed (block sizes)
     */
    public long reclaimDead() {
        passFileCheck();
        return owners.reclaimDead();
    }

    /**
     * Makes the block of {@code handle} nobody's: {@link #reclaimDead()} never frees it, only an
     * explicit {@link #free}. For blocks meant to outlive their allocator (a string stored for
     * others).
     */
    public void disown(long handle) {
        owners.disown(handle);
    }

    // ---------------------------------------------------------------------------- get / set

    /** The payload length {@code handle} was allocated with. */
    public int sizeOf(long handle) {
        return payloads.sizeOf(handle);
    }

    /** The PID that allocated {@code handle}'s block; 0 once {@link #disown disowned}. */
    public long ownerOf(long handle) {
        return owners.ownerOf(handle);
    }

    /** A copy of the block's whole payload. */
    public byte[] get(long handle) {
        countOp(Op.GET);
        return payloads.get(handle);
    }

    /** Copies {@code length} payload bytes from {@code offset} into {@code destination}. */
    public void get(
            long handle, int offset, byte[] destination, int destinationOffset, int length) {
        countOp(Op.GET);
        payloads.get(handle, offset, destination, destinationOffset, length);
    }

    /** Copies {@code length} payload bytes from {@code offset} into {@code destination}. */
    public void get(long handle, int offset, ByteBuffer destination, int length) {
        countOp(Op.GET);
        payloads.get(handle, offset, destination, length);
    }

    /** Writes {@code bytes} at the start of the payload; at most {@link #sizeOf} bytes. */
    public void set(long handle, byte[] bytes) {
        set(handle, 0, bytes, 0, bytes.length);
    }

    /** Writes {@code length} bytes of {@code source} at payload {@code offset}. */
    public void set(long handle, int offset, byte[] source, int sourceOffset, int length) {
        countOp(Op.SET);
        payloads.set(handle, offset, source, sourceOffset, length);
    }

    /** Writes the remaining bytes of {@code source} at payload {@code offset}. */
    public void set(long handle, int offset, ByteBuffer source) {
        countOp(Op.SET);
        payloads.set(handle, offset, source);
    }

    /**
     * Whether the payloads of {@code a} and {@code b} are equal: lengths, then 8 bytes at a time;
     * allocation-free.
     */
    public boolean payloadEquals(long a, long b) {
        return payloads.equal(a, b);
    }

    /**
     * Whether the payload of {@code handle} equals {@code other} from byte {@code from} on (its
     * length must equal {@code other.length}); allocation-free.
     */
    public boolean payloadEquals(long handle, byte[] other, int from) {
        return payloads.equal(handle, other, from);
    }

    /** Whether {@code handle} names an allocated block of this region now. */
    public boolean isAllocated(long handle) {
        return validator.problem(handle) == null;
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
        passFileCheck();
        lock.lock();
        try {
            return freeList.largestFree();
        } finally {
            lock.unlock();
        }
    }

    /** Every block in address order, as the heap holds them now (under the lock). */
    public List<Block> blocks() {
        int heapEnd = HEAP_OFFSET + capacity;
        lock.lock();
        try {
            List<Block> blocks = new ArrayList<>();
            for (int block = HEAP_OFFSET; block < heapEnd; ) {
                long sizeWord = validator.checkedBlockAt(block);
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
            lock.unlock();
        }
    }

    /** The free list's block offsets, in list order (under the lock). */
    public List<Integer> freeList() {
        passFileCheck();
        lock.lock();
        try {
            return freeList.offsets();
        } finally {
            lock.unlock();
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
}
