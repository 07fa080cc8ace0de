package io.subetha.cxc.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.PrimitiveView;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedGraphTest {

    /** Both halves equal: a reader seeing them differ saw a half-written edge. */
    record Twin(long a, long b) {}

    @TempDir Path dir;

    SharedGraph<String, Long> graph(int nodes, int edges) {
        return SharedGraph.TYPE.create(
                dir.resolve("g.cxc"),
                new SharedGraph.Settings<>(nodes, edges, FixedCodec.string(12), FixedCodec.INT64));
    }

    @Test
    void randomOpsFollowTheModelAndRemovedEdgesAreReused() {
        try (SharedGraph<String, Long> graph = graph(6, 36)) {
            for (int i = 0; i < 6; i++) {
                assertThat(graph.addNode("n" + i)).isEqualTo(i);
            }
            GraphModel.Model model = new GraphModel.Model();
            Random random = new Random(7);
            for (long k = 0; k < 5_000; k++) {
                int from = random.nextInt(6);
                int to = random.nextInt(6);
                if (random.nextBoolean()) {
                    graph.addEdge(from, to, k);
                    model.add(from, to, k);
                } else {
                    assertThat(graph.removeEdge(from, to)).isEqualTo(model.remove(from, to));
                }
            }
            assertThat(graph.checkIntegrity()).isNull();
            assertThat(GraphModel.snapshot(graph)).isEqualTo(model.edges);
            int[] ids = new int[6];
            int n = graph.neighborIds(2, ids);
            assertThat(n).isEqualTo(graph.outDegree(2)).isEqualTo(graph.neighbors(2).size());
            assertThat(graph.node(5)).isEqualTo("n5");
            assertThat(graph.opCounts()).containsEntry("add_node", 6L);
        }
    }

    @Test
    void fullNodesOrEdgesAreCapacityExceptionsAndReplacingAnEdgeNeedsNoRoom() {
        try (SharedGraph<String, Long> graph = graph(2, 2)) {
            graph.addNode("a");
            graph.addNode("b");
            assertThatThrownBy(() -> graph.addNode("c"))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("maxNodes 2");
            graph.addEdge(0, 1, 1L);
            graph.addEdge(1, 0, 2L);
            assertThatThrownBy(() -> graph.addEdge(0, 0, 3L))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("maxEdges 2");
            // A full graph still has the free spare? No: replacing takes a free edge first.
            assertThat(graph.removeEdge(1, 0)).isTrue();
            graph.addEdge(0, 1, 9L);
            assertThat(graph.neighbors(0)).containsExactly(new SharedGraph.Edge<>(0, 1, 9L));
            assertThat(graph.edgeCount()).isEqualTo(1);
            assertThat(graph.checkIntegrity()).isNull();
        }
    }

    @Test
    void badArgumentsNameTheValueAndTheLimit() {
        try (SharedGraph<String, Long> graph = graph(4, 4)) {
            graph.addNode("a");
            assertThatThrownBy(() -> graph.addEdge(0, 3, 1L))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("to 3 is not a node")
                    .hasMessageContaining("1 nodes");
            assertThatThrownBy(() -> graph.neighbors(-1)).hasMessageContaining("node -1");
            assertThatThrownBy(() -> graph.node(1)).hasMessageContaining("id 1");
        }
        assertThatThrownBy(
                        () ->
                                SharedGraph.TYPE.create(
                                        dir.resolve("x.cxc"),
                                        new SharedGraph.Settings<>(
                                                0, 4, FixedCodec.INT8, FixedCodec.INT8)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("maxNodes 0");
    }

    @Test
    void anotherShapeOrCodecIsRefusedOnOpenAndAnObserverCanDescribe() throws Exception {
        Path path = dir.resolve("g.cxc");
        graph(4, 8).close();
        assertThatThrownBy(
                        () ->
                                SharedGraph.open(
                                        path,
                                        new SharedGraph.Settings<>(
                                                4, 8, FixedCodec.string(12), FixedCodec.INT32)))
                .isInstanceOf(CxcFormatException.class);
        assertThatThrownBy(
                        () ->
                                SharedGraph.open(
                                        path,
                                        new SharedGraph.Settings<>(
                                                5, 7, FixedCodec.string(12), FixedCodec.INT64)))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("maxNodes 4 and maxEdges 8");
        // Another total of slots: the header's check, still told in the graph's own terms.
        byte[] before = Files.readAllBytes(path);
        assertThatThrownBy(
                        () ->
                                SharedGraph.openOrCreate(
                                        path,
                                        new SharedGraph.Settings<>(
                                                4, 9, FixedCodec.string(12), FixedCodec.INT64)))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("created with maxNodes 4 and maxEdges 8")
                .hasMessageContaining("expecting maxNodes 4 and maxEdges 9");
        assertThat(Files.readAllBytes(path)).isEqualTo(before);
        try (PrimitiveView view = SharedGraph.TYPE.observe(path, CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("maxEdges", 8).containsEntry("nodes", 0L);
        }
    }

    @Test
    void aLinkOutsideTheEdgeAreaIsAFormatError() {
        Path path = dir.resolve("g.cxc");
        try (SharedGraph<String, Long> graph = graph(2, 2)) {
            graph.addNode("a");
            graph.addEdge(0, 0, 1L);
        }
        RawBody.of(path)
                .setLongVolatile(
                        SharedGraphDescriptor.SLOTS_OFFSET + SharedGraphDescriptor.NODE_HEAD_OFFSET,
                        8);
        try (SharedGraph<String, Long> graph =
                SharedGraph.open(
                        path,
                        new SharedGraph.Settings<>(
                                2, 2, FixedCodec.string(12), FixedCodec.INT64))) {
            assertThatThrownBy(() -> graph.neighbors(0))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("holds 8");
        }
    }

    @Test
    void readersNeverSeeAHalfAddedEdgeOrAFreedEdgeReusedUnderThem() throws Exception {
        FixedCodec<Twin> codec = FixedCodec.record(Twin.class);
        try (SharedGraph<Integer, Twin> graph =
                SharedGraph.TYPE.create(
                        dir.resolve("t.cxc"),
                        new SharedGraph.Settings<>(4, 8, FixedCodec.INT32, codec))) {
            for (int i = 0; i < 4; i++) {
                graph.addNode(i);
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            // The writer moves edges between nodes: a removed edge is at once reused elsewhere.
            Thread writer =
                    new Thread(
                            () -> {
                                for (long k = 0; k < 30_000; k++) {
                                    int from = (int) (k % 4);
                                    int to = (int) ((k / 4) % 4);
                                    graph.removeEdge(from, to);
                                    // The payload names its node: an edge read from another
                                    // node's list (reused under the reader) would show it.
                                    long mark = k * 4 + (from + 1) % 4;
                                    graph.addEdge((from + 1) % 4, to, new Twin(mark, mark));
                                }
                                stop.set(true);
                            });
            Thread reader =
                    new Thread(
                            () -> {
                                int[] ids = new int[8];
                                while (!stop.get()) {
                                    for (int n = 0; n < 4; n++) {
                                        List<Integer> targets = new ArrayList<>();
                                        for (SharedGraph.Edge<Twin> e : graph.neighbors(n)) {
                                            if (e.from() != n
                                                    || e.payload().a() != e.payload().b()
                                                    || e.payload().a() % 4 != n) {
                                                failure.set(new AssertionError("torn " + e));
                                            }
                                            if (targets.contains(e.to())) {
                                                failure.set(
                                                        new AssertionError(
                                                                "two edges " + n + "->" + e.to()));
                                            }
                                            targets.add(e.to());
                                        }
                                        if (graph.neighborIds(n, ids) > 4) {
                                            failure.set(new AssertionError("more than 4 targets"));
                                        }
                                    }
                                }
                            });
            reader.start();
            writer.start();
            writer.join();
            reader.join();
            assertThat(failure.get()).isNull();
            assertThat(graph.checkIntegrity()).isNull();
        }
    }
}
