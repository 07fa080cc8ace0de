package io.subetha.cxc.graph;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.testing.Linearizability;
import io.subetha.cxc.testing.ProcessHandles;
import java.util.ArrayList;
import java.util.List;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * The graph's writes and reads are linearizable across handles on one file: every concurrent
 * history is one a single-threaded adjacency list ({@link Model}) could produce, out-degrees and
 * the edge count included. Each file starts with {@link #NODES} nodes so that edges can be added
 * from the first operation; one more node fits, and {@link #MAX_EDGES} edges, so that both limits
 * are reached.
 */
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "node", gen = IntGen.class, conf = "0:2")
@Param(name = "payload", gen = IntGen.class, conf = "1:9")
public class SharedGraphLinearizabilityTest {

    private static final int NODES = 3;
    private static final int MAX_EDGES = 3;

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final SharedGraph.Settings SETTINGS =
            new SharedGraph.Settings(NODES + 1, MAX_EDGES, FixedCodec.INT64, FixedCodec.INT64);

    private final ProcessHandles<SharedGraph<Long, Long>> graphs =
            ProcessHandles.on(
                    "graph",
                    path -> {
                        SharedGraph<Long, Long> graph = SharedGraph.TYPE.create(path, SETTINGS);
                        for (long n = 0; n < NODES; n++) {
                            graph.addNode(n);
                        }
                        return graph;
                    },
                    path -> SharedGraph.TYPE.open(path, SETTINGS));

    /** The new node's id, or -1 if the graph was full. */
    @Operation
    public int addNode(@Param(name = "thread") int thread, @Param(name = "payload") int payload) {
        try {
            return graphs.of(thread).addNode((long) payload);
        } catch (CxcCapacityException full) {
            return -1;
        }
    }

    /** Whether the edge was added or its payload replaced; false if the graph was full. */
    @Operation
    public boolean addEdge(
            @Param(name = "thread") int thread,
            @Param(name = "node") int from,
            @Param(name = "node") int to,
            @Param(name = "payload") int payload) {
        try {
            graphs.of(thread).addEdge(from, to, (long) payload);
            return true;
        } catch (CxcCapacityException full) {
            return false;
        }
    }

    @Operation
    public boolean removeEdge(
            @Param(name = "thread") int thread,
            @Param(name = "node") int from,
            @Param(name = "node") int to) {
        return graphs.of(thread).removeEdge(from, to);
    }

    @Operation
    public List<SharedGraph.Edge<Long>> neighbors(
            @Param(name = "thread") int thread, @Param(name = "node") int node) {
        return graphs.of(thread).neighbors(node);
    }

    @Operation
    public int outDegree(@Param(name = "thread") int thread, @Param(name = "node") int node) {
        return graphs.of(thread).outDegree(node);
    }

    @Operation
    public long edgeCount(@Param(name = "thread") int thread) {
        return graphs.of(thread).edgeCount();
    }

    @Operation
    public int nodeCount(@Param(name = "thread") int thread) {
        return graphs.of(thread).nodeCount();
    }

    @Test
    void stress() {
        Linearizability.stress().sequentialSpecification(Model.class).check(getClass());
    }

    @Test
    void modelChecking() {
        Linearizability.modelChecking().sequentialSpecification(Model.class).check(getClass());
    }

    /** Out-lists, most recently added first; a replaced edge keeps its place. */
    public static final class Model {
        private final List<List<SharedGraph.Edge<Long>>> out = new ArrayList<>();
        private int edges;

        public Model() {
            for (int n = 0; n < NODES; n++) {
                out.add(new ArrayList<>());
            }
        }

        public int addNode(int thread, int payload) {
            if (out.size() == NODES + 1) {
                return -1;
            }
            out.add(new ArrayList<>());
            return out.size() - 1;
        }

        public boolean addEdge(int thread, int from, int to, int payload) {
            if (edges == MAX_EDGES) {
                return false; // even a replacement takes a free edge first
            }
            List<SharedGraph.Edge<Long>> list = out.get(from);
            SharedGraph.Edge<Long> edge = new SharedGraph.Edge<>(from, to, (long) payload);
            for (int i = 0; i < list.size(); i++) {
                if (list.get(i).to() == to) {
                    list.set(i, edge);
                    return true;
                }
            }
            list.add(0, edge);
            edges++;
            return true;
        }

        public boolean removeEdge(int thread, int from, int to) {
            if (out.get(from).removeIf(e -> e.to() == to)) {
                edges--;
                return true;
            }
            return false;
        }

        public List<SharedGraph.Edge<Long>> neighbors(int thread, int node) {
            return new ArrayList<>(out.get(node));
        }

        public int outDegree(int thread, int node) {
            return out.get(node).size();
        }

        public long edgeCount(int thread) {
            return edges;
        }

        public int nodeCount(int thread) {
            return out.size();
        }
    }
}
