package io.subetha.cxc.resolution;

import static io.subetha.cxc.resolution.UniversalDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
    public record Settings(int capacity, FixedCodec<?> codec) {
        public Settings {
            CxcSettingsException.requireInRange("capacity", capacity, 1, MAX_CAPACITY, " keys");
            Objects.requireNonNull(codec, "codec");
            CxcSettingsException.requireInRange(
                    "codec", codec.size(), 1, MAX_KEY_BYTES, " bytes (MAX_KEY_BYTES)");
        }
    }

    private static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                if (capacity < 1 || capacity > MAX_CAPACITY) {
                    throw new IllegalArgumentException(
                            "capacity must be 1.." + MAX_CAPACITY + " keys, got " + capacity);
                }
                if (slotSize < stride(1) || slotSize > stride(MAX_KEY_BYTES) || slotSize % 8 != 0) {
                    throw new IllegalArgumentException(
                            "slot size must be a multiple of 8 in "
                                    + stride(1)
                                    + ".."
                                    + stride(MAX_KEY_BYTES)
                                    + " bytes, got "
                                    + slotSize);
                }
                return bodyLength(capacity, slotSize);
            };

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final PrimitiveType<SharedUniversal<?>, Settings> TYPE =
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
                            .defaults(new Settings(1024, FixedCodec.INT64))
                            .construct(
                                    (file, settings, options) ->
                                            typed(new SharedUniversal(file), settings.codec()));

    private static final long PID = Pids.current();
    private static final long MAX_PARK_NANOS = 200_000;

    private final int capacity;
    private final int stride;
    private final int keyPadded;
    private final int tableSize;
    private final ThreadLocal<AtomicBuffer> scratch;
    private @Nullable FixedCodec<K> codec;
    private volatile long waitLimitNanos = DEFAULT_WAIT_LIMIT.toNanos();
    private final IntentLock writer;

    private SharedUniversal(MappedFile file) {
        super(file, TYPE);
        this.capacity = file.header().capacity();
        this.stride = file.header().slotSize();
        int keyBytes = body.getIntAcquire(PrimitiveType.CODEC_SIZES_OFFSET);
        if (keyBytes < 1 || keyBytes > MAX_KEY_BYTES || stride(keyBytes) != stride) {
            throw TYPE.corrupt(
                    file.path(),
                    "key size "
                            + keyBytes
                            + " bytes (1.."
                            + MAX_KEY_BYTES
                            + ") does not make the header's slot size "
                            + stride);
        }
        this.keyPadded = stride - 8;
        this.tableSize = tableSize(capacity);
        int bytes = keyPadded;
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
                        () -> intentName(body.getLongVolatile(INTENT_OP_OFFSET)));
    }

    // ---------------------------------------------------------------------------- factories

    /** Creates a set of at most {@code capacity} keys, starting as a sorted array. */
    public static <K> SharedUniversal<K> create(Path path, int capacity, FixedCodec<K> codec) {
        return typed(
                TYPE.create(path, new Settings(capacity, codec), CxcFileOptions.defaults()), codec);
    }

    /** Opens an existing set created with this capacity and codec layout. */
    public static <K> SharedUniversal<K> open(Path path, int capacity, FixedCodec<K> codec) {
        return typed(
                TYPE.open(path, new Settings(capacity, codec), CxcFileOptions.defaults()), codec);
    }

    /** Opens the file, or creates it if absent; race-safe across processes. */
    public static <K> SharedUniversal<K> openOrCreate(
            Path path, int capacity, FixedCodec<K> codec) {
        return openOrCreate(path, capacity, codec, CxcFileOptions.defaults());
    }

    public static <K> SharedUniversal<K> openOrCreate(
            Path path, int capacity, FixedCodec<K> codec, CxcFileOptions options) {
        return typed(TYPE.openOrCreate(path, new Settings(capacity, codec), options), codec);
    }

    @SuppressWarnings("unchecked")
    private static <K> SharedUniversal<K> typed(SharedUniversal<?> set, FixedCodec<K> codec) {
        SharedUniversal<K> typed = (SharedUniversal<K>) set;
        typed.codec = codec;
        return typed;
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
        counters.increment(Op.CONTAINS);
        long hash = hash(k, 0);
        long start = 0;
        Idle idle = null;
        while (true) {
            long v1 = body.getLongAcquire(VERSION_OFFSET);
            if ((v1 & 1) == 0) {
                long layout = body.getLongAcquire(LAYOUT_OFFSET);
                long count = body.getLongPlain(COUNT_OFFSET);
                boolean found = false;
                RuntimeException torn = null;
                try {
                    found = findIn(layout, count, k, 0, hash) >= 0;
                } catch (RuntimeException e) {
                    torn = e;
                }
                VarHandle.acquireFence();
                if (body.getLongVolatile(VERSION_OFFSET) == v1) {
                    if (torn != null) {
                        throw corrupt(torn.getMessage());
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
                idle = new Idle(MAX_PARK_NANOS);
            } else if (System.nanoTime() - start >= waitLimitNanos) {
                throw lookupTimeout();
            }
            idle.idle();
        }
    }

    /** Keys in the set now. */
    public int size() {
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
        FixedCodec<K> c = codec();
        lock();
        try {
            long layout = body.getLongPlain(LAYOUT_OFFSET);
            int region = regionOffset(stride, region(layout), tableSize);
            List<K> keys = new ArrayList<>();
            int count = boundedCount();
            if (isSorted(layout)) {
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
        counters.increment(Op.INSERT);
        lock();
        try {
            long layout = body.getLongPlain(LAYOUT_OFFSET);
            long hash = hash(k, 0);
            if (findIn(layout, boundedCount(), k, 0, hash) >= 0) {
                return false;
            }
            int count = boundedCount();
            if (count >= capacity) {
                throw new CxcCapacityException(
                        file.path()
                                + " is full: it holds its capacity of "
                                + capacity
                                + " keys. Remove keys, or create the set with a larger capacity.");
            }
            int position =
                    isSorted(layout)
                            ? insertionPoint(
                                    regionOffset(stride, region(layout), tableSize), count, k, 0)
                            : 0;
            writeIntent(INTENT_INSERT, k, count, position, count);
            body.getAndAddLong(VERSION_OFFSET, 1); // odd: readers retry from here
            rollForward();
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
        counters.increment(Op.REMOVE);
        lock();
        try {
            long layout = body.getLongPlain(LAYOUT_OFFSET);
            int count = boundedCount();
            int at = findIn(layout, count, k, 0, hash(k, 0));
            if (at < 0) {
                return false;
            }
            writeIntent(INTENT_REMOVE, k, count, at, at);
            body.getAndAddLong(VERSION_OFFSET, 1);
            rollForward();
            body.getAndAddLong(REMOVES_OFFSET, 1);
            if (!isSorted(layout) && body.getLongPlain(TOMBSTONES_OFFSET) > tableSize / 4) {
                migrateLocked(Representation.HASH); // clears the removed-slot markers
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
        codec();
        counters.increment(Op.MIGRATE);
        lock();
        try {
            migrateLocked(to);
        } finally {
            unlock();
        }
    }

    @Override
    public Map<String, Object> describe() {
        long intent = body.getLongVolatile(INTENT_OP_OFFSET);
        return fields(
                "representation", representation().name(),
                "size", size(),
                "capacity", capacity,
                "writerPid", writer.holderPid(),
                "inFlight", intentName(intent),
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
            long layout = body.getLongPlain(LAYOUT_OFFSET);
            long count = body.getLongPlain(COUNT_OFFSET);
            if (count < 0 || count > capacity) {
                return "count " + count + " outside 0.." + capacity;
            }
            int region = regionOffset(stride, region(layout), tableSize);
            if (isSorted(layout)) {
                for (int i = 1; i < count; i++) {
                    if (compare(region + (i - 1) * stride + 8, region + i * stride + 8) >= 0) {
                        return "sorted array out of order at " + i;
                    }
                }
                return null;
            }
            int full = 0;
            for (int i = 0; i < tableSize; i++) {
                int slot = region + i * stride;
                if (body.getLongPlain(slot) == FULL) {
                    full++;
                    long hash = hashAt(slot + 8);
                    if (findHash(region, body, slot + 8, hash) != i) {
                        return "slot " + i + " unreachable from its home, or its key twice";
                    }
                }
            }
            return full == count ? null : "full slots " + full + " but count " + count;
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
        if (body.getLongVolatile(INTENT_OP_OFFSET) != INTENT_NONE) {
            rollForward();
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
                        + intentName(body.getLongVolatile(INTENT_OP_OFFSET))
                        + ", and is alive. Retry, or raise the wait limit.");
    }

    private static String intentName(long intent) {
        if (intent == INTENT_INSERT) {
            return "inserting";
        }
        if (intent == INTENT_REMOVE) {
            return "removing";
        }
        if (intent == INTENT_MIGRATE) {
            return "migrating";
        }
        return "between ops";
    }

    // ------------------------------------------------------------------- the ops, redo-able

    private void writeIntent(long op, AtomicBuffer k, long a, long b, long progress) {
        for (int i = 0; i < keyPadded; i += 8) {
            body.setLongPlain(INTENT_KEY_OFFSET + i, k.getLongPlain(i));
        }
        body.setLongPlain(INTENT_A_OFFSET, a);
        body.setLongPlain(INTENT_B_OFFSET, b);
        body.setLongPlain(INTENT_PROGRESS_OFFSET, progress);
        body.setLongVolatile(INTENT_OP_OFFSET, op); // last: a repairer never sees half an intent
    }

    /**
     * Completes the op the intent describes, from its recorded progress (the writer's own, or a
     * dead writer's), then clears the intent and leaves the version even. The lock is held.
     */
    private void rollForward() {
        long op = body.getLongVolatile(INTENT_OP_OFFSET);
        if ((body.getLongVolatile(VERSION_OFFSET) & 1) == 0 && op != INTENT_MIGRATE) {
            body.getAndAddLong(VERSION_OFFSET, 1);
        }
        if (op == INTENT_INSERT) {
            finishInsert();
        } else if (op == INTENT_REMOVE) {
            finishRemove();
        } else if (op == INTENT_MIGRATE) {
            finishMigration();
        } else if (op != INTENT_NONE) {
            throw corrupt("intent op " + op + " at body offset " + INTENT_OP_OFFSET);
        }
        if ((body.getLongVolatile(VERSION_OFFSET) & 1) != 0) {
            body.getAndAddLong(VERSION_OFFSET, 1); // even: the step is done
        }
        body.setLongVolatile(INTENT_OP_OFFSET, INTENT_NONE);
    }

    private void finishInsert() {
        long layout = body.getLongPlain(LAYOUT_OFFSET);
        int region = regionOffset(stride, region(layout), tableSize);
        long before = bounded(body.getLongPlain(INTENT_A_OFFSET), capacity - 1, "intent count");
        if (isSorted(layout)) {
            int position = (int) bounded(body.getLongPlain(INTENT_B_OFFSET), before, "position");
            long j = bounded(body.getLongPlain(INTENT_PROGRESS_OFFSET), before, "progress");
            for (; j > position; j--) {
                copySlot(region + (int) (j - 1) * stride, region + (int) j * stride);
                body.setLongPlain(INTENT_PROGRESS_OFFSET, j - 1);
            }
            int slot = region + position * stride;
            copyIntentKeyTo(slot + 8);
            body.setLongPlain(slot, FULL);
        } else {
            long hash = hashAt(INTENT_KEY_OFFSET);
            if (findHash(region, body, INTENT_KEY_OFFSET, hash) < 0) {
                int index = home(hash);
                for (int probe = 0; probe < tableSize; probe++) {
                    int slot = region + index * stride;
                    long state = body.getLongPlain(slot);
                    if (state != FULL) {
                        if (state == REMOVED) {
                            body.setLongPlain(
                                    TOMBSTONES_OFFSET,
                                    Math.max(0, body.getLongPlain(TOMBSTONES_OFFSET) - 1));
                        }
                        copyIntentKeyTo(slot + 8);
                        body.setLongRelease(slot, FULL);
                        break;
                    }
                    index = next(index);
                }
            }
        }
        body.setLongPlain(COUNT_OFFSET, before + 1);
    }

    private void finishRemove() {
        long layout = body.getLongPlain(LAYOUT_OFFSET);
        int region = regionOffset(stride, region(layout), tableSize);
        long before = bounded(body.getLongPlain(INTENT_A_OFFSET), capacity, "intent count");
        if (before < 1) {
            throw corrupt("a remove recorded with count 0");
        }
        if (isSorted(layout)) {
            long j = bounded(body.getLongPlain(INTENT_PROGRESS_OFFSET), before - 1, "progress");
            for (; j < before - 1; j++) {
                copySlot(region + (int) (j + 1) * stride, region + (int) j * stride);
                body.setLongPlain(INTENT_PROGRESS_OFFSET, j + 1);
            }
        } else {
            int at = findHash(region, body, INTENT_KEY_OFFSET, hashAt(INTENT_KEY_OFFSET));
            if (at >= 0) {
                body.setLongRelease(region + at * stride, REMOVED);
                body.setLongPlain(TOMBSTONES_OFFSET, body.getLongPlain(TOMBSTONES_OFFSET) + 1);
            }
        }
        body.setLongPlain(COUNT_OFFSET, before - 1);
    }

    private void migrateLocked(Representation to) {
        long layout = body.getLongPlain(LAYOUT_OFFSET);
        body.setLongPlain(INTENT_A_OFFSET, layout);
        body.setLongPlain(INTENT_B_OFFSET, to.ordinal());
        body.setLongPlain(INTENT_PROGRESS_OFFSET, 0);
        body.setLongVolatile(INTENT_OP_OFFSET, INTENT_MIGRATE);
        rollForward();
        body.getAndAddLong(MIGRATIONS_OFFSET, 1);
    }

    /**
     * Builds the spare region from the active one, then switches: idempotent, since the active
     * region is only read, and a switch already made is recognised by the layout word.
     */
    private void finishMigration() {
        long source = body.getLongPlain(INTENT_A_OFFSET);
        long target = body.getLongPlain(INTENT_B_OFFSET);
        if (target != Representation.SORTED_ARRAY.ordinal()
                && target != Representation.HASH.ordinal()) {
            throw corrupt("migration target " + target);
        }
        if (body.getLongPlain(LAYOUT_OFFSET) != source) {
            return; // switched before the migrator died: done
        }
        int count = boundedCount();
        int from = regionOffset(stride, region(source), tableSize);
        int spare = 1 - region(source);
        int to = regionOffset(stride, spare, tableSize);
        // Collect the keys (sorted, for a sorted array) on the heap, then lay them out.
        long[] words = new long[count * (keyPadded / 8)];
        int n = 0;
        if (isSorted(source)) {
            for (int i = 0; i < count; i++) {
                readKey(from + i * stride + 8, words, n++);
            }
        } else {
            for (int i = 0; i < tableSize && n < count; i++) {
                if (body.getLongPlain(from + i * stride) == FULL) {
                    readKey(from + i * stride + 8, words, n++);
                }
            }
        }
        for (int i = 0; i < tableSize; i++) {
            body.setLongPlain(to + i * stride, EMPTY);
        }
        if (target == Representation.SORTED_ARRAY.ordinal()) {
            Integer[] order = new Integer[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            if (!isSorted(source)) {
                Arrays.sort(order, (a, b) -> compareWords(words, a, b));
            }
            for (int i = 0; i < n; i++) {
                writeKey(words, order[i], to + i * stride + 8);
                body.setLongPlain(to + i * stride, FULL);
            }
        } else {
            for (int i = 0; i < n; i++) {
                long hash = hashWords(words, i);
                int index = home(hash);
                while (body.getLongPlain(to + index * stride) == FULL) {
                    index = next(index);
                }
                writeKey(words, i, to + index * stride + 8);
                body.setLongPlain(to + index * stride, FULL);
            }
        }
        // The switch: one store between two version increments.
        body.getAndAddLong(VERSION_OFFSET, 1);
        body.setLongPlain(COUNT_OFFSET, n);
        body.setLongPlain(TOMBSTONES_OFFSET, 0);
        body.setLongVolatile(LAYOUT_OFFSET, layoutWord(spare, target));
        body.getAndAddLong(VERSION_OFFSET, 1);
    }

    // ------------------------------------------------------------------------------ searching

    /** The slot index holding the key at {@code k}/{@code kOffset} in the active region, or -1. */
    private int findIn(long layout, long count, AtomicBuffer k, int kOffset, long hash) {
        int region = regionOffset(stride, region(layout) & 1, tableSize);
        if (isSorted(layout)) {
            if (count < 0 || count > capacity) {
                throw new IllegalStateException("count " + count + " outside 0.." + capacity);
            }
            int low = 0;
            int high = (int) count - 1;
            while (low <= high) {
                int mid = (low + high) >>> 1;
                int c = compare(region + mid * stride + 8, k, kOffset);
                if (c < 0) {
                    low = mid + 1;
                } else if (c > 0) {
                    high = mid - 1;
                } else {
                    return mid;
                }
            }
            return -1;
        }
        if (UniversalDescriptor.representation(layout) != Representation.HASH.ordinal()) {
            throw new IllegalStateException(
                    "representation " + UniversalDescriptor.representation(layout));
        }
        return findHash(region, k, kOffset, hash);
    }

    private int findHash(int region, AtomicBuffer k, int kOffset, long hash) {
        int index = home(hash);
        for (int probe = 0; probe < tableSize; probe++) {
            int slot = region + index * stride;
            long state = body.getLongPlain(slot);
            if (state == EMPTY) {
                return -1;
            }
            if (state == FULL && compare(slot + 8, k, kOffset) == 0) {
                return index;
            }
            index = next(index);
        }
        return -1;
    }

    private int insertionPoint(int region, int count, AtomicBuffer k, int kOffset) {
        int low = 0;
        int high = count - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (compare(region + mid * stride + 8, k, kOffset) < 0) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    // -------------------------------------------------------------------------------- helpers

    private int boundedCount() {
        return (int) bounded(body.getLongPlain(COUNT_OFFSET), capacity, "count");
    }

    private long bounded(long value, long max, String what) {
        if (value < 0 || value > max) {
            throw corrupt(what + " " + value + " outside 0.." + max);
        }
        return value;
    }

    private CxcFormatException corrupt(String problem) {
        return new CxcFormatException(
                "the universal set "
                        + file.path()
                        + " is corrupt: "
                        + problem
                        + ". Nothing was changed; recreate the file.");
    }

    private AtomicBuffer encode(K key) {
        FixedCodec<K> c = codec();
        Objects.requireNonNull(key, "key");
        AtomicBuffer k = scratch.get();
        c.write(k, 0, key); // the padding after it stays zero: nothing else writes it
        return k;
    }

    private FixedCodec<K> codec() {
        FixedCodec<K> c = codec;
        if (c == null) {
            throw new IllegalStateException(
                    file.path()
                            + " was opened without its codec (an observer's view); open it with"
                            + " SharedUniversal.open(path, capacity, codec)");
        }
        return c;
    }

    private static boolean isSorted(long layout) {
        return UniversalDescriptor.representation(layout) == Representation.SORTED_ARRAY.ordinal();
    }

    private static Representation representationOf(long layout) {
        return isSorted(layout) ? Representation.SORTED_ARRAY : Representation.HASH;
    }

    private long hash(AtomicBuffer k, int offset) {
        long h = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < keyPadded; i += 8) {
            h = mix(h, k.getLongPlain(offset + i));
        }
        return finish(h);
    }

    private long hashAt(int bodyOffset) {
        return hash(body, bodyOffset);
    }

    private long hashWords(long[] words, int key) {
        int per = keyPadded / 8;
        long h = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < per; i++) {
            h = mix(h, words[key * per + i]);
        }
        return finish(h);
    }

    private int home(long hash) {
        return (int) (((hash >>> 32) * tableSize) >>> 32);
    }

    private int next(int index) {
        return index + 1 == tableSize ? 0 : index + 1;
    }

    private static long mix(long h, long word) {
        h = (h ^ word) * 0xBF58476D1CE4E5B9L;
        return h ^ (h >>> 31);
    }

    private static long finish(long h) {
        h = (h ^ (h >>> 30)) * 0x94D049BB133111EBL;
        return h ^ (h >>> 29);
    }

    /** Key-byte order: unsigned, word by word. */
    private int compare(int bodyOffset, AtomicBuffer k, int kOffset) {
        for (int i = 0; i < keyPadded; i += 8) {
            long a = body.getLongPlain(bodyOffset + i);
            long b = k.getLongPlain(kOffset + i);
            if (a != b) {
                return Long.compareUnsigned(a, b);
            }
        }
        return 0;
    }

    private int compare(int offsetA, int offsetB) {
        return compare(offsetA, body, offsetB);
    }

    private int compareWords(long[] words, int a, int b) {
        int per = keyPadded / 8;
        for (int i = 0; i < per; i++) {
            long x = words[a * per + i];
            long y = words[b * per + i];
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        return 0;
    }

    private void copySlot(int from, int to) {
        for (int i = 0; i < stride; i += 8) {
            body.setLongPlain(to + i, body.getLongPlain(from + i));
        }
    }

    private void copyIntentKeyTo(int keyOffset) {
        for (int i = 0; i < keyPadded; i += 8) {
            body.setLongPlain(keyOffset + i, body.getLongPlain(INTENT_KEY_OFFSET + i));
        }
    }

    private void readKey(int keyOffset, long[] words, int key) {
        int per = keyPadded / 8;
        for (int i = 0; i < per; i++) {
            words[key * per + i] = body.getLongPlain(keyOffset + 8 * i);
        }
    }

    private void writeKey(long[] words, int key, int keyOffset) {
        int per = keyPadded / 8;
        for (int i = 0; i < per; i++) {
            body.setLongPlain(keyOffset + 8 * i, words[key * per + i]);
        }
    }
}
