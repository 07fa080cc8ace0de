package io.subetha.cxc.resolution;

import static io.subetha.cxc.resolution.CascadeSharedLevelDescriptor.*;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The shared level of a {@link KTowerCascade}: a fixed-capacity hash table of codec-typed keys and
 * values in a memory-mapped file, read and written by every process on the host. What one process
 * puts, every other finds. Layout: {@link CascadeSharedLevelDescriptor}.
 *
 * <p><b>Where a key lives.</b> Its 64-bit hash picks a home slot; the key lives in one of the
 * {@value CascadeSharedLevelDescriptor#PROBE_WINDOW} slots from there (its window, wrapping at the
 * end). A get looks at most at the window and stops at the first never-used slot. Windows overlap
 * (linear probing), so once the table is about half full some windows fill before the table does
 * and their puts evict: size the table at twice the entries it should keep.
 *
 * <p><b>No torn reads.</b> Each slot's {@link OwnerRecord} owner word is its seqlock. A writer
 * claims the slot by one CAS from the stable word it read (PID 0, version v) to (its PID, v+1):
 * nothing is written before that CAS is won, and two writers never write one slot. It then writes
 * hash, key and value with plain stores and releases the word (PID 0, version v+1; the release CAS
 * publishes the stores). A reader reads the word (acquire), skips the slot if a writer holds it,
 * copies hash, key and value, fences, and reads the word again: only the same stable word proves
 * the copy whole. A get therefore never waits and never writes.
 *
 * <p><b>A dead writer never blocks it.</b> A writer killed mid-write leaves its PID in the word:
 * readers skip that slot (a miss, which a cache may always answer), and the next writer that wants
 * it judges the owner through {@code /proc}, finds it dead and claims the slot from exactly that
 * word (a takeover), overwriting all of it. A live writer is never displaced, however slow: its
 * late stores would tear the slot under the next owner.
 *
 * <p><b>Eviction when full.</b> A put stores into the first slot of its window that holds the same
 * key; else the first never-used or removed one (or one a dead writer left); else it evicts the
 * entry of its window written longest ago (FIFO within the window, by the write time its claim
 * stamped; an update in place counts as a write, a get never refreshes an entry). So with one
 * writer the victim is a function of the puts' order alone: in a table no larger than the window,
 * the (n+1)th distinct key evicts the first. If every slot of the window is held by a live writer
 * at that instant, the put is dropped and counted ({@link #insert} returns false there): a full
 * table is never an error and never a wait.
 *
 * <p><b>One key, two puts at once.</b> A put that finds its key's slot held by another writer
 * stores its own copy in another slot, so a key may briefly be stored twice in its window. Every
 * put, once its slot is released, removes the key's other copies, but keeps the stable copy nearest
 * the home slot (which need not be its own): the copy every get answers. So both puts agree on the
 * copy that stays whatever the order of their cleanups; a cleanup never removes the nearest copy,
 * so the key is never left absent by it, and the last put to clean up finds the other copies stable
 * and removes them, so it is not left twice. Of two values put at once, the one stored nearer home
 * stays (either is a correct answer to two concurrent puts).
 *
 * <p><b>A crash at each step.</b> Before the claim CAS: nothing was written. After it, mid-write:
 * the slot keeps the dead PID, gets skip it, the next put choosing it takes it over (see above).
 * After the release, before the cleanup: a second copy may stay farther from home, where no get
 * reaches it first; the key's next put or remove removes it. In a cleanup's claim: that slot is
 * left held by a dead PID, a duplicate the nearer copy already answers for, until a put takes it
 * over. No step leaves a slot that blocks a put or tears a read.
 *
 * <p>Thread-safe; any number of processes. Keys are compared by their codec's bytes.
 */
public final class CascadeSharedLevel<K, V> extends MappedPrimitive implements CascadeLevel<K, V> {

    /** The ops a shared level counts, exported under these names. */
    public enum Op implements OpKind {
        INSERT(1),
        GET(2),
        REMOVE(3);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** The fewest and most slots a table has. */
    public static final int MIN_CAPACITY = CascadeSharedLevelDescriptor.MIN_CAPACITY;

    public static final int MAX_CAPACITY = CascadeSharedLevelDescriptor.MAX_CAPACITY;

    /** The largest key and the largest value, in bytes. */
    public static final int MAX_PAYLOAD_BYTES = CascadeSharedLevelDescriptor.MAX_PAYLOAD_BYTES;

    /**
     * A table's creation settings.
     *
     * @param capacity slots, {@link #MIN_CAPACITY}..{@link #MAX_CAPACITY}
     * @param keyCodec 1..{@link #MAX_PAYLOAD_BYTES} bytes
     * @param valueCodec 1..{@link #MAX_PAYLOAD_BYTES} bytes
     */
    public record Settings<K, V>(int capacity, FixedCodec<K> keyCodec, FixedCodec<V> valueCodec) {
        public static final int DEFAULT_CAPACITY = 1024;

        public Settings {
            CxcSettingsException.requireInRange(
                    "capacity", capacity, MIN_CAPACITY, MAX_CAPACITY, " slots");
            Objects.requireNonNull(keyCodec, "keyCodec");
            Objects.requireNonNull(valueCodec, "valueCodec");
            CxcSettingsException.requireInRange(
                    "keyCodec",
                    keyCodec.size(),
                    1,
                    MAX_PAYLOAD_BYTES,
                    " bytes (MAX_PAYLOAD_BYTES)");
            CxcSettingsException.requireInRange(
                    "valueCodec",
                    valueCodec.size(),
                    1,
                    MAX_PAYLOAD_BYTES,
                    " bytes (MAX_PAYLOAD_BYTES)");
            CxcSettingsException.requireBodyFits(
                    "capacity",
                    "capacity "
                            + capacity
                            + " of "
                            + keyCodec.size()
                            + "-byte keys with "
                            + valueCodec.size()
                            + "-byte values",
                    CascadeSharedLevelDescriptor.bodyLength(
                            capacity,
                            CascadeSharedLevelDescriptor.stride(
                                    keyCodec.size(), valueCodec.size())),
                    io.subetha.cxc.mmf.HeaderDescriptor.MAX_BODY_LENGTH);
        }
    }

    private static final int MAX_STRIDE = stride(MAX_PAYLOAD_BYTES, MAX_PAYLOAD_BYTES);

    private static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY) {
                    throw new IllegalArgumentException(
                            "capacity must be "
                                    + MIN_CAPACITY
                                    + ".."
                                    + MAX_CAPACITY
                                    + " slots, got "
                                    + capacity);
                }
                if (slotSize < stride(1, 1) || slotSize > MAX_STRIDE || slotSize % 8 != 0) {
                    throw new IllegalArgumentException(
                            "slot size must be a multiple of 8 in "
                                    + stride(1, 1)
                                    + ".."
                                    + MAX_STRIDE
                                    + " bytes, got "
                                    + slotSize);
                }
                return bodyLength(capacity, slotSize);
            };

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final PrimitiveType<CascadeSharedLevel<?, ?>, Settings<?, ?>> TYPE =
            (PrimitiveType)
                    PrimitiveType.<CascadeSharedLevel, Settings>define(
                                    PrimitiveKinds.CASCADE_SHARED_LEVEL, Settings.class)
                            .layoutVersion(LAYOUT_VERSION)
                            .bodyMagic(MAGIC)
                            .ops(Op.class)
                            .shape(
                                    s ->
                                            new PrimitiveType.Shape(
                                                    s.capacity(),
                                                    stride(
                                                            s.keyCodec().size(),
                                                            s.valueCodec().size())),
                                    BODY_LAYOUT)
                            .codecs(s -> List.of(s.keyCodec(), s.valueCodec()))
                            .defaults(
                                    new Settings<>(
                                            Settings.DEFAULT_CAPACITY,
                                            FixedCodec.INT64,
                                            FixedCodec.INT64))
                            .shapeCheck(CascadeSharedLevel::sizesProblem)
                            .recorded(
                                    file ->
                                            new Settings<>(
                                                    file.header().capacity(),
                                                    PrimitiveType.recordedCodec(file, 0),
                                                    PrimitiveType.recordedCodec(file, 1)))
                            .construct(
                                    (file, settings, options) ->
                                            new CascadeSharedLevel(file, settings));

    private static final long PID = Pids.current();
    private static final long START_TIME = OwnerRecord.startTimeOf(PID);

    /** A writer is judged dead only, never stale: see the class comment. */
    private static final long NEVER_STALE = Long.MAX_VALUE;

    /** Rounds a put tries before it drops: every round found its chosen slot taken first. */
    private static final int PUT_ROUNDS = 4;

    private final int capacity;
    private final int stride;
    private final int keyBytes;
    private final int valueBytes;
    private final int keyPadded;
    private final int valueOffset;
    private final int window;
    private final FixedCodec<K> keyCodec;
    private final FixedCodec<V> valueCodec;
    private final int valuePadded;
    private final ThreadLocal<AtomicBuffer> scratch;
    private final ThreadLocal<AtomicBuffer> valueScratch;

    private CascadeSharedLevel(MappedFile file, Settings<K, V> settings) {
        super(file, TYPE);
        this.keyCodec = settings.keyCodec();
        this.valueCodec = settings.valueCodec();
        this.capacity = file.header().capacity();
        this.stride = file.header().slotSize();
        // sizesProblem() checked both sizes against the header's slot size.
        int k = body.getIntAcquire(PrimitiveType.CODEC_SIZES_OFFSET);
        int v = body.getIntAcquire(PrimitiveType.CODEC_SIZES_OFFSET + 4);
        this.keyBytes = k;
        this.valueBytes = v;
        this.keyPadded = padded(k);
        this.valueOffset = KEY_OFFSET + keyPadded;
        this.window = Math.min(PROBE_WINDOW, capacity);
        this.valuePadded = padded(v);
        int keyScratch = keyPadded;
        int valueScratchBytes = valuePadded;
        this.scratch =
                ThreadLocal.withInitial(
                        () -> new AtomicBuffer(ByteBuffer.allocateDirect(keyScratch)));
        this.valueScratch =
                ThreadLocal.withInitial(
                        () -> new AtomicBuffer(ByteBuffer.allocateDirect(valueScratchBytes)));
    }

    /**
     * Sizes read from the file are trusted only once they explain the header's slot size: checked
     * before the table is built, or an observer's settings read.
     */
    private static @Nullable String sizesProblem(FileHeader header, AtomicBuffer body) {
        int k = body.getIntAcquire(PrimitiveType.CODEC_SIZES_OFFSET);
        int v = body.getIntAcquire(PrimitiveType.CODEC_SIZES_OFFSET + 4);
        int stride = header.slotSize();
        if (k < 1
                || k > MAX_PAYLOAD_BYTES
                || v < 1
                || v > MAX_PAYLOAD_BYTES
                || stride(k, v) != stride) {
            return "key and value sizes "
                    + k
                    + " and "
                    + v
                    + " bytes (each 1.."
                    + MAX_PAYLOAD_BYTES
                    + ") do not make the header's slot size "
                    + stride;
        }
        return null;
    }

    // ---------------------------------------------------------------------------- factories

    /** Opens an existing table created with {@code settings}' capacity and codec layouts. */
    public static <K, V> CascadeSharedLevel<K, V> open(Path path, Settings<K, V> settings) {
        return TYPE.open(path, settings);
    }

    /** Opens the table, or creates it with {@code settings}; race-safe across processes. */
    public static <K, V> CascadeSharedLevel<K, V> openOrCreate(Path path, Settings<K, V> settings) {
        return TYPE.openOrCreate(path, settings);
    }

    // -------------------------------------------------------------------------------- reads

    /** The value stored for {@code key}, or null: never waits, never writes the file. */
    @Override
    public @Nullable V get(K key) {
        FixedCodec<V> values = valueCodec;
        countOp(Op.GET);
        AtomicBuffer k = encode(key);
        long hash = hash(k);
        int index = home(hash);
        for (int i = 0; i < window; i++) {
            int slot = slotOffset(index);
            for (int attempt = 0; attempt < 4; attempt++) {
                long word = body.getLongAcquire(slot);
                if (OwnerRecord.pid(word) != OwnerRecord.NO_OWNER) {
                    break; // being written (or its writer died): not here for now
                }
                long slotHash = body.getLongPlain(slot + HASH_OFFSET);
                if (slotHash == NEVER_USED) {
                    VarHandle.acquireFence();
                    if (body.getLongVolatile(slot) == word) {
                        return null; // the key would have been stored here or before
                    }
                    continue;
                }
                if (slotHash != hash || !sameKey(slot, k)) {
                    VarHandle.acquireFence();
                    if (body.getLongVolatile(slot) == word) {
                        break;
                    }
                    continue;
                }
                V value = null;
                try {
                    value = values.read(body, slot + valueOffset);
                } catch (RuntimeException torn) {
                    // bytes changing under us; the second read of the word decides
                }
                VarHandle.acquireFence(); // the copy happens before the second read of the word
                if (body.getLongVolatile(slot) == word && value != null) {
                    return value;
                }
            }
            index = next(index);
        }
        return null;
    }

    /** Whether a stable entry for {@code key} is stored. */
    public boolean containsKey(K key) {
        return get(key) != null;
    }

    // ------------------------------------------------------------------------------- writes

    /** Stores {@code value} for {@code key}; see {@link #insert}. */
    @Override
    public void put(K key, V value) {
        insert(key, value);
    }

    /**
     * Stores {@code value} for {@code key}, evicting the oldest entry of the key's window if it is
     * full (see the class comment).
     *
     * @return false if the put was dropped: every slot of the window was being written
     * @throws IllegalArgumentException if the value does not fit its codec (nothing is stored)
     */
    public boolean insert(K key, V value) {
        FixedCodec<V> values = valueCodec;
        Objects.requireNonNull(value, "value");
        countOp(Op.INSERT);
        AtomicBuffer k = encode(key);
        // Encoded before any claim: a value its codec refuses changes nothing in the file.
        AtomicBuffer v = valueScratch.get();
        values.write(v, 0, value);
        long hash = hash(k);
        int home = home(hash);
        for (int round = 0; round < PUT_ROUNDS; round++) {
            int chosen = -1;
            long chosenWord = 0;
            int chosenRank = Integer.MAX_VALUE; // 0 same key, 1 free, 2 victim
            long oldest = Long.MAX_VALUE;
            int index = home;
            for (int i = 0; i < window; i++, index = next(index)) {
                int slot = slotOffset(index);
                long word = body.getLongAcquire(slot);
                if (OwnerRecord.pid(word) != OwnerRecord.NO_OWNER) {
                    if (chosenRank > 1
                            && OwnerRecord.judge(body, slot, word, System.nanoTime(), NEVER_STALE)
                                    == OwnerStatus.DEAD) {
                        // A dead writer's slot is as good as free.
                        chosen = slot;
                        chosenWord = word;
                        chosenRank = 1;
                    }
                    continue;
                }
                long slotHash = body.getLongPlain(slot + HASH_OFFSET);
                if (slotHash == hash && sameKey(slot, k)) {
                    chosen = slot;
                    chosenWord = word;
                    chosenRank = 0;
                    break;
                }
                if (slotHash == NEVER_USED || slotHash == REMOVED) {
                    if (chosenRank > 1) {
                        chosen = slot;
                        chosenWord = word;
                        chosenRank = 1;
                    }
                    if (slotHash == NEVER_USED) {
                        break; // the key is not stored beyond a never-used slot
                    }
                    continue;
                }
                long writtenAt = OwnerRecord.heartbeat(body, slot);
                if (chosenRank == Integer.MAX_VALUE
                        || (chosenRank == 2 && writtenAt - oldest < 0)) {
                    chosen = slot;
                    chosenWord = word;
                    chosenRank = 2;
                    oldest = writtenAt;
                }
            }
            if (chosen < 0) {
                break; // every slot of the window is held by a live writer
            }
            long mine = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(chosenWord));
            if (!OwnerRecord.claim(body, chosen, chosenWord, mine, START_TIME, System::nanoTime)) {
                continue; // another writer took it first: choose again
            }
            if (OwnerRecord.pid(chosenWord) != OwnerRecord.NO_OWNER) {
                body.getAndAddLong(TAKEOVERS_OFFSET, 1);
            }
            long previous = body.getLongPlain(chosen + HASH_OFFSET);
            boolean evicting =
                    previous != NEVER_USED
                            && previous != REMOVED
                            && (previous != hash || !sameKey(chosen, k));
            copy(v, valuePadded, chosen + valueOffset);
            copy(k, keyPadded, chosen + KEY_OFFSET);
            body.setLongPlain(chosen + HASH_OFFSET, hash);
            OwnerRecord.release(body, chosen, mine); // publishes the stores
            body.getAndAddLong(PUTS_OFFSET, 1);
            if (evicting) {
                body.getAndAddLong(EVICTIONS_OFFSET, 1);
            }
            Interleaving.at(Interleaving.Point.SHARED_LEVEL_STORED);
            removeCopies(k, hash, home, true);
            return true;
        }
        body.getAndAddLong(DROPPED_OFFSET, 1);
        return false;
    }

    /**
     * Removes the entry for {@code key}, if stored.
     *
     * @return whether an entry was removed
     */
    public boolean remove(K key) {
        countOp(Op.REMOVE);
        AtomicBuffer k = encode(key);
        long hash = hash(k);
        int home = home(hash);
        return removeCopies(k, hash, home, false);
    }

    /**
     * Removes the stable copies of {@code k} in its window: all of them, or, for a put's cleanup
     * ({@code keepNearest}), all but the first from the home slot, the one every get answers. Two
     * puts of one key at once therefore agree on the copy that stays, whatever their order: the
     * nearer copy is never removed by a cleanup, so the key is never left absent, and the last put
     * to clean up finds every other copy stable and removes it, so it is not left twice.
     */
    private boolean removeCopies(AtomicBuffer k, long hash, int home, boolean keepNearest) {
        boolean nearerSeen = !keepNearest;
        boolean removed = false;
        int index = home;
        for (int i = 0; i < window; i++, index = next(index)) {
            int slot = slotOffset(index);
            long word = body.getLongAcquire(slot);
            if (OwnerRecord.pid(word) != OwnerRecord.NO_OWNER) {
                continue; // its writer (live or dead) decides; a held copy is never the kept one
            }
            long slotHash = body.getLongPlain(slot + HASH_OFFSET);
            if (slotHash == NEVER_USED) {
                break;
            }
            if (slotHash != hash || !sameKey(slot, k)) {
                continue;
            }
            if (!nearerSeen) {
                // The copy that stays, if the read was of one stable entry (the seqlock check).
                VarHandle.acquireFence();
                nearerSeen = body.getLongVolatile(slot) == word;
                continue;
            }
            long mine = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(word));
            // From the word the reads above saw: the CAS wins only if the copy is still that one.
            if (OwnerRecord.claim(body, slot, word, mine, START_TIME, System::nanoTime)) {
                body.setLongPlain(slot + HASH_OFFSET, REMOVED);
                OwnerRecord.release(body, slot, mine);
                removed = true;
                if (keepNearest) {
                    body.getAndAddLong(DUPLICATES_OFFSET, 1);
                }
            }
        }
        return removed;
    }

    // ------------------------------------------------------------------------------- describe

    public int capacity() {
        return capacity;
    }

    /** Stable copies of {@code key} in its window (1 at rest for a stored key). For tests. */
    int copies(K key) {
        AtomicBuffer k = encode(key);
        long hash = hash(k);
        int copies = 0;
        int index = home(hash);
        for (int i = 0; i < window; i++, index = next(index)) {
            int slot = slotOffset(index);
            long word = body.getLongAcquire(slot);
            if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER
                    && body.getLongPlain(slot + HASH_OFFSET) == hash
                    && sameKey(slot, k)) {
                copies++;
            }
        }
        return copies;
    }

    /** Stable entries now stored (a scan of every slot). */
    public int size() {
        int size = 0;
        for (int i = 0; i < capacity; i++) {
            int slot = slotOffset(i);
            long hash = body.getLongAcquire(slot + HASH_OFFSET);
            if (hash != NEVER_USED && hash != REMOVED) {
                size++;
            }
        }
        return size;
    }

    /** Slots whose writer is dead mid-write: skipped by gets until a put takes them over. */
    public int abandonedSlots() {
        int abandoned = 0;
        for (int i = 0; i < capacity; i++) {
            int slot = slotOffset(i);
            long word = OwnerRecord.ownerWord(body, slot);
            if (OwnerRecord.pid(word) != OwnerRecord.NO_OWNER
                    && OwnerRecord.isDead(body, slot, word)) {
                abandoned++;
            }
        }
        return abandoned;
    }

    @Override
    public Map<String, Object> describe() {
        return fields(
                "capacity", capacity,
                "entries", size(),
                "keyBytes", keyBytes,
                "valueBytes", valueBytes,
                "puts", body.getLongVolatile(PUTS_OFFSET),
                "evictions", body.getLongVolatile(EVICTIONS_OFFSET),
                "droppedPuts", body.getLongVolatile(DROPPED_OFFSET),
                "takeovers", body.getLongVolatile(TAKEOVERS_OFFSET),
                "duplicatesRemoved", body.getLongVolatile(DUPLICATES_OFFSET));
    }

    // -------------------------------------------------------------------------------- helpers

    private AtomicBuffer encode(K key) {
        FixedCodec<K> keys = keyCodec;
        Objects.requireNonNull(key, "key");
        AtomicBuffer k = scratch.get();
        keys.write(k, 0, key); // the padding after it stays zero: nothing else writes it
        return k;
    }

    /** A 64-bit mix of the key's padded words (never 0 or 1, the slot markers). */
    private long hash(AtomicBuffer k) {
        long h = 0x9E3779B97F4A7C15L ^ keyBytes;
        for (int i = 0; i < keyPadded; i += 8) {
            h = (h ^ k.getLongPlain(i)) * 0xBF58476D1CE4E5B9L;
            h ^= h >>> 31;
        }
        h = (h ^ (h >>> 30)) * 0x94D049BB133111EBL;
        h ^= h >>> 29;
        return (h & ~1L) == 0 ? 2 : h;
    }

    private int home(long hash) {
        return (int) (((hash >>> 32) * capacity) >>> 32);
    }

    private int next(int index) {
        return index + 1 == capacity ? 0 : index + 1;
    }

    private int slotOffset(int index) {
        return SLOTS_OFFSET + index * stride;
    }

    private boolean sameKey(int slot, AtomicBuffer k) {
        int base = slot + KEY_OFFSET;
        for (int i = 0; i < keyPadded; i += 8) {
            if (body.getLongPlain(base + i) != k.getLongPlain(i)) {
                return false;
            }
        }
        return true;
    }

    /** Plain stores of {@code bytes} (a multiple of 8) from {@code from} into the body. */
    private void copy(AtomicBuffer from, int bytes, int offset) {
        for (int i = 0; i < bytes; i += 8) {
            body.setLongPlain(offset + i, from.getLongPlain(i));
        }
    }
}
