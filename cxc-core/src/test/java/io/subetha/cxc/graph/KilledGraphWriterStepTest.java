package io.subetha.cxc.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graph writer stopped dead at each step of its commit (an error thrown at the step, as a SIGKILL
 * there would stop it; the file is left as the killed writer left it): before the seal no link
 * changed, after it the next lock holder (a writer, or a reader falling back to the lock) finishes
 * the step exactly once.
 */
class KilledGraphWriterStepTest {

    @TempDir Path dir;

    static final class Killed extends Error {
        Killed() {
            super("killed at the step", null, false, false);
        }
    }

    static void killedAt(Point at, Runnable step) {
        AtomicBoolean fired = new AtomicBoolean();
        try (Interleaving.Installed kill =
                Interleaving.install(
                        p -> {
                            if (p == at && fired.compareAndSet(false, true)) {
                                throw new Killed();
                            }
                        })) {
            assertThatThrownBy(step::run).isInstanceOf(Killed.class);
        }
        assertThat(fired).isTrue();
    }

    SharedGraph<String, Long> graph() {
        SharedGraph<String, Long> g =
                SharedGraph.TYPE.create(
                        dir.resolve("g.cxc"),
                        new SharedGraph.Settings<>(4, 8, FixedCodec.string(12), FixedCodec.INT64));
        g.addNode("a");
        g.addNode("b");
        g.addNode("c");
        return g;
    }

    @Test
    void anAddNodeKilledBeforeItsSealAddsNothingAndOneAfterItIsFinished() {
        try (SharedGraph<String, Long> g = graph()) {
            killedAt(Point.INTENT_STAGED, () -> g.addNode("x"));
            assertThat(g.nodeCount()).isEqualTo(3);
            killedAt(Point.INTENT_SEALED, () -> g.addNode("d"));
            assertThat(g.nodeCount()).isEqualTo(3); // sealed, not applied yet
            assertThatThrownBy(() -> g.addNode("e")).hasMessageContaining("maxNodes 4");
            assertThat(g.nodeCount()).isEqualTo(4);
            assertThat(g.node(3)).isEqualTo("d");
            assertThat(g.describe()).containsEntry("repairedWrites", 1L);
        }
    }

    @Test
    void anAddEdgeKilledAfterItsSealIsFinishedByTheNextWriter() {
        try (SharedGraph<String, Long> g = graph()) {
            g.addEdge(0, 1, 10L);
            killedAt(Point.INTENT_SEALED, () -> g.addEdge(0, 2, 20L));
            g.addEdge(1, 2, 30L);
            assertThat(g.checkIntegrity()).isNull();
            assertThat(g.neighbors(0))
                    .containsExactly(
                            new SharedGraph.Edge<>(0, 2, 20L), new SharedGraph.Edge<>(0, 1, 10L));
            assertThat(g.edgeCount()).isEqualTo(3);
            assertThat(g.outDegree(0)).isEqualTo(2);
        }
    }

    @Test
    void anAddEdgeKilledBeforeItsSealChangesNoLink() {
        try (SharedGraph<String, Long> g = graph()) {
            g.addEdge(0, 1, 10L);
            killedAt(Point.INTENT_STAGED, () -> g.addEdge(0, 2, 20L));
            assertThat(g.neighbors(0)).containsExactly(new SharedGraph.Edge<>(0, 1, 10L));
            assertThat(g.edgeCount()).isEqualTo(1);
            assertThat(g.checkIntegrity()).isNull();
        }
    }

    @Test
    void aReplacingAddEdgeKilledHalfWayIsSeenWholeByAReaderFallingBackToTheLock() {
        try (SharedGraph<String, Long> g = graph()) {
            g.addEdge(0, 1, 10L);
            g.addEdge(0, 2, 20L);
            // The generation is odd: a lock-free reader cannot keep what it reads.
            killedAt(Point.INTENT_HALF_APPLIED, () -> g.addEdge(0, 1, 11L));
            assertThat(g.neighbors(0))
                    .containsExactlyInAnyOrder(
                            new SharedGraph.Edge<>(0, 1, 11L), new SharedGraph.Edge<>(0, 2, 20L));
            assertThat(g.edgeCount()).isEqualTo(2);
            assertThat(g.checkIntegrity()).isNull();
            assertThat(g.describe()).containsEntry("repairedWrites", 1L);
        }
    }

    @Test
    void aRemoveEdgeKilledAfterItsSealIsFinishedAndItsEdgeReused() {
        try (SharedGraph<String, Long> g = graph()) {
            g.addEdge(0, 1, 10L);
            g.addEdge(2, 1, 30L);
            killedAt(Point.INTENT_HALF_APPLIED, () -> g.removeEdge(0, 1));
            int[] ids = new int[4];
            assertThat(g.neighborIds(0, ids)).isZero();
            assertThat(g.outDegree(0)).isZero();
            assertThat(g.removeEdge(0, 1)).isFalse();
            assertThat(g.edgeCount()).isEqualTo(1);
            g.addEdge(1, 0, 40L);
            assertThat(g.checkIntegrity()).isNull();
            assertThat(g.neighbors(1)).containsExactly(new SharedGraph.Edge<>(1, 0, 40L));
            assertThat(g.neighbors(2)).containsExactly(new SharedGraph.Edge<>(2, 1, 30L));
        }
    }
}
