package io.subetha.cxc.benchmarks;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.collections.SharedLinkedList;
import io.subetha.cxc.collections.SharedVec;
import io.subetha.cxc.graph.SharedGraph;
import io.subetha.cxc.graph.SharedTopologyMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The collections, the graph and the topology map on real mapped files in {@code /dev/shm}, one
 * thread, beside in-process anchors a user would pick instead within one JVM: an {@code ArrayList}
 * under a {@code ReentrantLock} (vec), a {@code ConcurrentLinkedDeque} (list), a map of maps under
 * a {@code ReentrantLock} (graph), a {@code ConcurrentHashMap} of {@code LongAdder}s (topology).
 * The anchors cross no process boundary and survive no crash: they are the in-process floor.
 *
 * <p>Writes are measured as a write and its undo (push + pop, add + remove) so the structure stays
 * at a steady size. The vec holds 32 elements, the graph node measured 8 out-edges.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class StructuresBenchmark {

    private ScratchDirectory directory;
    private SharedVec<Long> vec;
    private SharedLinkedList<Long> list;
    private SharedGraph<Long, Long> graph;
    private SharedTopologyMap topology;

    private final ReentrantLock lock = new ReentrantLock();
    private final List<Long> arrayList = new ArrayList<>();
    private final ConcurrentLinkedDeque<Long> deque = new ConcurrentLinkedDeque<>();
    private final Map<Integer, Map<Integer, Long>> adjacency = new HashMap<>();
    private final ConcurrentHashMap<Long, LongAdder> traffic = new ConcurrentHashMap<>();
    private final int[] ids = new int[16];
    private final Long value = 42L;
    private int tick;

    @Setup(Level.Trial)
    public void create() {
        directory = ScratchDirectory.create();
        vec =
                SharedVec.TYPE.create(
                        directory.resolve("vec.cxc"),
                        new SharedVec.Settings<>(1024, FixedCodec.INT64));
        list =
                SharedLinkedList.TYPE.create(
                        directory.resolve("list.cxc"),
                        new SharedLinkedList.Settings<>(1024, FixedCodec.INT64));
        graph =
                SharedGraph.TYPE.create(
                        directory.resolve("graph.cxc"),
                        new SharedGraph.Settings<>(16, 256, FixedCodec.INT64, FixedCodec.INT64));
        topology =
                SharedTopologyMap.TYPE.create(
                        directory.resolve("topology.cxc"), new SharedTopologyMap.Settings(1024));
        for (long i = 0; i < 32; i++) {
            vec.push(i);
            arrayList.add(i);
            list.pushTail(i);
            deque.addLast(i);
        }
        for (int n = 0; n < 16; n++) {
            graph.addNode((long) n);
            adjacency.put(n, new HashMap<>());
        }
        for (int to = 1; to <= 8; to++) {
            graph.addEdge(0, to, (long) to);
            adjacency.get(0).put(to, (long) to);
        }
    }

    @TearDown(Level.Trial)
    public void remove() {
        vec.close();
        list.close();
        graph.close();
        topology.close();
        directory.close();
    }

    // -------------------------------------------------------------------------------- vec

    @Benchmark
    public Optional<Long> vecPushPop() {
        vec.push(value);
        return vec.pop();
    }

    @Benchmark
    public Long anchorLockedArrayListPushPop() {
        lock.lock();
        try {
            arrayList.add(value);
            return arrayList.remove(arrayList.size() - 1);
        } finally {
            lock.unlock();
        }
    }

    @Benchmark
    public Long vecGet() {
        return vec.get(tick++ & 31);
    }

    @Benchmark
    public Long anchorLockedArrayListGet() {
        lock.lock();
        try {
            return arrayList.get(tick++ & 31);
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------- list

    @Benchmark
    public Optional<Long> listPushTailPopHead() {
        list.pushTail(value);
        return list.popHead();
    }

    @Benchmark
    public Long anchorConcurrentLinkedDequeOfferPoll() {
        deque.offerLast(value);
        return deque.pollFirst();
    }

    // ------------------------------------------------------------------------------ graph

    @Benchmark
    public boolean graphAddRemoveEdge() {
        graph.addEdge(3, 9, value);
        return graph.removeEdge(3, 9);
    }

    @Benchmark
    public Long anchorLockedMapOfMapsAddRemoveEdge() {
        lock.lock();
        try {
            adjacency.get(3).put(9, value);
            return adjacency.get(3).remove(9);
        } finally {
            lock.unlock();
        }
    }

    @Benchmark
    public int graphNeighborIds8() {
        return graph.neighborIds(0, ids);
    }

    @Benchmark
    public List<SharedGraph.Edge<Long>> graphNeighbors8() {
        return graph.neighbors(0);
    }

    @Benchmark
    public List<Integer> anchorLockedMapOfMapsNeighbors8() {
        lock.lock();
        try {
            return new ArrayList<>(adjacency.get(0).keySet());
        } finally {
            lock.unlock();
        }
    }

    // --------------------------------------------------------------------------- topology

    @Benchmark
    public int topologyRecord() {
        int t = tick++;
        topology.record(t & 7, (t >>> 3) & 7, 1);
        return t;
    }

    @Benchmark
    public int anchorConcurrentHashMapLongAdderRecord() {
        int t = tick++;
        long key = ((long) (t & 7) << 32) | ((t >>> 3) & 7);
        traffic.computeIfAbsent(key, k -> new LongAdder()).add(1);
        return t;
    }
}
