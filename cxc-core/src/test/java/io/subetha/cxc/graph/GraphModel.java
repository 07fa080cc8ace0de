package io.subetha.cxc.graph;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/** The scripted edge operations both a child JVM and its test replay, and the sequential model. */
final class GraphModel {

    interface Add {
        void add(int from, int to, Long payload);
    }

    interface Remove {
        boolean remove(int from, int to);
    }

    private GraphModel() {}

    static void ops(Random random, int count, int nodes, int parity, Add add, Remove remove) {
        for (int i = 0; i < count; i++) {
            ops(random, 1, nodes, parity, add, remove, random.nextLong() & Long.MAX_VALUE);
        }
    }

    /**
     * One op (count 1) with {@code payload}: from and to drawn from {@code nodes}, to forced to
     * {@code parity} (-1: any); a third of them removes.
     */
    static void ops(
            Random random, int count, int nodes, int parity, Add add, Remove remove, long payload) {
        int from = random.nextInt(nodes);
        int to = random.nextInt(nodes);
        if (parity >= 0 && to % 2 != parity) {
            to = (to + 1) % nodes;
        }
        if (random.nextInt(3) == 0) {
            remove.remove(from, to);
        } else {
            add.add(from, to, payload);
        }
    }

    /** The model: (from, to) → payload. */
    static final class Model {
        final Map<Long, Long> edges = new TreeMap<>();

        void add(int from, int to, Long payload) {
            edges.put(key(from, to), payload);
        }

        boolean remove(int from, int to) {
            return edges.remove(key(from, to)) != null;
        }

        static long key(int from, int to) {
            return ((long) from << 32) | to;
        }
    }

    static Map<Long, Long> snapshot(SharedGraph<?, Long> graph) {
        Map<Long, Long> edges = new TreeMap<>();
        for (int n = 0; n < graph.nodeCount(); n++) {
            for (SharedGraph.Edge<Long> e : graph.neighbors(n)) {
                if (edges.put(Model.key(e.from(), e.to()), e.payload()) != null) {
                    throw new AssertionError("edge " + e + " listed twice");
                }
            }
        }
        return edges;
    }
}
