package io.subetha.cxc.graph;

import static io.subetha.cxc.testing.ChildServer.say;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.testing.ChildServer;
import io.subetha.cxc.testing.PointFreeze;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A child JVM for the graph's process tests: served by {@link ChildServer}. Nodes are {@code
 * string(16)}, edges INT64.
 *
 * <pre>
 * graph-open PATH NODES EDGES     ok
 * add-nodes COUNT NAME            ids I,I,...
 * park-at POINT N                 ok   (parks the N-th time this process passes POINT: "parked POINT")
 * ops SEED COUNT PARITY           done (GraphModel.ops: only edges whose target has this parity)
 * ops-forever SEED                running, then progress K every 200 ops (never answers)
 * neighbors NODE                  edges TO:PAYLOAD,...
 * topo-open PATH CAPACITY         ok
 * topo-script COUNT               done (record i % 4 -> i % 5, load 1 + i % 3, for i below COUNT)
 * topo-forever                    running (records the script over and over, never answers)
 * </pre>
 */
public final class GraphChild {

    private static SharedGraph<String, Long> graph;
    private static SharedTopologyMap topology;

    private GraphChild() {}

    public static void main(String[] args) {
        new ChildServer()
                .on(
                        "graph-open",
                        w -> {
                            graph =
                                    SharedGraph.openOrCreate(
                                            Path.of(w[1]),
                                            new SharedGraph.Settings<>(
                                                    Integer.parseInt(w[2]),
                                                    Integer.parseInt(w[3]),
                                                    FixedCodec.string(16),
                                                    FixedCodec.INT64));
                            return "ok";
                        })
                .on(
                        "add-nodes",
                        w -> {
                            List<String> ids = new ArrayList<>();
                            for (int i = 0; i < Integer.parseInt(w[1]); i++) {
                                ids.add(Integer.toString(graph.addNode(w[2] + i)));
                            }
                            return "ids " + String.join(",", ids);
                        })
                .on(
                        "park-at",
                        w -> {
                            Point point = Point.valueOf(w[1]);
                            int n = Integer.parseInt(w[2]);
                            PointFreeze.install(point, n, "parked");
                            return "ok";
                        })
                .on(
                        "ops",
                        w -> {
                            GraphModel.ops(
                                    new Random(Long.parseLong(w[1])),
                                    Integer.parseInt(w[2]),
                                    graph.nodeCount(),
                                    Integer.parseInt(w[3]),
                                    graph::addEdge,
                                    graph::removeEdge);
                            return "done";
                        })
                .on(
                        "ops-forever",
                        w -> {
                            say("running");
                            Random random = new Random(Long.parseLong(w[1]));
                            for (long k = 1; ; k++) {
                                GraphModel.ops(
                                        random,
                                        1,
                                        graph.nodeCount(),
                                        -1,
                                        graph::addEdge,
                                        graph::removeEdge,
                                        k);
                                if (k % 200 == 0) {
                                    say("progress " + k);
                                }
                            }
                        })
                .on(
                        "neighbors",
                        w -> {
                            List<String> edges = new ArrayList<>();
                            for (SharedGraph.Edge<Long> e :
                                    graph.neighbors(Integer.parseInt(w[1]))) {
                                edges.add(e.to() + ":" + e.payload());
                            }
                            return "edges " + String.join(",", edges);
                        })
                .on(
                        "topo-open",
                        w -> {
                            topology =
                                    SharedTopologyMap.openOrCreate(
                                            Path.of(w[1]),
                                            new SharedTopologyMap.Settings(Integer.parseInt(w[2])));
                            return "ok";
                        })
                .on(
                        "topo-script",
                        w -> {
                            script(topology, Integer.parseInt(w[1]));
                            return "done";
                        })
                .on(
                        "topo-forever",
                        w -> {
                            say("running");
                            while (true) {
                                script(topology, 1000);
                            }
                        })
                .serve();
    }

    static void script(SharedTopologyMap map, int count) {
        for (int i = 0; i < count; i++) {
            map.record(i % 4, i % 5, 1 + i % 3);
        }
    }
}
