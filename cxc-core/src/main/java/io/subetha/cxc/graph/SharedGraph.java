package io.subetha.cxc.graph;

import static io.subetha.cxc.graph.SharedGraphDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.FileHeader;
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
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A bounded directed graph in a mapped file, shared by every process on the host: codec-typed node
 * and edge payloads stored inline, at most one edge per ordered pair of nodes, links as body
 * offsets. Layout: {@link SharedGraphDescriptor}.
 *
 * <p><b>Writers</b> ({@link #addNode}, {@link #addEdge}, {@link #removeEdge}) take the file's
 * {@link IntentLock}. {@code addNode} writes the payload into the next node slot (unpublished) and
 * seals {node count + 1}. {@code addEdge} takes the free list's first edge, writes its ends and
 * payload (a free edge's only chained word is its next, which it leaves), and seals {from's
 * generation odd, free head, the edge's next, from's first edge (or the predecessor's next), from's
 * degree, edge count, from's generation even}; an edge to a node that already has one from {@code
 * from} replaces it in the same step (the old edge goes to the free list). {@code removeEdge} seals
 * {generation odd, the predecessor's link, the edge onto the free list, degree, count, generation
 * even}. A writer SIGKILLed before its seal changed no link; after it, the next writer replays the
 * step whole. A dead writer's lock is taken over once {@code /proc} shows it dead.
 *
 * <p><b>Readers</b> take no lock. {@link #neighbors} reads a node's adjacency generation, walks its
 * out-list (every link checked against the edge area, at most max-edges steps) and keeps what it
 * read only if the generation is the same even value afterwards: a half-added edge, or a removed
 * edge reused on another node's list while the reader was on it, both move the generation (the
 * removal did), so the reader walks again. After a few failed walks it reads under the lock. Node
 * payloads never change once published, so {@link #node} reads them directly.
 *
 * <p>Removed edges are reused (the free list is LIFO). Writers wait at most {@link #WRITER_WAIT}
 * for a live writer. Thread-safe.
 *
 * @param <N> the node payload type
 * @param <E> the edge payload type
 */
public final class SharedGraph<N, E> extends MappedPrimitive {

    /** The longest a writer waits for another live writer's step. */
    public static final Duration WRITER_WAIT = Duration.ofSeconds(10);

    private static final int OPTIMISTIC_TRIES = 64;

    /** The ops a graph counts, exported under these names. */
    public enum Op implements OpKind {
        ADD_NODE(1),
        ADD_EDGE(2),
        NEIGHBORS(3),
        REMOVE_EDGE(4);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** One out-edge, as {@link #neighbors} returns it. */
    public record Edge<E>(int from, int to, E payload) {}

    /**
     * A graph's creation settings.
     *
     * @param maxNodes nodes it can hold, 1..{@value SharedGraphDescriptor#MAX_NODES}
     * @param maxEdges edges it can hold at once, 1..{@value SharedGraphDescriptor#MAX_EDGES}
     */
    public record Settings<N, E>(
            int maxNodes, int maxEdges, FixedCodec<N> nodeCodec, FixedCodec<E> edgeCodec) {
        public Settings {
            Objects.requireNonNull(nodeCodec, "nodeCodec");
            Objects.requireNonNull(edgeCodec, "edgeCodec");
            if (maxNodes < 1 || maxNodes > MAX_NODES) {
                throw new CxcSettingsException(
                        "maxNodes", "maxNodes " + maxNodes + " is outside 1.." + MAX_NODES);
            }
            if (maxEdges < 1 || maxEdges > MAX_EDGES) {
                throw new CxcSettingsException(
                        "maxEdges", "maxEdges " + maxEdges + " is outside 1.." + MAX_EDGES);
            }
            long stride = (long) Math.max(nodeCodec.size(), edgeCodec.size()) + 32;
            long length = SLOTS_OFFSET + ((long) maxNodes + maxEdges) * stride;
            if (length > HeaderDescriptor.MAX_BODY_LENGTH - HeaderDescriptor.ALIGNMENT
                    || stride > (1 << 20)) {
                throw new CxcSettingsException(
                        "maxEdges",
                        maxNodes
                                + " nodes of "
                                + nodeCodec.size()
                                + " bytes and "
                                + maxEdges
                                + " edges of "
                                + edgeCodec.size()
                                + " bytes need about "
                                + length
                                + " bytes, more than a file's limit of "
                                + HeaderDescriptor.MAX_BODY_LENGTH
                                + " (or a payload above 1 MiB)");
            }
        }

        int stride() {
            return SharedGraphDescriptor.stride(nodeCodec.size(), edgeCodec.size());
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final PrimitiveType<SharedGraph<?, ?>, Settings<?, ?>> TYPE =
            (PrimitiveType)
                    PrimitiveType.<SharedGraph, Settings>define(
                                    PrimitiveKinds.SHARED_GRAPH, Settings.class)
                            .layoutVersion(LAYOUT_VERSION)
                            .bodyMagic(MAGIC)
                            .ops(Op.class)
                            .shape(
                                    s ->
                                            new PrimitiveType.Shape(
                                                    s.maxNodes() + s.maxEdges(), s.stride()),
                                    SharedGraphDescriptor::bodyLength)
                            .codecs(s -> List.of(s.nodeCodec(), s.edgeCodec()))
                            .initialiser(SharedGraph::initialise)
                            .defaults(new Settings<>(16, 64, FixedCodec.INT64, FixedCodec.INT64))
                            .shapeCheck(SharedGraph::shapeProblem)
                            .recorded(
                                    file ->
                                            new Settings<>(
                                                    file.body().getIntVolatile(MAX_NODES_OFFSET),
                                                    file.body().getIntVolatile(MAX_EDGES_OFFSET),
                                                    PrimitiveType.recordedCodec(file, 0),
                                                    PrimitiveType.recordedCodec(file, 1)))
                            .construct(
                                    (file, settings, options) -> new SharedGraph(file, settings));

    private final int maxNodes;
    private final int maxEdges;
    private final int stride;
    private final int edgesOffset;
    private final IntentLock lock;
    private final FixedCodec<N> nodeCodec;
    private final FixedCodec<E> edgeCodec;

    private SharedGraph(MappedFile file, Settings<N, E> settings) {
        super(file, TYPE);
        // shapeProblem() checked both counts and both payload sizes against the header.
        this.stride = file.header().slotSize();
        this.maxNodes = body.getIntVolatile(MAX_NODES_OFFSET);
        this.maxEdges = body.getIntVolatile(MAX_EDGES_OFFSET);
        if (maxNodes != settings.maxNodes() || maxEdges != settings.maxEdges()) {
            // The header's capacity counts node and edge slots together: another split of the
            // same total passes it.
            file.close();
            throw mismatch(file.path(), maxNodes, maxEdges, settings);
        }
        this.nodeCodec = settings.nodeCodec();
        this.edgeCodec = settings.edgeCodec();
        this.edgesOffset = SLOTS_OFFSET + maxNodes * stride;
        this.lock = new IntentLock(body, LOCK_OFFSET, LOCK_ENTRIES, 0, kind() + " " + file.path());
        nodeCount();
        edgeCount0();
    }

    /** The node and edge counts, and the payload sizes, must give the header's slots and stride. */
    private static @Nullable String shapeProblem(FileHeader header, AtomicBuffer body) {
        int slots = header.capacity();
        int stride = header.slotSize();
        int maxNodes = body.getIntVolatile(MAX_NODES_OFFSET);
        int maxEdges = body.getIntVolatile(MAX_EDGES_OFFSET);
        int nodeSize = body.getIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET);
        int edgeSize = body.getIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET + 4);
        if (maxNodes < 1 || maxEdges < 1 || (long) maxNodes + maxEdges != slots) {
            return "max nodes "
                    + maxNodes
                    + " and max edges "
                    + maxEdges
                    + " do not add up to the header's "
                    + slots
                    + " slots";
        }
        if (nodeSize < 1
                || edgeSize < 1
                || stride != SharedGraphDescriptor.stride(nodeSize, edgeSize)) {
            return "payload sizes "
                    + nodeSize
                    + " and "
                    + edgeSize
                    + " bytes do not give the header's slot size "
                    + stride;
        }
        return null;
    }

    private static void initialise(AtomicBuffer body, Settings<?, ?> s) {
        body.setIntPlain(MAX_NODES_OFFSET, s.maxNodes());
        body.setIntPlain(MAX_EDGES_OFFSET, s.maxEdges());
        int stride = s.stride();
        int first = SLOTS_OFFSET + s.maxNodes() * stride;
        for (int j = 0; j < s.maxEdges(); j++) {
            int edge = first + j * stride;
            body.setLongPlain(edge + EDGE_NEXT_OFFSET, j + 1 < s.maxEdges() ? edge + stride : 0);
        }
        body.setLongPlain(FREE_EDGE_OFFSET, first);
    }

    private static CxcCapacityException mismatch(
            Path path, int storedNodes, int storedEdges, Settings<?, ?> expected) {
        return new CxcCapacityException(
                path
                        + " was created with maxNodes "
                        + storedNodes
                        + " and maxEdges "
                        + storedEdges
                        + ", but was opened expecting maxNodes "
                        + expected.maxNodes()
                        + " and maxEdges "
                        + expected.maxEdges()
                        + "; open it with those, or give the new capacity a new file");
    }

    /**
     * Opens through {@code open}, turning the header's capacity check (which counts node and edge
     * slots together) into the graph's own terms: the file's maxNodes and maxEdges, read by an
     * observer's view that writes nothing.
     */
    private static <N, E> SharedGraph<N, E> shaped(
            Path path, Settings<N, E> expected, Supplier<SharedGraph<N, E>> open) {
        try {
            return open.get();
        } catch (CxcCapacityException slots) {
            int storedNodes;
            int storedEdges;
            try {
                Settings<?, ?> stored = TYPE.recordedSettings(path, CxcFileOptions.defaults());
                storedNodes = stored.maxNodes();
                storedEdges = stored.maxEdges();
            } catch (RuntimeException unreadable) {
                slots.addSuppressed(unreadable);
                throw slots;
            }
            CxcCapacityException named = mismatch(path, storedNodes, storedEdges, expected);
            named.initCause(slots);
            throw named;
        }
    }

    /**
     * Opens an existing graph file created with {@code settings}' capacities and codec layouts; a
     * file of other capacities is refused in the graph's own terms (maxNodes, maxEdges).
     */
    public static <N, E> SharedGraph<N, E> open(Path path, Settings<N, E> settings) {
        return shaped(path, settings, () -> TYPE.open(path, settings));
    }

    /** Opens the file, or creates it with {@code settings}; race-safe across processes. */
    public static <N, E> SharedGraph<N, E> openOrCreate(Path path, Settings<N, E> settings) {
        return shaped(path, settings, () -> TYPE.openOrCreate(path, settings));
    }

    // ------------------------------------------------------------------------------ writes

    /**
     * Adds a node.
     *
     * @return its id, the next one (ids are never reused: nodes are not removed)
     * @throws CxcCapacityException if the graph holds max-nodes nodes
     */
    public int addNode(N payload) {
        FixedCodec<N> c = nodeCodec;
        Objects.requireNonNull(payload, "payload");
        countOp(Op.ADD_NODE);
        lock();
        try {
            int id = nodeCount();
            if (id == maxNodes) {
                throw new CxcCapacityException(
                        what() + " is full: maxNodes " + maxNodes + " nodes");
            }
            // Unpublished until the count moves past it.
            c.write(body, nodeSlot(id) + NODE_PAYLOAD_OFFSET, payload);
            lock.stage(NODE_COUNT_OFFSET, id + 1);
            lock.commit();
            return id;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Adds the edge {@code from → to}, or replaces the payload of the one there is.
     *
     * @throws IllegalArgumentException if either node does not exist
     * @throws CxcCapacityException if the graph holds max-edges edges, even when one of them goes
     *     from → to: a replacement is written into a free edge before the old one is freed
     */
    public void addEdge(int from, int to, E payload) {
        FixedCodec<E> c = edgeCodec;
        Objects.requireNonNull(payload, "payload");
        countOp(Op.ADD_EDGE);
        checkNode("from", from);
        checkNode("to", to);
        lock();
        try {
            int node = nodeSlot(from);
            int previous = 0;
            int existing = edgeLink(node + NODE_HEAD_OFFSET);
            for (int steps = 0; existing != 0; steps++) {
                checkSteps(steps, from);
                if (to(existing) == to) {
                    break;
                }
                previous = existing;
                existing = edgeLink(existing + EDGE_NEXT_OFFSET);
            }
            int edge = edgeLink(FREE_EDGE_OFFSET);
            if (edge == 0) {
                throw new CxcCapacityException(
                        what() + " is full: maxEdges " + maxEdges + " edges");
            }
            int nextFree = edgeLink(edge + EDGE_NEXT_OFFSET);
            // A free edge is on no out-list; the free chain uses only its next word.
            c.write(body, edge + EDGE_PAYLOAD_OFFSET, payload);
            body.setLongRelease(edge + EDGE_ENDS_OFFSET, ends(from, to));
            long generation = body.getLongVolatile(node + NODE_GENERATION_OFFSET);
            lock.stage(node + NODE_GENERATION_OFFSET, generation | 1);
            lock.stage(FREE_EDGE_OFFSET, nextFree);
            if (existing != 0) {
                lock.stage(edge + EDGE_NEXT_OFFSET, edgeLink(existing + EDGE_NEXT_OFFSET));
                lock.stage(
                        previous == 0 ? node + NODE_HEAD_OFFSET : previous + EDGE_NEXT_OFFSET,
                        edge);
                lock.stage(existing + EDGE_NEXT_OFFSET, nextFree);
                lock.stage(FREE_EDGE_OFFSET, existing);
            } else {
                lock.stage(edge + EDGE_NEXT_OFFSET, edgeLink(node + NODE_HEAD_OFFSET));
                lock.stage(node + NODE_HEAD_OFFSET, edge);
                lock.stage(
                        node + NODE_DEGREE_OFFSET,
                        body.getLongVolatile(node + NODE_DEGREE_OFFSET) + 1);
                lock.stage(EDGE_COUNT_OFFSET, edgeCount0() + 1);
            }
            lock.stage(node + NODE_GENERATION_OFFSET, (generation | 1) + 1);
            lock.commit();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes the edge {@code from → to}.
     *
     * @return whether there was one
     * @throws IllegalArgumentException if either node does not exist
     */
    public boolean removeEdge(int from, int to) {
        countOp(Op.REMOVE_EDGE);
        checkNode("from", from);
        checkNode("to", to);
        lock();
        try {
            int node = nodeSlot(from);
            int previous = 0;
            int edge = edgeLink(node + NODE_HEAD_OFFSET);
            for (int steps = 0; edge != 0 && to(edge) != to; steps++) {
                checkSteps(steps, from);
                previous = edge;
                edge = edgeLink(edge + EDGE_NEXT_OFFSET);
            }
            if (edge == 0) {
                return false;
            }
            long generation = body.getLongVolatile(node + NODE_GENERATION_OFFSET);
            lock.stage(node + NODE_GENERATION_OFFSET, generation | 1);
            lock.stage(
                    previous == 0 ? node + NODE_HEAD_OFFSET : previous + EDGE_NEXT_OFFSET,
                    edgeLink(edge + EDGE_NEXT_OFFSET));
            lock.stage(edge + EDGE_NEXT_OFFSET, edgeLink(FREE_EDGE_OFFSET));
            lock.stage(FREE_EDGE_OFFSET, edge);
            lock.stage(
                    node + NODE_DEGREE_OFFSET,
                    Math.max(0, body.getLongVolatile(node + NODE_DEGREE_OFFSET) - 1));
            lock.stage(EDGE_COUNT_OFFSET, Math.max(0, edgeCount0() - 1));
            lock.stage(node + NODE_GENERATION_OFFSET, (generation | 1) + 1);
            lock.commit();
            return true;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------- reads

    /**
     * The payload of node {@code id}.
     *
     * @throws IllegalArgumentException if the node does not exist
     */
    public N node(int id) {
        passFileCheck();
        FixedCodec<N> c = nodeCodec;
        checkNode("id", id);
        return c.read(body, nodeSlot(id) + NODE_PAYLOAD_OFFSET);
    }

    /**
     * The out-edges of {@code node} as they were at one instant, most recently added first.
     *
     * @throws IllegalArgumentException if the node does not exist
     */
    public List<Edge<E>> neighbors(int node) {
        FixedCodec<E> c = edgeCodec;
        countOp(Op.NEIGHBORS);
        checkNode("node", node);
        int slot = nodeSlot(node);
        List<Edge<E>> out = new ArrayList<>();
        for (int attempt = 0; attempt < OPTIMISTIC_TRIES; attempt++) {
            long before = body.getLongAcquire(slot + NODE_GENERATION_OFFSET);
            if ((before & 1) == 0) {
                out.clear();
                RuntimeException failure = null;
                try {
                    int steps = 0;
                    for (int e = edgeLink(slot + NODE_HEAD_OFFSET);
                            e != 0;
                            e = edgeLink(e + EDGE_NEXT_OFFSET)) {
                        checkSteps(steps++, node);
                        out.add(new Edge<>(node, to(e), c.read(body, e + EDGE_PAYLOAD_OFFSET)));
                    }
                } catch (RuntimeException e) {
                    failure = e; // a torn walk, unless the generation did not move
                }
                VarHandle.acquireFence();
                if (body.getLongVolatile(slot + NODE_GENERATION_OFFSET) == before) {
                    if (failure != null) {
                        throw failure;
                    }
                    return out;
                }
            }
            Thread.onSpinWait();
        }
        lock();
        try {
            out.clear();
            int steps = 0;
            for (int e = edgeLink(slot + NODE_HEAD_OFFSET);
                    e != 0;
                    e = edgeLink(e + EDGE_NEXT_OFFSET)) {
                checkSteps(steps++, node);
                out.add(new Edge<>(node, to(e), c.read(body, e + EDGE_PAYLOAD_OFFSET)));
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The ids {@code node}'s out-edges lead to, without allocating: fills {@code into} with as many
     * as fit and returns how many there are (more than {@code into.length} means it was too short).
     * Counted as a {@code neighbors} op.
     */
    public int neighborIds(int node, int[] into) {
        countOp(Op.NEIGHBORS);
        checkNode("node", node);
        int slot = nodeSlot(node);
        for (int attempt = 0; ; attempt++) {
            long before = body.getLongAcquire(slot + NODE_GENERATION_OFFSET);
            if ((before & 1) == 0) {
                int n = 0;
                boolean torn = false;
                try {
                    for (int e = edgeLink(slot + NODE_HEAD_OFFSET);
                            e != 0;
                            e = edgeLink(e + EDGE_NEXT_OFFSET)) {
                        checkSteps(n, node);
                        if (n < into.length) {
                            into[n] = to(e);
                        }
                        n++;
                    }
                } catch (CxcFormatException e) {
                    torn = true;
                    if (attempt >= OPTIMISTIC_TRIES) {
                        throw e;
                    }
                }
                VarHandle.acquireFence();
                if (!torn && body.getLongVolatile(slot + NODE_GENERATION_OFFSET) == before) {
                    return n;
                }
            }
            if (attempt >= OPTIMISTIC_TRIES) {
                // A dead writer's step stays odd until replayed: take the lock, which replays it.
                lock();
                lock.unlock();
                attempt = 0;
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Out-edges of {@code node}. Read under the node's adjacency generation, as {@link #neighbors}
     * is: a writer stores the degree before the edge count within one step, so a degree read while
     * the generation is odd could count an edge the edge count does not have yet.
     */
    public int outDegree(int node) {
        checkNode("node", node);
        int slot = nodeSlot(node);
        for (int attempt = 0; attempt < OPTIMISTIC_TRIES; attempt++) {
            long before = body.getLongAcquire(slot + NODE_GENERATION_OFFSET);
            if ((before & 1) == 0) {
                long degree = body.getLongAcquire(slot + NODE_DEGREE_OFFSET);
                VarHandle.acquireFence();
                if (body.getLongVolatile(slot + NODE_GENERATION_OFFSET) == before) {
                    return boundedDegree(degree);
                }
            }
            Thread.onSpinWait();
        }
        lock(); // a dead writer's step stays odd until replayed: the lock replays it
        try {
            return boundedDegree(body.getLongVolatile(slot + NODE_DEGREE_OFFSET));
        } finally {
            lock.unlock();
        }
    }

    private int boundedDegree(long degree) {
        return (int) Math.min(Math.max(degree, 0), maxEdges);
    }

    public int nodeCount() {
        long n = body.getLongAcquire(NODE_COUNT_OFFSET);
        if (n < 0 || n > maxNodes) {
            throw new CxcFormatException(
                    what()
                            + ": the stored node count "
                            + n
                            + " is outside 0.."
                            + maxNodes
                            + " (max nodes); the file is corrupt");
        }
        return (int) n;
    }

    public long edgeCount() {
        return edgeCount0();
    }

    public int maxNodes() {
        return maxNodes;
    }

    public int maxEdges() {
        return maxEdges;
    }

    /** PID of the process holding the writer lock now, 0 if none. */
    public long writerPid() {
        return lock.holderPid();
    }

    @Override
    public Map<String, Object> describe() {
        return fields(
                "nodes", body.getLongVolatile(NODE_COUNT_OFFSET),
                "edges", body.getLongVolatile(EDGE_COUNT_OFFSET),
                "maxNodes", maxNodes,
                "maxEdges", maxEdges,
                "writerPid", lock.holderPid(),
                "repairedWrites", lock.repairs());
    }

    /**
     * Checks under the writer lock (so a dead writer's step is replayed first) that every edge slot
     * is on exactly one chain, each out-list holds edges from its node to distinct nodes, and the
     * degrees and counts agree: null if so, else the problem. For tests and tools.
     */
    @Nullable String checkIntegrity() {
        lock();
        try {
            boolean[] seen = new boolean[maxEdges];
            long total = 0;
            int nodes = nodeCount();
            for (int n = 0; n < maxNodes; n++) {
                int slot = nodeSlot(n);
                if ((body.getLongVolatile(slot + NODE_GENERATION_OFFSET) & 1) != 0) {
                    return "node " + n + "'s generation is odd with no step under way";
                }
                long degree = 0;
                java.util.Set<Integer> targets = new java.util.HashSet<>();
                for (int e = edgeLink(slot + NODE_HEAD_OFFSET);
                        e != 0;
                        e = edgeLink(e + EDGE_NEXT_OFFSET)) {
                    int j = (e - edgesOffset) / stride;
                    if (seen[j]) {
                        return "edge slot " + j + " is on two chains";
                    }
                    seen[j] = true;
                    long ends = body.getLongVolatile(e + EDGE_ENDS_OFFSET);
                    if ((int) (ends >>> 32) != n || !targets.add(to(e)) || to(e) >= nodes) {
                        return "edge slot "
                                + j
                                + " on node "
                                + n
                                + "'s list has ends "
                                + Long.toHexString(ends);
                    }
                    degree++;
                }
                if (n >= nodes && degree > 0) {
                    return "node " + n + " does not exist but has edges";
                }
                if (degree != body.getLongVolatile(slot + NODE_DEGREE_OFFSET)) {
                    return "node "
                            + n
                            + " has "
                            + degree
                            + " edges, degree says "
                            + body.getLongVolatile(slot + NODE_DEGREE_OFFSET);
                }
                total += degree;
            }
            if (total != edgeCount0()) {
                return total + " edges on lists, edge count " + edgeCount0();
            }
            for (int e = edgeLink(FREE_EDGE_OFFSET); e != 0; e = edgeLink(e + EDGE_NEXT_OFFSET)) {
                int j = (e - edgesOffset) / stride;
                if (seen[j]) {
                    return "edge slot " + j + " is on two chains";
                }
                seen[j] = true;
                total++;
            }
            return total == maxEdges
                    ? null
                    : total + " edge slots on chains, max edges " + maxEdges;
        } finally {
            lock.unlock();
        }
    }

    // ----------------------------------------------------------------------------- helpers

    private String what() {
        return kind() + " " + file.path();
    }

    private void lock() {
        lock.lock(WRITER_WAIT.toNanos());
    }

    private void checkNode(String argument, int id) {
        int n = nodeCount();
        if (id < 0 || id >= n) {
            throw new IllegalArgumentException(
                    argument
                            + " "
                            + id
                            + " is not a node of "
                            + what()
                            + " (ids 0.."
                            + (n - 1)
                            + ", "
                            + n
                            + " nodes)");
        }
    }

    private void checkSteps(int steps, int node) {
        if (steps >= maxEdges) {
            throw new CxcFormatException(
                    what()
                            + ": node "
                            + node
                            + "'s out-list is longer than max edges "
                            + maxEdges
                            + " (a cycle); the file is corrupt");
        }
    }

    private long edgeCount0() {
        long n = body.getLongAcquire(EDGE_COUNT_OFFSET);
        if (n < 0 || n > maxEdges) {
            throw new CxcFormatException(
                    what()
                            + ": the stored edge count "
                            + n
                            + " is outside 0.."
                            + maxEdges
                            + "; the file is corrupt");
        }
        return n;
    }

    private int nodeSlot(int id) {
        return SLOTS_OFFSET + id * stride;
    }

    private static long ends(int from, int to) {
        return ((long) from << 32) | (to & 0xFFFF_FFFFL);
    }

    private int to(int edge) {
        return (int) body.getLongAcquire(edge + EDGE_ENDS_OFFSET);
    }

    /** The edge offset stored at {@code offset}, checked against the edge area; 0 = none. */
    private int edgeLink(int offset) {
        long edge = body.getLongAcquire(offset);
        if (edge == 0) {
            return 0;
        }
        if (edge < edgesOffset
                || (edge - edgesOffset) % stride != 0
                || (edge - edgesOffset) / stride >= maxEdges) {
            throw new CxcFormatException(
                    what()
                            + ": a link at body offset "
                            + offset
                            + " holds "
                            + edge
                            + ", not an edge offset ("
                            + edgesOffset
                            + " + j * "
                            + stride
                            + ", j below "
                            + maxEdges
                            + "); the file is corrupt");
        }
        return (int) edge;
    }
}
