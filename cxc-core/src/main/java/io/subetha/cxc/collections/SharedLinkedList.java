package io.subetha.cxc.collections;

import static io.subetha.cxc.collections.SharedLinkedListDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A bounded doubly-linked list (a deque) of codec-typed, fixed-size elements in a mapped file,
 * shared by every process on the host: push and pop at both ends. Layout: {@link
 * SharedLinkedListDescriptor}; links are node offsets within the body.
 *
 * <p><b>Protocol.</b> Every operation takes the file's {@link IntentLock}. A push takes the free
 * list's first node, writes the element into it (unreachable: on the free list, the element bytes
 * are not part of the free chain), then seals one intent that changes every link at once: {version
 * odd, free head, the node's prev and next, the neighbour's link (or the other end), the end, size
 * + 1, version even}. A pop reads its element under the lock and seals {version odd, the end, the
 * new end's link (or the other end), size - 1, the node onto the free list, version even}. A writer
 * SIGKILLed before its seal changed no link; after it, the next writer (or a reader falling back to
 * the lock) replays the step whole: a node is on exactly one chain, an element in or out, never
 * twice. Killed writers' locks are taken over once {@code /proc} shows them dead.
 *
 * <p>Links read from the file are checked against the node area (in range, on a node boundary)
 * before they are followed; a bad one is a {@link CxcFormatException}. Writers wait at most {@link
 * #WRITER_WAIT} for a live writer. Thread-safe.
 *
 * @param <T> the element type
 */
public final class SharedLinkedList<T> extends MappedPrimitive {

    /** The longest a writer waits for another live writer's step. */
    public static final Duration WRITER_WAIT = Duration.ofSeconds(10);

    /** The ops a list counts, exported under these names. */
    public enum Op implements OpKind {
        PUSH_HEAD(1),
        PUSH_TAIL(2),
        POP_HEAD(3),
        POP_TAIL(4);

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
     * A list's creation settings.
     *
     * @param capacity nodes it can hold, 1..{@value SharedLinkedListDescriptor#MAX_CAPACITY}
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
            long length = NODES_OFFSET + (long) capacity * nodeLength(codec.size());
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
    public static final PrimitiveType<SharedLinkedList<?>, Settings<?>> TYPE =
            (PrimitiveType)
                    PrimitiveType.<SharedLinkedList, Settings>define(
                                    PrimitiveKinds.SHARED_LINKED_LIST, Settings.class)
                            .layoutVersion(LAYOUT_VERSION)
                            .bodyMagic(MAGIC)
                            .ops(Op.class)
                            .shape(
                                    s -> new PrimitiveType.Shape(s.capacity(), s.codec().size()),
                                    SharedLinkedListDescriptor::bodyLength)
                            .codecs(s -> List.of(s.codec()))
                            .initialiser(SharedLinkedList::linkFreeList)
                            .defaults(new Settings<>(16, FixedCodec.INT64))
                            .recorded(
                                    file ->
                                            new Settings<>(
                                                    file.header().capacity(),
                                                    PrimitiveType.recordedCodec(file, 0)))
                            .construct(
                                    (file, settings, options) ->
                                            new SharedLinkedList(file, settings));

    private final int capacity;
    private final int elementSize;
    private final int nodeLength;
    private final IntentLock lock;
    private final FixedCodec<T> codec;

    private SharedLinkedList(MappedFile file, Settings<T> settings) {
        super(file, TYPE);
        this.codec = settings.codec();
        this.capacity = file.header().capacity();
        this.elementSize = file.header().slotSize();
        this.nodeLength = SharedLinkedListDescriptor.nodeLength(elementSize);
        this.lock = new IntentLock(body, LOCK_OFFSET, LOCK_ENTRIES, 0, kind() + " " + file.path());
        long size = body.getLongVolatile(SIZE_OFFSET);
        if (size < 0 || size > capacity) {
            throw TYPE.corrupt(
                    file.path(), "size " + size + " is outside 0.." + capacity + " (capacity)");
        }
    }

    private static void linkFreeList(AtomicBuffer body, Settings<?> settings) {
        int length = nodeLength(settings.codec().size());
        for (int i = 0; i < settings.capacity(); i++) {
            int node = NODES_OFFSET + i * length;
            body.setLongPlain(node + NEXT_OFFSET, i + 1 < settings.capacity() ? node + length : 0);
        }
        body.setLongPlain(FREE_OFFSET, NODES_OFFSET);
    }

    /**
     * Opens an existing list file created with {@code expected}'s capacity and codec.
     *
     * @throws io.subetha.cxc.CxcCapacityException if it was created with another capacity
     * @throws CxcFormatException if it was created with another codec
     */
    public static <T> SharedLinkedList<T> open(Path path, Settings<T> expected) {
        return TYPE.open(path, expected, CxcFileOptions.defaults());
    }

    /** Opens the list file, or creates it with {@code settings}; race-safe across processes. */
    public static <T> SharedLinkedList<T> openOrCreate(Path path, Settings<T> settings) {
        return TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
    }

    // ------------------------------------------------------------------------------ writes

    /**
     * Inserts {@code value} before the first element.
     *
     * @throws CxcCapacityException if the list holds {@link #capacity()} elements
     */
    public void pushHead(T value) {
        countOp(Op.PUSH_HEAD);
        push(value, true);
    }

    /**
     * Appends {@code value} after the last element.
     *
     * @throws CxcCapacityException if the list holds {@link #capacity()} elements
     */
    public void pushTail(T value) {
        countOp(Op.PUSH_TAIL);
        push(value, false);
    }

    /** Removes and returns the first element; empty if the list is. */
    public Optional<T> popHead() {
        countOp(Op.POP_HEAD);
        return pop(true);
    }

    /** Removes and returns the last element; empty if the list is. */
    public Optional<T> popTail() {
        countOp(Op.POP_TAIL);
        return pop(false);
    }

    private void push(T value, boolean atHead) {
        Objects.requireNonNull(value, "value");
        lock.lock(WRITER_WAIT.toNanos());
        try {
            long size = size0();
            int node = link(FREE_OFFSET);
            if (node == 0) {
                throw new CxcCapacityException(
                        kind()
                                + " "
                                + file.path()
                                + " is full: capacity "
                                + capacity
                                + " elements");
            }
            int nextFree = link(node + NEXT_OFFSET);
            // Free, so unreachable by readers of the list; the free chain uses only next.
            codec.write(body, node + ELEMENT_OFFSET, value);
            int endOffset = atHead ? HEAD_OFFSET : TAIL_OFFSET;
            int otherEnd = atHead ? TAIL_OFFSET : HEAD_OFFSET;
            int end = link(endOffset);
            long version = body.getLongVolatile(VERSION_OFFSET);
            lock.stage(VERSION_OFFSET, version | 1);
            lock.stage(FREE_OFFSET, nextFree);
            lock.stage(node + (atHead ? PREV_OFFSET : NEXT_OFFSET), 0);
            lock.stage(node + (atHead ? NEXT_OFFSET : PREV_OFFSET), end);
            if (end == 0) {
                lock.stage(otherEnd, node);
            } else {
                lock.stage(end + (atHead ? PREV_OFFSET : NEXT_OFFSET), node);
            }
            lock.stage(endOffset, node);
            lock.stage(SIZE_OFFSET, size + 1);
            lock.stage(VERSION_OFFSET, (version | 1) + 1);
            lock.commit();
        } finally {
            lock.unlock();
        }
    }

    private Optional<T> pop(boolean atHead) {
        if (size0() == 0) {
            // Empty at this read: answered without the lock, so a consumer polling an empty list
            // never keeps a producer from it.
            return Optional.empty();
        }
        lock.lock(WRITER_WAIT.toNanos());
        try {
            long size = size0();
            int endOffset = atHead ? HEAD_OFFSET : TAIL_OFFSET;
            int otherEnd = atHead ? TAIL_OFFSET : HEAD_OFFSET;
            int node = link(endOffset);
            if (node == 0) {
                return Optional.empty();
            }
            T value = codec.read(body, node + ELEMENT_OFFSET);
            int inward = link(node + (atHead ? NEXT_OFFSET : PREV_OFFSET));
            long version = body.getLongVolatile(VERSION_OFFSET);
            lock.stage(VERSION_OFFSET, version | 1);
            lock.stage(endOffset, inward);
            if (inward == 0) {
                lock.stage(otherEnd, 0);
            } else {
                lock.stage(inward + (atHead ? PREV_OFFSET : NEXT_OFFSET), 0);
            }
            lock.stage(SIZE_OFFSET, Math.max(0, size - 1));
            lock.stage(node + PREV_OFFSET, 0);
            lock.stage(node + NEXT_OFFSET, link(FREE_OFFSET));
            lock.stage(FREE_OFFSET, node);
            lock.stage(VERSION_OFFSET, (version | 1) + 1);
            lock.commit();
            return Optional.of(value);
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------- reads

    /** Elements now in the list, as every process sees them. */
    public long size() {
        passFileCheck();
        return size0();
    }

    /** Elements the list can hold. */
    public int capacity() {
        return capacity;
    }

    /** PID of the process holding the writer lock now, 0 if none. */
    public long writerPid() {
        return lock.holderPid();
    }

    @Override
    public Map<String, Object> describe() {
        return fields(
                "size", body.getLongVolatile(SIZE_OFFSET),
                "capacity", capacity,
                "elementBytes", elementSize,
                "writerPid", lock.holderPid(),
                "repairedWrites", lock.repairs());
    }

    /**
     * The elements head to tail and the free nodes, checked under the writer lock (so a dead
     * writer's step is replayed first): null if every node is on exactly one chain with consistent
     * links and the size agrees, else the problem. For tests and tools.
     */
    @Nullable String checkIntegrity(List<T> elementsOut) {
        lock.lock(WRITER_WAIT.toNanos());
        try {
            boolean[] seen = new boolean[capacity];
            int previous = 0;
            long count = 0;
            for (int node = link(HEAD_OFFSET); node != 0; node = link(node + NEXT_OFFSET)) {
                int i = (node - NODES_OFFSET) / nodeLength;
                if (seen[i]) {
                    return "node " + i + " is on a chain twice";
                }
                seen[i] = true;
                if (link(node + PREV_OFFSET) != previous) {
                    return "node " + i + "'s prev is not its predecessor";
                }
                elementsOut.add(codec.read(body, node + ELEMENT_OFFSET));
                previous = node;
                count++;
            }
            if (link(TAIL_OFFSET) != previous) {
                return "the tail is not the last node";
            }
            if (count != size0()) {
                return "size " + size0() + " but " + count + " nodes on the list";
            }
            for (int node = link(FREE_OFFSET); node != 0; node = link(node + NEXT_OFFSET)) {
                int i = (node - NODES_OFFSET) / nodeLength;
                if (seen[i]) {
                    return "node " + i + " is on a chain twice";
                }
                seen[i] = true;
                count++;
            }
            if (count != capacity) {
                return count + " nodes on the chains, capacity " + capacity;
            }
            if ((body.getLongVolatile(VERSION_OFFSET) & 1) != 0) {
                return "version odd after every step finished";
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    // ----------------------------------------------------------------------------- helpers

    private long size0() {
        long n = body.getLongAcquire(SIZE_OFFSET);
        if (n < 0 || n > capacity) {
            throw new CxcFormatException(
                    kind()
                            + " "
                            + file.path()
                            + ": the stored size "
                            + n
                            + " is outside 0.."
                            + capacity
                            + " (capacity); the file is corrupt");
        }
        return n;
    }

    /** The node offset stored at {@code offset}, checked against the node area; 0 = none. */
    private int link(int offset) {
        long node = body.getLongAcquire(offset);
        if (node == 0) {
            return 0;
        }
        long index = (node - NODES_OFFSET) / nodeLength;
        if (node < NODES_OFFSET || (node - NODES_OFFSET) % nodeLength != 0 || index >= capacity) {
            throw new CxcFormatException(
                    kind()
                            + " "
                            + file.path()
                            + ": a link at body offset "
                            + offset
                            + " holds "
                            + node
                            + ", not a node offset ("
                            + NODES_OFFSET
                            + " + i * "
                            + nodeLength
                            + ", i below "
                            + capacity
                            + "); the file is corrupt");
        }
        return (int) node;
    }
}
