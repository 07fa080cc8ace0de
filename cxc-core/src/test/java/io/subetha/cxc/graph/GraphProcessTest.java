package io.subetha.cxc.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The graph across real JVMs on one file: two writers on shared nodes against the sequential model,
 * and writers SIGKILLed mid-step whose half-done step the survivor repairs.
 *
 * <p>{@code -Dcxc.graph.kills=N} kills N writers (default 4: one at a random point, one parked at
 * each intent step; the extra ones at random points).
 */
class GraphProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final int KILLS = Integer.getInteger("cxc.graph.kills", 4);
    static final int NODES = 8;
    static final List<Point> PARK_POINTS =
            List.of(Point.INTENT_STAGED, Point.INTENT_SEALED, Point.INTENT_APPLIED);

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    ChildJvm child(String name, String... setup) {
        ChildJvm child =
                children.add(
                        ChildJvm.start(name, GraphChild.class)
                                .eventsAre(line -> line.equals("running")));
        for (String command : setup) {
            child.ask(command);
        }
        return child;
    }

    SharedGraph<String, Long> graph(Path path) {
        return SharedGraph.TYPE.create(
                path,
                new SharedGraph.Settings<>(
                        NODES, NODES * NODES, FixedCodec.string(16), FixedCodec.INT64));
    }

    @Test
    void twoJvmsAddNodesAndEdgesOnSharedNodesAndTheAdjacencyEqualsTheSequentialModel() {
        Path path = dir.resolve("graph.cxc");
        try (SharedGraph<String, Long> graph = graph(path)) {
            ChildJvm other =
                    child("graph-writer", "graph-open " + path + " " + NODES + " " + NODES * NODES);
            other.send("add-nodes 4 theirs");
            List<Integer> ours = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                ours.add(graph.addNode("ours" + i));
            }
            String answer = other.awaitPrefixed("ids ", STEP);
            List<Integer> theirs = Arrays.stream(answer.split(",")).map(Integer::valueOf).toList();
            List<Integer> all = new ArrayList<>(ours);
            all.addAll(theirs);
            assertThat(all).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
            for (int i = 0; i < 4; i++) {
                assertThat(graph.node(ours.get(i))).isEqualTo("ours" + i);
                assertThat(graph.node(theirs.get(i))).isEqualTo("theirs" + i);
            }

            // Both write every node's out-list at once; each owns the edges into one parity of
            // targets, so the final adjacency is the model whatever the interleaving.
            int ops = 3000;
            other.send("ops 2 " + ops + " 1");
            GraphModel.ops(new Random(1), ops, NODES, 0, graph::addEdge, graph::removeEdge);
            assertThat(other.awaitLine("done"::equals, STEP)).isEqualTo("done");

            GraphModel.Model model = new GraphModel.Model();
            GraphModel.ops(new Random(1), ops, NODES, 0, model::add, model::remove);
            GraphModel.ops(new Random(2), ops, NODES, 1, model::add, model::remove);
            assertThat(graph.checkIntegrity()).isNull();
            assertThat(GraphModel.snapshot(graph)).isEqualTo(model.edges);
            assertThat(graph.edgeCount()).isEqualTo(model.edges.size());
            // The other process sees the same adjacency.
            for (int n = 0; n < NODES; n++) {
                List<String> mine = new ArrayList<>();
                graph.neighbors(n).forEach(e -> mine.add(e.to() + ":" + e.payload()));
                assertThat(other.ask("neighbors " + n))
                        .isEqualTo("edges " + String.join(",", mine));
            }
        }
    }

    @Test
    void aWriterKilledMidAddOrRemoveEdgeLeavesTheGraphAtAPrefixOfItsScript() {
        Path path = dir.resolve("graph.cxc");
        Random random = new Random();
        try (SharedGraph<String, Long> graph = graph(path)) {
            for (int i = 0; i < NODES; i++) {
                graph.addNode("n" + i);
            }
            for (int kill = 0; kill < KILLS; kill++) {
                Point park =
                        kill > 0 && kill <= PARK_POINTS.size() ? PARK_POINTS.get(kill - 1) : null;
                long repairsBefore = (Long) graph.describe().get("repairedWrites");
                Map<Long, Long> before = GraphModel.snapshot(graph);
                long seed = random.nextLong();
                ChildJvm writer =
                        child(
                                "graph-writer-" + kill,
                                "graph-open " + path + " " + NODES + " " + NODES * NODES);
                if (park != null) {
                    writer.ask("park-at " + park + " " + (1 + random.nextInt(300)));
                }
                writer.send("ops-forever " + seed);
                writer.awaitLine("running"::equals, STEP);
                if (park != null) {
                    writer.awaitLine(("parked " + park)::equals, STEP);
                } else {
                    LockSupport.parkNanos(Duration.ofMillis(20 + random.nextInt(200)).toNanos());
                }
                writer.kill();
                long acknowledged = 0;
                try {
                    while (true) {
                        acknowledged =
                                Long.parseLong(
                                        writer.awaitLine(
                                                        l -> l.startsWith("progress "),
                                                        Duration.ZERO)
                                                .substring(9));
                    }
                } catch (AssertionError drained) {
                    // no more progress lines
                }

                String when = "kill " + kill + " at " + park + ", seed " + seed;
                assertThat(graph.checkIntegrity()).as(when).isNull(); // takes over and replays
                Map<Long, Long> after = GraphModel.snapshot(graph);
                GraphModel.Model model = new GraphModel.Model();
                model.edges.putAll(before);
                Random script = new Random(seed);
                long matched = -1;
                for (long k = 1; k <= acknowledged + 200_000 && matched < 0; k++) {
                    if (k > acknowledged && model.edges.equals(after)) {
                        matched = k - 1;
                    }
                    GraphModel.ops(script, 1, NODES, -1, model::add, model::remove, k);
                }
                assertThat(matched)
                        .as(
                                "%s: the graph is the script's state after some op at or past the"
                                        + " acknowledged %d",
                                when, acknowledged)
                        .isGreaterThanOrEqualTo(acknowledged);
                long repairs = (Long) graph.describe().get("repairedWrites");
                if (park == Point.INTENT_SEALED || park == Point.INTENT_APPLIED) {
                    assertThat(repairs).as(when).isEqualTo(repairsBefore + 1);
                } else if (park == Point.INTENT_STAGED) {
                    assertThat(repairs).as(when).isEqualTo(repairsBefore);
                }
                assertThat(graph.writerPid()).isZero();
            }
            graph.addEdge(0, 1, -1L); // progress
            assertThat(graph.neighbors(0)).anyMatch(e -> e.to() == 1 && e.payload() == -1L);
        }
    }
}
