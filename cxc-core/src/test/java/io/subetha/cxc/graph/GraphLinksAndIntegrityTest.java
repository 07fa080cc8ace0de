package io.subetha.cxc.graph;

import static io.subetha.cxc.graph.SharedGraphDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.graph.SharedGraph.Edge;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.primitive.PrimitiveView;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The graph's chains word by word: the free chain a new file starts with, the links each add,
 * replace and remove leaves (head and middle of a list), every kind of damage {@code
 * checkIntegrity()} names, stored counts and links checked before they are followed (below, between
 * and past the edge slots, a cycle), the stored shape an opener checks, and what {@code describe()}
 * and the op counters say.
 */
class GraphLinksAndIntegrityTest {

    static final int STRIDE = stride(8, 8);
    static final int MAX_NODES = 4;
    static final int MAX_EDGES = 6;
    static final int EDGES = SLOTS_OFFSET + MAX_NODES * STRIDE;

    @TempDir Path dir;

    Path path() {
        return dir.resolve("g.cxc");
    }

    SharedGraph<Long, Long> graph() {
        SharedGraph<Long, Long> g =
                SharedGraph.TYPE.create(
                        path(),
                        new SharedGraph.Settings<>(
                                MAX_NODES, MAX_EDGES, FixedCodec.INT64, FixedCodec.INT64));
        g.addNode(100L);
        g.addNode(101L);
        g.addNode(102L);
        return g;
    }

    static int node(int id) {
        return SLOTS_OFFSET + id * STRIDE;
    }

    static int edge(int j) {
        return EDGES + j * STRIDE;
    }

    @Test
    void aNewFileChainsEveryEdgeSlotOnTheFreeList() {
        try (SharedGraph<Long, Long> g = graph()) {
            AtomicBuffer raw = RawBody.of(path());
            assertThat(raw.getLongVolatile(FREE_EDGE_OFFSET)).isEqualTo(edge(0));
            for (int j = 0; j + 1 < MAX_EDGES; j++) {
                assertThat(raw.getLongVolatile(edge(j) + EDGE_NEXT_OFFSET)).isEqualTo(edge(j + 1));
            }
            assertThat(raw.getLongVolatile(edge(MAX_EDGES - 1) + EDGE_NEXT_OFFSET)).isZero();
            assertThat(raw.getIntVolatile(MAX_NODES_OFFSET)).isEqualTo(MAX_NODES);
            assertThat(raw.getIntVolatile(MAX_EDGES_OFFSET)).isEqualTo(MAX_EDGES);
            assertThat(raw.getLongVolatile(NODE_COUNT_OFFSET)).isEqualTo(3);
            assertThat(g.node(2)).isEqualTo(102L);
            assertThat(g.checkIntegrity()).isNull();
        }
    }

    @Test
    void eachWriteLeavesTheLinksItStaged() {
        try (SharedGraph<Long, Long> g = graph()) {
            AtomicBuffer raw = RawBody.of(path());
            g.addEdge(0, 1, 10L);
            assertThat(raw.getLongVolatile(node(0) + NODE_HEAD_OFFSET)).isEqualTo(edge(0));
            assertThat(raw.getLongVolatile(edge(0) + EDGE_ENDS_OFFSET)).isEqualTo(1L);
            assertThat(raw.getLongVolatile(edge(0) + EDGE_NEXT_OFFSET)).isZero();
            assertThat(raw.getLongVolatile(FREE_EDGE_OFFSET)).isEqualTo(edge(1));
            assertThat(raw.getLongVolatile(node(0) + NODE_DEGREE_OFFSET)).isEqualTo(1);
            assertThat(raw.getLongVolatile(EDGE_COUNT_OFFSET)).isEqualTo(1);
            assertThat(raw.getLongVolatile(node(0) + NODE_GENERATION_OFFSET)).isEqualTo(2);
            g.addEdge(0, 2, 20L);
            assertThat(raw.getLongVolatile(node(0) + NODE_HEAD_OFFSET)).isEqualTo(edge(1));
            assertThat(raw.getLongVolatile(edge(1) + EDGE_NEXT_OFFSET)).isEqualTo(edge(0));
            assertThat(raw.getLongVolatile(node(0) + NODE_GENERATION_OFFSET)).isEqualTo(4);
            g.addEdge(2, 0, 30L);
            assertThat(raw.getLongVolatile(edge(2) + EDGE_ENDS_OFFSET)).isEqualTo((2L << 32));
            // Replacing the list's last edge (0 -> 1): a new slot takes its place in the chain,
            // the old one goes to the head of the free list.
            g.addEdge(0, 1, 11L);
            assertThat(raw.getLongVolatile(edge(1) + EDGE_NEXT_OFFSET)).isEqualTo(edge(3));
            assertThat(raw.getLongVolatile(edge(3) + EDGE_NEXT_OFFSET)).isZero();
            assertThat(raw.getLongVolatile(FREE_EDGE_OFFSET)).isEqualTo(edge(0));
            assertThat(raw.getLongVolatile(edge(0) + EDGE_NEXT_OFFSET)).isEqualTo(edge(4));
            assertThat(raw.getLongVolatile(node(0) + NODE_DEGREE_OFFSET)).isEqualTo(2);
            assertThat(g.edgeCount()).isEqualTo(3);
            assertThat(g.neighbors(0))
                    .containsExactly(new Edge<>(0, 2, 20L), new Edge<>(0, 1, 11L));
            assertThat(g.checkIntegrity()).isNull();
            // Replacing the head (0 -> 2).
            g.addEdge(0, 2, 21L);
            assertThat(raw.getLongVolatile(node(0) + NODE_HEAD_OFFSET)).isEqualTo(edge(0));
            assertThat(raw.getLongVolatile(edge(0) + EDGE_NEXT_OFFSET)).isEqualTo(edge(3));
            assertThat(raw.getLongVolatile(FREE_EDGE_OFFSET)).isEqualTo(edge(1));
            assertThat(g.checkIntegrity()).isNull();
            // Removing the list's last edge (0 -> 1): its predecessor's link, not the head.
            assertThat(g.removeEdge(0, 1)).isTrue();
            assertThat(raw.getLongVolatile(node(0) + NODE_HEAD_OFFSET)).isEqualTo(edge(0));
            assertThat(raw.getLongVolatile(edge(0) + EDGE_NEXT_OFFSET)).isZero();
            assertThat(raw.getLongVolatile(FREE_EDGE_OFFSET)).isEqualTo(edge(3));
            assertThat(raw.getLongVolatile(edge(3) + EDGE_NEXT_OFFSET)).isEqualTo(edge(1));
            assertThat(raw.getLongVolatile(node(0) + NODE_DEGREE_OFFSET)).isEqualTo(1);
            assertThat(g.removeEdge(0, 1)).isFalse();
            assertThat(g.removeEdge(1, 0)).isFalse();
            // Removing the head.
            assertThat(g.removeEdge(0, 2)).isTrue();
            assertThat(raw.getLongVolatile(node(0) + NODE_HEAD_OFFSET)).isZero();
            assertThat(g.outDegree(0)).isZero();
            assertThat(g.edgeCount()).isEqualTo(1);
            assertThat(raw.getLongVolatile(node(0) + NODE_GENERATION_OFFSET)).isEqualTo(12);
            assertThat(g.checkIntegrity()).isNull();
            assertThat(g.opCounters().get(SharedGraph.Op.ADD_EDGE)).isEqualTo(5);
            assertThat(g.opCounters().get(SharedGraph.Op.REMOVE_EDGE)).isEqualTo(4);
            assertThat(g.opCounters().get(SharedGraph.Op.ADD_NODE)).isEqualTo(3);
            assertThat(g.opCounters().get(SharedGraph.Op.NEIGHBORS)).isEqualTo(1);
        }
    }

    @Test
    void theIntegrityCheckNamesEachKindOfDamage() {
        try (SharedGraph<Long, Long> g = graph()) {
            AtomicBuffer raw = RawBody.of(path());
            g.addEdge(0, 1, 1L); // edge 0
            g.addEdge(0, 2, 2L); // edge 1, the head
            g.addEdge(1, 2, 3L); // edge 2
            assertThat(g.checkIntegrity()).isNull();

            raw.setLongVolatile(node(1) + NODE_GENERATION_OFFSET, 3);
            assertThat(g.checkIntegrity())
                    .isEqualTo("node 1's generation is odd with no step under way");
            raw.setLongVolatile(node(1) + NODE_GENERATION_OFFSET, 2);

            raw.setLongVolatile(node(0) + NODE_DEGREE_OFFSET, 5);
            assertThat(g.checkIntegrity()).isEqualTo("node 0 has 2 edges, degree says 5");
            assertThat(g.outDegree(0)).isEqualTo(5);
            raw.setLongVolatile(node(0) + NODE_DEGREE_OFFSET, 99);
            assertThat(g.outDegree(0)).isEqualTo(MAX_EDGES);
            raw.setLongVolatile(node(0) + NODE_DEGREE_OFFSET, -3);
            assertThat(g.outDegree(0)).isZero();
            raw.setLongVolatile(node(0) + NODE_DEGREE_OFFSET, 2);

            raw.setLongVolatile(EDGE_COUNT_OFFSET, 2);
            assertThat(g.checkIntegrity()).isEqualTo("3 edges on lists, edge count 2");
            raw.setLongVolatile(EDGE_COUNT_OFFSET, 3);

            long ends = raw.getLongVolatile(edge(0) + EDGE_ENDS_OFFSET);
            raw.setLongVolatile(edge(0) + EDGE_ENDS_OFFSET, (1L << 32) | 1);
            assertThat(g.checkIntegrity())
                    .isEqualTo("edge slot 0 on node 0's list has ends 100000001");
            raw.setLongVolatile(edge(0) + EDGE_ENDS_OFFSET, 2); // a second edge 0 -> 2
            assertThat(g.checkIntegrity()).isEqualTo("edge slot 0 on node 0's list has ends 2");
            raw.setLongVolatile(edge(0) + EDGE_ENDS_OFFSET, 3); // to a node not yet added
            assertThat(g.checkIntegrity()).isEqualTo("edge slot 0 on node 0's list has ends 3");
            raw.setLongVolatile(edge(0) + EDGE_ENDS_OFFSET, ends);

            raw.setLongVolatile(node(1) + NODE_HEAD_OFFSET, edge(0));
            assertThat(g.checkIntegrity()).isEqualTo("edge slot 0 is on two chains");
            raw.setLongVolatile(node(1) + NODE_HEAD_OFFSET, edge(2));

            // Node 3 does not exist: a free slot (the chain's last) hung on it.
            long free = raw.getLongVolatile(FREE_EDGE_OFFSET);
            assertThat(free).isEqualTo(edge(3));
            raw.setLongVolatile(edge(5) + EDGE_ENDS_OFFSET, 3L << 32);
            raw.setLongVolatile(node(3) + NODE_HEAD_OFFSET, edge(5));
            assertThat(g.checkIntegrity()).isEqualTo("node 3 does not exist but has edges");
            raw.setLongVolatile(node(3) + NODE_HEAD_OFFSET, 0);

            raw.setLongVolatile(FREE_EDGE_OFFSET, edge(4));
            assertThat(g.checkIntegrity()).isEqualTo("5 edge slots on chains, max edges 6");
            raw.setLongVolatile(FREE_EDGE_OFFSET, edge(2));
            assertThat(g.checkIntegrity()).isEqualTo("edge slot 2 is on two chains");
            raw.setLongVolatile(FREE_EDGE_OFFSET, free);
            assertThat(g.checkIntegrity()).isNull();
        }
    }

    @Test
    void storedCountsAndLinksAreCheckedBeforeTheyAreFollowed() {
        try (SharedGraph<Long, Long> g = graph()) {
            AtomicBuffer raw = RawBody.of(path());
            g.addEdge(0, 1, 1L);
            raw.setLongVolatile(NODE_COUNT_OFFSET, MAX_NODES + 1);
            assertThatThrownBy(g::nodeCount)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("the stored node count 5 is outside 0..4 (max nodes)");
            raw.setLongVolatile(NODE_COUNT_OFFSET, -1);
            assertThatThrownBy(g::nodeCount).hasMessageContaining("node count -1 is outside");
            raw.setLongVolatile(NODE_COUNT_OFFSET, MAX_NODES);
            assertThat(g.nodeCount()).isEqualTo(MAX_NODES);
            raw.setLongVolatile(NODE_COUNT_OFFSET, 3);
            raw.setLongVolatile(EDGE_COUNT_OFFSET, MAX_EDGES + 1);
            assertThatThrownBy(g::edgeCount)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("the stored edge count 7 is outside 0..6");
            raw.setLongVolatile(EDGE_COUNT_OFFSET, -1);
            assertThatThrownBy(g::edgeCount).hasMessageContaining("edge count -1 is outside");
            raw.setLongVolatile(EDGE_COUNT_OFFSET, MAX_EDGES);
            assertThat(g.edgeCount()).isEqualTo(MAX_EDGES);
            raw.setLongVolatile(EDGE_COUNT_OFFSET, 1);

            long[] bad = {EDGES - STRIDE, EDGES + 8, edge(MAX_EDGES)};
            for (long link : bad) {
                raw.setLongVolatile(node(0) + NODE_HEAD_OFFSET, link);
                assertThatThrownBy(() -> g.neighbors(0))
                        .as("link %d", link)
                        .isInstanceOf(CxcFormatException.class)
                        .hasMessageContaining(
                                "a link at body offset "
                                        + (node(0) + NODE_HEAD_OFFSET)
                                        + " holds "
                                        + link)
                        .hasMessageContaining(
                                "not an edge offset ("
                                        + EDGES
                                        + " + j * "
                                        + STRIDE
                                        + ", j below 6)");
                assertThatThrownBy(() -> g.neighborIds(0, new int[4]))
                        .isInstanceOf(CxcFormatException.class);
            }
            raw.setLongVolatile(node(0) + NODE_HEAD_OFFSET, edge(MAX_EDGES - 1));
            raw.setLongVolatile(edge(MAX_EDGES - 1) + EDGE_NEXT_OFFSET, edge(MAX_EDGES - 1));
            raw.setLongVolatile(edge(MAX_EDGES - 1) + EDGE_ENDS_OFFSET, 2);
            assertThatThrownBy(() -> g.neighbors(0))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("node 0's out-list is longer than max edges 6 (a cycle)");
            assertThatThrownBy(() -> g.neighborIds(0, new int[1]))
                    .hasMessageContaining("(a cycle)");
        }
    }

    @Test
    void neighborIdsFillsWhatFitsAndCountsEveryOne() {
        try (SharedGraph<Long, Long> g = graph()) {
            g.addEdge(1, 0, 1L);
            g.addEdge(1, 2, 2L);
            g.addEdge(1, 1, 3L);
            int[] two = {-1, -1};
            assertThat(g.neighborIds(1, two)).isEqualTo(3);
            assertThat(two).containsExactly(1, 2);
            int[] four = {-1, -1, -1, -1};
            assertThat(g.neighborIds(1, four)).isEqualTo(3);
            assertThat(four).containsExactly(1, 2, 0, -1);
            assertThat(g.neighborIds(0, new int[0])).isZero();
            assertThat(g.opCounters().get(SharedGraph.Op.NEIGHBORS)).isEqualTo(3);
            assertThatThrownBy(() -> g.neighborIds(3, four))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "node 3 is not a node of "
                                    + g.kind()
                                    + " "
                                    + path()
                                    + " (ids 0..2, 3 nodes)");
        }
    }

    @Test
    void anOpenerChecksTheStoredShapeAgainstTheHeader() {
        graph().close();
        AtomicBuffer raw = RawBody.of(path());
        int[][] counts = {{0, MAX_EDGES}, {MAX_NODES, 0}, {MAX_NODES + 1, MAX_EDGES}};
        for (int[] c : counts) {
            raw.setIntVolatile(MAX_NODES_OFFSET, c[0]);
            raw.setIntVolatile(MAX_EDGES_OFFSET, c[1]);
            assertThatThrownBy(() -> SharedGraph.TYPE.observe(path(), CxcFileOptions.defaults()))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining(
                            "max nodes "
                                    + c[0]
                                    + " and max edges "
                                    + c[1]
                                    + " do not add up to the header's 10 slots");
        }
        raw.setIntVolatile(MAX_NODES_OFFSET, MAX_NODES);
        raw.setIntVolatile(MAX_EDGES_OFFSET, MAX_EDGES);
        int[][] sizes = {{0, 8}, {8, 0}, {9, 8}, {8, 17}};
        for (int[] s : sizes) {
            raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET, s[0]);
            raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET + 4, s[1]);
            assertThatThrownBy(() -> SharedGraph.TYPE.observe(path(), CxcFileOptions.defaults()))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining(
                            "payload sizes "
                                    + s[0]
                                    + " and "
                                    + s[1]
                                    + " bytes do not give the header's slot size 32");
        }
        raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET, 1);
        raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET + 4, 1);
        try (PrimitiveView view = SharedGraph.TYPE.observe(path(), CxcFileOptions.defaults())) {
            assertThat(view.describe())
                    .containsEntry("nodes", 3L)
                    .containsEntry("edges", 0L)
                    .containsEntry("maxNodes", MAX_NODES)
                    .containsEntry("maxEdges", MAX_EDGES)
                    .containsEntry("writerPid", 0L)
                    .containsEntry("repairedWrites", 0L);
        }
        raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET, 8);
        raw.setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET + 4, 8);
        // Same total of slots, another split: the graph's own terms, the file closed again.
        assertThatThrownBy(
                        () ->
                                SharedGraph.open(
                                        path(),
                                        new SharedGraph.Settings<>(
                                                3, 7, FixedCodec.INT64, FixedCodec.INT64)))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessage(
                        path()
                                + " was created with maxNodes 4 and maxEdges 6, but was opened"
                                + " expecting maxNodes 3 and maxEdges 7; open it with those, or"
                                + " give the new capacity a new file");
    }

    @Test
    void settingsAndTheLayoutsLimitsAreNamed() {
        FixedCodec<Long> c = FixedCodec.INT64;
        assertThatThrownBy(() -> new SharedGraph.Settings<>(1, 0, c, c))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessage("maxEdges 0 is outside 1.." + SharedGraphDescriptor.MAX_EDGES);
        assertThatThrownBy(
                        () ->
                                new SharedGraph.Settings<>(
                                        SharedGraphDescriptor.MAX_NODES + 1, 1, c, c))
                .hasMessage(
                        "maxNodes "
                                + (SharedGraphDescriptor.MAX_NODES + 1)
                                + " is outside 1.."
                                + SharedGraphDescriptor.MAX_NODES);
        assertThatThrownBy(
                        () ->
                                new SharedGraph.Settings<>(
                                        1, SharedGraphDescriptor.MAX_EDGES + 1, c, c))
                .hasMessageContaining("is outside 1..");
        assertThat(new SharedGraph.Settings<>(SharedGraphDescriptor.MAX_NODES, 1, c, c).maxNodes())
                .isEqualTo(SharedGraphDescriptor.MAX_NODES);
        assertThatThrownBy(
                        () ->
                                new SharedGraph.Settings<>(
                                        SharedGraphDescriptor.MAX_NODES,
                                        SharedGraphDescriptor.MAX_EDGES,
                                        FixedCodec.bytes(1000),
                                        c))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("more than a file's limit");
        assertThatThrownBy(() -> new SharedGraph.Settings<>(1, 1, FixedCodec.bytes(1 << 20), c))
                .hasMessageContaining("(or a payload above 1 MiB)");
        assertThat(stride(8, 8)).isEqualTo(32);
        assertThat(stride(1, 17)).isEqualTo(40);
        assertThat(stride(9, 1)).isEqualTo(40);
        assertThat(bodyLength(2, 24)).isEqualTo((SLOTS_OFFSET + 48 + 63) / 64 * 64);
        assertThatThrownBy(() -> bodyLength(1, 24))
                .hasMessageContaining("capacity 1 (max nodes + max edges) is outside 2..");
        assertThatThrownBy(() -> bodyLength(2, 16))
                .hasMessage("slot size 16 is not a graph stride");
        assertThatThrownBy(() -> bodyLength(2, 28))
                .hasMessage("slot size 28 is not a graph stride");
        assertThatThrownBy(() -> bodyLength(2, (1 << 20) + 8))
                .hasMessageContaining("is not a graph stride");
        assertThat(bodyLength(2, 1 << 20)).isPositive();
    }
}
