package io.subetha.cxc.collections;

import static io.subetha.cxc.collections.SharedVecDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A bounded vector of codec-typed, fixed-size elements in a mapped file, shared by every process on
 * the host: push and pop at the end, get and set by index, a consistent snapshot. Layout: {@link
 * SharedVecDescriptor}.
 *
 * <p><b>Writers</b> ({@link #push}, {@link #pop}, {@link #set}) take the file's {@link IntentLock}
 * and change reachable words only through its sealed intent, so a writer SIGKILLed at any point
 * leaves its step not begun or replayed whole by the next writer: an element is in or out, never
 * half-way, never twice.
 *
 * <ul>
 *   <li>{@code push}: under the lock, makes slot {@code len}'s sequence odd and writes the element
 *       there (unreachable: beyond the length); then seals {version odd, sequence even, len + 1,
 *       version even}. Killed before the seal: the slot is garbage beyond the length, the next push
 *       overwrites it.
 *   <li>{@code pop}: reads the last element under the lock, then seals {version odd, len - 1,
 *       version even}.
 *   <li>{@code set}: writes the new element into the lock's payload area, then seals {version odd,
 *       sequence odd, copy payload onto the slot, sequence even, version even}: the copy onto a
 *       reachable slot happens only after the commit point, so a replay finishes it.
 * </ul>
 *
 * <p><b>Readers</b> take no lock. {@link #get} keeps an element only if it read the slot's same
 * even sequence before and after it: a half-written element or one being overwritten is read again.
 * {@link #cloneToList} does the same with the version over the whole vec. After a few failed
 * attempts (a busy writer, or a dead writer whose step awaits its replay) a reader takes the lock,
 * which replays a dead writer's step, and reads under it.
 *
 * <p>Writers wait at most {@link #WRITER_WAIT} for a live writer (a paused process keeps the lock:
 * the {@link io.subetha.cxc.CxcTimeoutException} names it). Thread-safe.
 *
 * @param <T> the element type
 */
public final class SharedVec<T> extends MappedPrimitive {

    /** The longest a writer waits for another live writer's step. */
    public static final Duration WRITER_WAIT = Duration.ofSeconds(10);

    private static final int OPTIMISTIC_TRIES = 64;

    /** The ops a vec counts, exported under these names. */
    public enum Op implements OpKind {
        PUSH(1),
        POP(2),
        GET(3),
        SET(4),
        LEN(5),
        CLONE(6);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /**
     * A vec's creation settings.
     *
     * @param capacity elements it can hold, 1..{@value SharedVecDescriptor#MAX_CAPACITY}
     * @param codec the elements' codec
     */
    public record Settings<T>(int capacity, FixedCodec<T> codec) {
        public Settings {
            Objects.requireNonNull(codec, "codec");
            if (capacity < 1 || capacity > MAX_CAPACITY) {
                throw new CxcSettingsException(
                        "capacity",
                        "capacity " + capacity + " is outside 1.." + MAX_CAPACITY + " elements");
            }
            long length = (long) capacity * slotLength(codec.size()) + slotsOffset(codec.size());
            if (length > HeaderDescriptor.MAX_BODY_LENGTH - HeaderDescriptor.ALIGNMENT) {
                throw new CxcSettingsException(
                        "capacity",
                        "capacity "
                                + capacity
                                + " of "
                                + codec.size()
                                + "-byte elements needs "
                                + length
                                + " bytes, more than a file's limit of "
                                + HeaderDescriptor.MAX_BODY_LENGTH);
            }
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final PrimitiveType<SharedVec<?>, Settings<?>> TYPE =
            (PrimitiveType)
                    PrimitiveType.<SharedVec, Settings>define(
                                    PrimitiveKinds.SHARED_VEC, Settings.class)
                            .layoutVersion(LAYOUT_VERSION)
                            .bodyMagic(MAGIC)
                            .ops(Op.class)
                            .shape(
                                    s -> new PrimitiveType.Shape(s.capacity(), s.codec().size()),
                                    SharedVecDescriptor::bodyLength)
                            .codecs(s -> List.of(s.codec()))
                            .defaults(new Settings<>(16, FixedCodec.INT64))
                            .recorded(
                                    file ->
                                            new Settings<>(
                                                    file.header().capacity(),
                                                    PrimitiveType.recordedCodec(file, 0)))
                            .construct((file, settings, options) -> new SharedVec(file, settings));

    private final int capacity;
    private final int elementSize;
    private final int slots;
    private final int slotLength;
    private final IntentLock lock;
    private final FixedCodec<T> codec;

    private SharedVec(MappedFile file, Settings<T> settings) {
        super(file, TYPE);
        this.codec = settings.codec();
        this.capacity = file.header().capacity();
        this.elementSize = file.header().slotSize();
        this.slots = slotsOffset(elementSize);
        this.slotLength = SharedVecDescriptor.slotLength(elementSize);
        this.lock = new IntentLock(body, LOCK_OFFSET, LOCK_ENTRIES, elementSize, toStringShort());
        long len = body.getLongVolatile(LENGTH_OFFSET);
        if (len < 0 || len > capacity) {
            throw TYPE.corrupt(
                    file.path(), "length " + len + " is outside 0.." + capacity + " (capacity)");
        }
    }

    private String toStringShort() {
        return kind() + " " + file.path();
    }

    /**
     * Opens an existing vec file created with {@code expected}'s capacity and codec.
     *
     * @throws io.subetha.cxc.CxcCapacityException if it was created with another capacity
     * @throws CxcFormatException if it was created with another codec
     */
    public static <T> SharedVec<T> open(Path path, Settings<T> expected) {
        return TYPE.open(path, expected, CxcFileOptions.defaults());
    }

    /** Opens the vec file, or creates it with {@code settings}; race-safe across processes. */
    public static <T> SharedVec<T> openOrCreate(Path path, Settings<T> settings) {
        return TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
    }

    // ------------------------------------------------------------------------------ writes

    /**
     * Appends {@code value}.
     *
     * @return its index
     * @throws CxcCapacityException if the vec holds {@link #capacity()} elements
     */
    public long push(T value) {
        Objects.requireNonNull(value, "value");
        countOp(Op.PUSH);
        lockForWrite();
        try {
            long n = length();
            if (n == capacity) {
                throw new CxcCapacityException(
                        toStringShort() + " is full: capacity " + capacity + " elements");
            }
            int slot = slot((int) n);
            long sequence = body.getLongVolatile(slot + SEQUENCE_OFFSET);
            long odd = sequence | 1;
            // Unreachable until the length moves past it; odd tells a slow reader it changed.
            body.setLongRelease(slot + SEQUENCE_OFFSET, odd);
            codec.write(body, slot + ELEMENT_OFFSET, value);
            long version = body.getLongVolatile(VERSION_OFFSET);
            lock.stage(VERSION_OFFSET, version | 1);
            lock.stage(slot + SEQUENCE_OFFSET, odd + 1);
            lock.stage(LENGTH_OFFSET, n + 1);
            lock.stage(VERSION_OFFSET, (version | 1) + 1);
            lock.commit();
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Removes and returns the last element; empty if the vec is. */
    public Optional<T> pop() {
        countOp(Op.POP);
        if (length() == 0) {
            return Optional.empty(); // empty at this read; no lock taken for it
        }
        lockForWrite();
        try {
            long n = length();
            if (n == 0) {
                return Optional.empty();
            }
            T value = codec.read(body, slot((int) n - 1) + ELEMENT_OFFSET);
            long version = body.getLongVolatile(VERSION_OFFSET);
            lock.stage(VERSION_OFFSET, version | 1);
            lock.stage(LENGTH_OFFSET, n - 1);
            lock.stage(VERSION_OFFSET, (version | 1) + 1);
            lock.commit();
            return Optional.of(value);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Replaces element {@code index}.
     *
     * @throws IndexOutOfBoundsException if {@code index} is not below {@link #len()}
     */
    public void set(long index, T value) {
        Objects.requireNonNull(value, "value");
        countOp(Op.SET);
        lockForWrite();
        try {
            long n = length();
            checkIndex(index, n);
            int slot = slot((int) index);
            codec.write(body, lock.payloadOffset(), value);
            long sequence = body.getLongVolatile(slot + SEQUENCE_OFFSET);
            long version = body.getLongVolatile(VERSION_OFFSET);
            lock.stage(VERSION_OFFSET, version | 1);
            lock.stage(slot + SEQUENCE_OFFSET, sequence | 1);
            lock.stageCopy(slot + ELEMENT_OFFSET, elementSize);
            lock.stage(slot + SEQUENCE_OFFSET, (sequence | 1) + 1);
            lock.stage(VERSION_OFFSET, (version | 1) + 1);
            lock.commit();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------- reads

    /**
     * Element {@code index}, never half-written.
     *
     * @throws IndexOutOfBoundsException if {@code index} is not below {@link #len()}
     */
    public T get(long index) {
        countOp(Op.GET);
        for (int attempt = 0; attempt < OPTIMISTIC_TRIES; attempt++) {
            checkIndex(index, length());
            int slot = slot((int) index);
            long before = body.getLongAcquire(slot + SEQUENCE_OFFSET);
            if ((before & 1) == 0) {
                T value = null;
                RuntimeException failure = null;
                try {
                    value = codec.read(body, slot + ELEMENT_OFFSET);
                } catch (CxcFormatException | IllegalArgumentException e) {
                    failure = e; // torn by a writer, unless the sequence did not move
                }
                VarHandle.acquireFence();
                if (body.getLongVolatile(slot + SEQUENCE_OFFSET) == before) {
                    if (failure != null) {
                        throw failure;
                    }
                    return value;
                }
            }
            Thread.onSpinWait();
        }
        lockForWrite();
        try {
            checkIndex(index, length());
            return codec.read(body, slot((int) index) + ELEMENT_OFFSET);
        } finally {
            lock.unlock();
        }
    }

    /** Elements now in the vec, as every process sees them. */
    public long len() {
        countOp(Op.LEN);
        return length();
    }

    /** Elements the vec can hold. */
    public int capacity() {
        return capacity;
    }

    /** A consistent snapshot: the elements as they were at one instant, in index order. */
    public List<T> cloneToList() {
        countOp(Op.CLONE);
        for (int attempt = 0; attempt < OPTIMISTIC_TRIES; attempt++) {
            long before = body.getLongAcquire(VERSION_OFFSET);
            if ((before & 1) == 0) {
                List<T> copy = readAll(before);
                if (copy != null) {
                    return copy;
                }
            }
            Thread.onSpinWait();
        }
        lockForWrite();
        try {
            List<T> copy = new ArrayList<>();
            long n = length();
            for (int i = 0; i < n; i++) {
                copy.add(codec.read(body, slot(i) + ELEMENT_OFFSET));
            }
            return copy;
        } finally {
            lock.unlock();
        }
    }

    private @Nullable List<T> readAll(long version) {
        List<T> copy = new ArrayList<>();
        try {
            long n = length();
            for (int i = 0; i < n; i++) {
                copy.add(codec.read(body, slot(i) + ELEMENT_OFFSET));
            }
        } catch (CxcFormatException | IllegalArgumentException e) {
            VarHandle.acquireFence();
            if (body.getLongVolatile(VERSION_OFFSET) == version) {
                throw e;
            }
            return null;
        }
        VarHandle.acquireFence();
        return body.getLongVolatile(VERSION_OFFSET) == version ? copy : null;
    }

    /** PID of the process holding the writer lock now, 0 if none. */
    public long writerPid() {
        return lock.holderPid();
    }

    @Override
    public Map<String, Object> describe() {
        return fields(
                "len", body.getLongVolatile(LENGTH_OFFSET),
                "capacity", capacity,
                "elementBytes", elementSize,
                "writerPid", lock.holderPid(),
                "repairedWrites", lock.repairs());
    }

    // ----------------------------------------------------------------------------- helpers

    private void lockForWrite() {
        lock.lock(WRITER_WAIT.toNanos());
    }

    /** The length, checked against the capacity before it is trusted. */
    private long length() {
        long n = body.getLongAcquire(LENGTH_OFFSET);
        if (n < 0 || n > capacity) {
            throw new CxcFormatException(
                    toStringShort()
                            + ": the stored length "
                            + n
                            + " is outside 0.."
                            + capacity
                            + " (capacity); the file is corrupt");
        }
        return n;
    }

    private static void checkIndex(long index, long len) {
        if (index < 0 || index >= len) {
            throw new IndexOutOfBoundsException(
                    "index " + index + " is outside 0.." + (len - 1) + " (len " + len + ")");
        }
    }

    private int slot(int index) {
        return slots + index * slotLength;
    }
}
