package io.subetha.cxc.resolution;

import static io.subetha.cxc.resolution.UniversalDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.wait.Backoff;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A strategy-adaptive shared set of codec-typed keys in a memory-mapped file, which changes its
 * representation on demand: {@link Representation#SORTED_ARRAY} (compact; binary search) or {@link
 * Representation#HASH} (open addressing; constant time). Every process on the host inserts, looks
 * up, removes and migrates. Layout: {@link UniversalDescriptor}.
 *
 * <p><b>Writers</b> (insert, remove, migrate) take the writer lock, an {@link IntentLock} with no
 * staged entries (its {@link OwnerRecord}: one CAS from the free word, or from a dead holder's
 * exact word, a takeover). The redo record is the set's own, not the lock's entries: an op's
 * progress (a slot shifted at a time) is resumable, not a list of absolute words. Holding it, a
 * writer first writes its intent (op, key, the count before, the sorted position) and only then
 * changes the active region, between two increments of the version (odd while it changes),
 * recording its progress as it goes, and ends by clearing the intent and releasing the lock. Each
 * step of an op stores absolute values (a slot's copy, the count before plus or minus one), so
 * redoing a step is harmless.
 *
 * <p><b>A dead writer</b>, found through {@code /proc} by the next process that wants the lock (or
 * by a reader that finds the version odd), is taken over by the lock, one CAS from exactly its
 * word; the lock's after-acquire {@link IntentLock.Hook hook} finds the intent and rolls the op
 * forward from its recorded progress before the new holder does anything else: an insert or remove
 * the dead writer began is completed (its caller never heard; an unacknowledged op may or may not
 * take effect), never half done. A live writer is never displaced, however slow: the others wait,
 * for at most their {@link #waitLimit(Duration) wait limit}, and are then told who holds the lock
 * and what it is doing.
 *
 * <p><b>Migration</b> is exclusive (it holds the lock) and builds the new representation in the
 * spare region from the active one, which it does not touch; readers keep reading the active region
 * meanwhile. It then switches the layout word (one store, between two version increments): the
 * spare becomes active. A migrator killed before the switch leaves the active region whole; the
 * next lock holder rebuilds the spare and switches (takeover). Killed after it, there is nothing
 * left to do. Inserts and removes wait for the migration and apply to the new representation: none
 * is lost, none is applied twice. A HASH region whose removed-slot markers exceed a quarter of the
 * table is rebuilt the same way by the writer that crossed the mark.
 *
 * <p><b>Readers</b> never take the lock: they read the version (acquire), search the active region
 * with plain reads, fence, and read the version again; an equal, even version proves the answer.
 * Every count and index read from the file is bounded by the table size before it is used.
 *
 * <p>Thread-safe; any number of processes. A writer's own thread must not call another writer op
 * from inside one (there is no such callback). Keys are compared by their codec's bytes.
 */
public final class SharedUniversal<K> extends MappedPrimitive {

    /** The ops a universal set counts, exported under these names. */
    public enum Op implements OpKind {
        INSERT(1),
        CONTAINS(2),
        REMOVE(3),
        MIGRATE(4);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** How the set is laid out in its active region. */
    public enum Representation {
        /** Keys in ascending byte order in the first count slots: compact, binary search. */
        SORTED_ARRAY,
        /** Open addressing with linear probing, at most half full: constant-time operations. */
        HASH
    }

    /**
     * {@link #recommended()} answers {@link Representation#SORTED_ARRAY} up to this many keys: a
     * binary search over 64 keys is six probes in a few cache lines, and an insert shifts at most a
     * few kilobytes.
     */
    public static final int SMALL_SET = 64;

    /** The most keys a set holds, and the largest key. */
    public static final int MAX_CAPACITY = UniversalDescriptor.MAX_CAPACITY;

    public static final int MAX_KEY_BYTES = UniversalDescriptor.MAX_KEY_BYTES;

    /** How long a caller waits for another process's lock by default. */
    public static final Duration DEFAULT_WAIT_LIMIT = Duration.ofSeconds(30);

    /**
     * A set's creation settings.
     *
     * @param capacity the most keys, 1..{@link #MAX_CAPACITY}
     * @param codec the key codec, 1..{@link #MAX_KEY_BYTES} bytes
     */
    public record Settings<K>(int capacity, FixedCodec<K> codec) {
        public Settings {
            CxcSettingsException.requireInRange("capacity", capacity, 1, MAX_CAPACITY, " keys");
            Objects.requireNonNull(codec, "codec");
            CxcSettingsException.requireInRange(
                    "codec", codec.size(), 1, MAX_KEY_BYTES, " bytes (MAX_KEY_BYTES)");
            CxcSettingsException.requireBodyFits(
                    "capacity",
                    "capacity " + capacity + " of " + codec.size() + "-byte keys",
                    UniversalDescriptor.bodyLength(capacity, stride(codec.size())),
                    io.subetha.cxc.mmf.HeaderDescriptor.MAX_BODY_LENGTH);
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final PrimitiveType<SharedUniversal<?>, Settings<?>> TYPE =
            (PrimitiveType)
                    PrimitiveType.<SharedUniversal, Settings>define(
                                    PrimitiveKinds.SHARED_UNIVERSAL, Settings.class)
                            .layoutVersion(LAYOUT_VERSION)
                            .bodyMagic(MAGIC)
                            .ops(Op.class)
                            .shape(
                                    s ->
                                            new PrimitiveType.Shape(
                                                    s.capacity(), stride(s.codec().size())),
                                    BODY_LAYOUT)
                            .codecs(s -> List.of(s.codec()))
                            .defaults(new Settings<>(1024, FixedCodec.INT64))
                            .shapeCheck(SharedUniversal::keySizeProblem)
                            .recorded(
                                    file ->
                                            new Settings<>(
                                                    file.header().capacity(),
                                                    PrimitiveType.recordedCodec(file, 0)))
                            .construct(
                                    (file, settings, options) ->
                                            new SharedUniversal(file, settings));

    private static final long PID = Pids.current();

    private final int capacity;
    private final int tableSize;
    private final ThreadLocal<AtomicBuffer> scratch;
    private final FixedCodec<K> codec;
    private volatile long waitLimitNanos = DEFAULT_WAIT_LIMIT.toNanos();
    private final UniversalRegions regions;
    private final UniversalIntent intent;
    private final IntentLock writer;

    private SharedUniversal(MappedFile file, Settings<K> settings) {
        super(file, TYPE);
        this.codec = settings.codec();
        this.capacity = file.header().capacity();
        int stride = file.header().slotSize(); // keySizeProblem() checked it against the key size
        this.tableSize = tableSize(capacity);
        this.regions = new UniversalRegions(body, file.path(), capacity, stride);
        this.intent = new UniversalIntent(body, regions, capacity);
        int bytes = regions.keyPadded();
        this.scratch =
                ThreadLocal.withInitial(() -> new AtomicBuffer(ByteBuffer.allocateDirect(bytes)));
        this.writer =
                new IntentLock(
                        body,
                        LOCK_OFFSET,
                        0,
                        0,
                        file.path().toString(),
                        this::afterAcquire,
                        () -> UniversalIntent.name(body.getLongVolatile(INTENT_OP_OFFSET)));
    }

    /** The key size read from the file is trusted only once it explains the slot size. */
    private static @Nullable String keySizeProblem(FileHeader header, AtomicBuffer body) {
        int keyBytes = body.getIntAcquire(PrimitiveType.CODEC_SIZES_OFFSET);
        int stride = header.slotSize();
        if (keyBytes < 1 || keyBytes > MAX_KEY_BYTES || stride(keyBytes) != stride) {
            return "key size "
                    + keyBytes
                    + " bytes (1.."
                    + MAX_KEY_BYTES
                    + ") does not make the header's slot size "
                    + stride;
        }
        return null;
    }

    // ---------------------------------------------------------------------------- factories

    /**
     * Opens an existing set created with {@code settings}' capacity and codec layout (a new one
     * starts as a sorted array).
     */
    public static <K> SharedUniversal<K> open(Path path, Settings<K> settings) {
        return TYPE.open(path, settings);
    }

    /** Opens the set, or creates it with {@code settings}; race-safe across processes. */
    public static <K> SharedUniversal<K> openOrCreate(Path path, Settings<K> settings) {
        return TYPE.openOrCreate(path, settings);
    }

    /**
     * How long this handle's calls wait for another writer (or a reader for a writer's step).
     *
     * @return this handle
     */
    public SharedUniversal<K> waitLimit(Duration limit) {
        Objects.requireNonNull(limit, "limit");
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("wait limit must be positive, got " + limit);
        }
        try {
            this.waitLimitNanos = limit.toNanos();
        } catch (ArithmeticException tooLong) {
            this.waitLimitNanos = Long.MAX_VALUE;
        }
        return this;
    }

    // -------------------------------------------------------------------------------- reads

    /** Whether {@code key} is in the set. Never takes the lock; waits only for a writer's step. */
    public boolean containsKey(K key) {
        AtomicBuffer k = encode(key);
        countOp(Op.CONTAINS);
        long hash = regions.hash(k, 0);
        long start = 0;
        Backoff idle = null;
        while (true) {
            long v1 = body.getLongAcquire(VERSION_OFFSET);
            if ((v1 & 1) == 0) {
                long layout = body.getLongAcquire(LAYOUT_OFFSET);
                long count = body.getLongPlain(COUNT_OFFSET);
                boolean found = false;
                RuntimeException torn = null;
                try {
                    found = regions.findIn(layout, count, k, 0, hash) >= 0;
                } catch (RuntimeException e) {
                    torn = e;
                }
                VarHandle.acquireFence();
                if (body.getLongVolatile(VERSION_OFFSET) == v1) {
                    if (torn != null) {
                        throw regions.corrupt(torn.getMessage());
                    }
                    return found;
                }
                continue;
            }
            // A writer is mid-step: wait for it, or repair what a dead one left.
            if (writer.holderStatus() != OwnerStatus.LIVE) {
                lock(); // the lock's hook repairs before it returns
                unlock();
                continue;
            }
            if (idle == null) {
                start = System.nanoTime();
                idle = new Backoff();
            } else if (System.nanoTime() - start >= waitLimitNanos) {
                throw lookupTimeout();
            }
            idle.idle();
        }
    }

    /** Keys in the set now. */
    public int size() {
        passFileCheck();
        return (int) Math.min(body.getLongVolatile(COUNT_OFFSET), capacity);
    }

    public int capacity() {
        return capacity;
    }

    /** The active representation. */
    public Representation representation() {
        return representationOf(body.getLongVolatile(LAYOUT_OFFSET));
    }

    /**
     * The representation for the set's size and load: {@link Representation#SORTED_ARRAY} up to
     * {@link #SMALL_SET} keys, {@link Representation#HASH} above. Advice only: nothing migrates
     * unless {@link #migrate} is called.
     */
    public Representation recommended() {
        return size() <= SMALL_SET ? Representation.SORTED_ARRAY : Representation.HASH;
    }

    /** Every key, read under the lock (a consistent snapshot); for tools and tests. */
    public List<K> keys() {
        passFileCheck();
        FixedCodec<K> c = codec;
        int stride = regions.stride();
        lock();
        try {
            long layout = body.getLongPlain(LAYOUT_OFFSET);
            int region = regions.active(layout);
            List<K> keys = new ArrayList<>();
            int count = regions.boundedCount();
            if (UniversalRegions.isSorted(layout)) {
                for (int i = 0; i < count; i++) {
                    keys.add(c.read(body, region + i * stride + 8));
                }
            } else {
                for (int i = 0; i < tableSize; i++) {
                    if (body.getLongPlain(region + i * stride) == FULL) {
                        keys.add(c.read(body, region + i * stride + 8));
                    }
                }
            }
            return keys;
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------------------- writes

    /**
     * Adds {@code key}.
     *
     * @return false if it was already in the set
     * @throws CxcCapacityException if the set holds {@link #capacity()} keys
     * @throws CxcTimeoutException if another live writer held the lock past the wait limit
     */
    public boolean insert(K key) {
        AtomicBuffer k = encode(key);
        countOp(Op.INSERT);
        lock();
        try {
            long layout = body.getLongPlain(LAYOUT_OFFSET);
            long hash = regions.hash(k, 0);
            if (regions.findIn(layout, regions.boundedCount(), k, 0, hash) >= 0) {
                return false;
            }
            int count = regions.boundedCount();
            if (count >= capacity) {
                throw new CxcCapacityException(
                        file.path()
                                + " is full: it holds its capacity of "
                                + capacity
                                + " keys. Remove keys, or create the set with a larger capacity.");
            }
            int position =
                    UniversalRegions.isSorted(layout)
                            ? regions.insertionPoint(regions.active(layout), count, k, 0)
                            : 0;
            intent.write(INTENT_INSERT, k, count, position, count);
            body.getAndAddLong(VERSION_OFFSET, 1); // odd: readers retry from here
            intent.rollForward();
            body.getAndAddLong(INSERTS_OFFSET, 1);
            return true;
        } finally {
            unlock();
        }
    }

    /**
     * Removes {@code key}.
     *
     * @return false if it was not in the set
     * @throws CxcTimeoutException if another live writer held the lock past the wait limit
     */
    public boolean remove(K key) {
        AtomicBuffer k = encode(key);
        countOp(Op.REMOVE);
        lock();
        try {
            long layout = body.getLongPlain(LAYOUT_OFFSET);
            int count = regions.boundedCount();
            int at = regions.findIn(layout, count, k, 0, regions.hash(k, 0));
            if (at < 0) {
                return false;
            }
            intent.write(INTENT_REMOVE, k, count, at, at);
            body.getAndAddLong(VERSION_OFFSET, 1);
            intent.rollForward();
            body.getAndAddLong(REMOVES_OFFSET, 1);
            if (!UniversalRegions.isSorted(layout)
                    && body.getLongPlain(TOMBSTONES_OFFSET) > tableSize / 4) {
                intent.migrate(Representation.HASH); // clears the removed-slot markers
            }
            return true;
        } finally {
            unlock();
        }
    }

    /**
     * Rebuilds the set in representation {@code to} (also when it is the current one: a rebuild),
     * exclusively across processes; look-ups go on meanwhile, writers wait for it.
     */
    public void migrate(Representation to) {
        Objects.requireNonNull(to, "to");
        countOp(Op.MIGRATE);
        lock();
        try {
            intent.migrate(to);
        } finally {
            unlock();
        }
    }

    @Override
    public Map<String, Object> describe() {
        long op = body.getLongVolatile(INTENT_OP_OFFSET);
        return fields(
                "representation", representation().name(),
                "size", size(),
                "capacity", capacity,
                "writerPid", writer.holderPid(),
                "inFlight", UniversalIntent.name(op),
                "inserts", body.getLongVolatile(INSERTS_OFFSET),
                "removes", body.getLongVolatile(REMOVES_OFFSET),
                "migrations", body.getLongVolatile(MIGRATIONS_OFFSET),
                "takeovers", body.getLongVolatile(TAKEOVERS_OFFSET),
                "repairs", body.getLongVolatile(REPAIRS_OFFSET));
    }

    /**
     * What is wrong with the set's structure, or null if it is sound: the count within bounds, a
     * sorted array strictly ascending, a hash region's full slots as many as the count, each
     * reachable from its home slot. Read under the lock; for tests and tools.
     */
    @Nullable String inconsistency() {
        lock();
        try {
            return regions.inconsistency(
                    body.getLongPlain(LAYOUT_OFFSET), body.getLongPlain(COUNT_OFFSET));
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------------------- the lock

    /** Takes the writer lock; its hook repairs a dead holder's op first. */
    private void lock() {
        writer.lock(waitLimitNanos);
    }

    private void unlock() {
        writer.unlock();
    }

    /**
     * The lock's hook, holding it: counts a takeover, rolls forward an op left in flight (a dead
     * writer's), and never lets an odd version with nothing in flight hold readers off. If it
     * throws, the lock releases itself again.
     */
    private void afterAcquire(boolean tookOver) {
        if (tookOver) {
            body.getAndAddLong(TAKEOVERS_OFFSET, 1);
        }
        if (intent.inFlight()) {
            intent.rollForward();
            body.getAndAddLong(REPAIRS_OFFSET, 1);
        } else if ((body.getLongVolatile(VERSION_OFFSET) & 1) != 0) {
            // Odd with nothing in flight: no step of ours leaves it so.
            body.getAndAddLong(VERSION_OFFSET, 1);
        }
    }

    /** A reader waited its limit for a live writer's step. */
    private CxcTimeoutException lookupTimeout() {
        long pid = writer.holderPid();
        return new CxcTimeoutException(
                "timed out after "
                        + Duration.ofNanos(waitLimitNanos)
                        + " waiting for a look-up of "
                        + file.path()
                        + ": PID "
                        + pid
                        + (pid == PID ? " (this process)" : "")
                        + " holds the writer lock, "
                        + UniversalIntent.name(body.getLongVolatile(INTENT_OP_OFFSET))
                        + ", and is alive. Retry, or raise the wait limit.");
    }

    // -------------------------------------------------------------------------------- helpers

    private AtomicBuffer encode(K key) {
        FixedCodec<K> c = codec;
        Objects.requireNonNull(key, "key");
        AtomicBuffer k = scratch.get();
        c.write(k, 0, key); // the padding after it stays zero: nothing else writes it
        return k;
    }

    private static Representation representationOf(long layout) {
        return UniversalRegions.isSorted(layout)
                ? Representation.SORTED_ARRAY
                : Representation.HASH;
    }
}
