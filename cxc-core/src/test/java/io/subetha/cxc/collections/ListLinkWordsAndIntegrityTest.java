package io.subetha.cxc.collections;

import static io.subetha.cxc.collections.SharedLinkedListDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.PrimitiveView;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The list's link words, read raw after each step (head, tail, free chain, each node's prev and
 * next, the size), and each problem its integrity check names when one link is planted wrong.
 */
class ListLinkWordsAndIntegrityTest {

    @TempDir Path dir;

    private static final int NODE = nodeLength(8);
    private static final int N0 = NODES_OFFSET;
    private static final int N1 = NODES_OFFSET + NODE;
    private static final int N2 = NODES_OFFSET + 2 * NODE;

    /** head, tail, free, size, then prev and next of each of the three nodes. */
    private static long[] links(AtomicBuffer raw) {
        return new long[] {
            raw.getLongVolatile(HEAD_OFFSET),
            raw.getLongVolatile(TAIL_OFFSET),
            raw.getLongVolatile(FREE_OFFSET),
            raw.getLongVolatile(SIZE_OFFSET),
            raw.getLongVolatile(N0 + PREV_OFFSET),
            raw.getLongVolatile(N0 + NEXT_OFFSET),
            raw.getLongVolatile(N1 + PREV_OFFSET),
            raw.getLongVolatile(N1 + NEXT_OFFSET),
            raw.getLongVolatile(N2 + PREV_OFFSET),
            raw.getLongVolatile(N2 + NEXT_OFFSET)
        };
    }

    @Test
    void eachStepLeavesExactlyTheLinksOfItsDrawing() {
        Path path = dir.resolve("l.cxc");
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        path, new SharedLinkedList.Settings<>(3, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            // A new list: every node free, chained in order.
            assertThat(links(raw)).containsExactly(0, 0, N0, 0, 0, N1, 0, N2, 0, 0);

            list.pushTail(1L); // [n0]
            assertThat(links(raw)).containsExactly(N0, N0, N1, 1, 0, 0, 0, N2, 0, 0);
            list.pushHead(0L); // [n1, n0]
            assertThat(links(raw)).containsExactly(N1, N0, N2, 2, N1, 0, 0, N0, 0, 0);
            list.pushTail(2L); // [n1, n0, n2], nothing free
            assertThat(links(raw)).containsExactly(N1, N2, 0, 3, N1, N2, 0, N0, N0, 0);

            assertThat(list.popTail()).contains(2L); // [n1, n0], free n2
            assertThat(links(raw)).containsExactly(N1, N0, N2, 2, N1, 0, 0, N0, 0, 0);
            assertThat(list.popHead()).contains(0L); // [n0], free n1 -> n2
            assertThat(links(raw)).containsExactly(N0, N0, N1, 1, 0, 0, 0, N2, 0, 0);
            assertThat(list.popHead()).contains(1L); // [], free n0 -> n1 -> n2
            assertThat(links(raw)).containsExactly(0, 0, N0, 0, 0, N1, 0, N2, 0, 0);

            list.pushHead(5L); // into an empty list from the head: both ends
            assertThat(links(raw)).containsExactly(N0, N0, N1, 1, 0, 0, 0, N2, 0, 0);
            assertThat(list.popTail()).contains(5L);
            assertThat(list.checkIntegrity(new ArrayList<>())).isNull();
        }
    }

    private String integrityAfter(Consumer<AtomicBuffer> plant) {
        Path path = dir.resolve("i-" + System.nanoTime() + ".cxc");
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        path, new SharedLinkedList.Settings<>(3, FixedCodec.INT64))) {
            list.pushTail(1L);
            list.pushTail(2L); // [n0, n1], free n2
            List<Long> elements = new ArrayList<>();
            assertThat(list.checkIntegrity(elements)).isNull();
            assertThat(elements).containsExactly(1L, 2L);
            plant.accept(RawBody.of(path));
            return list.checkIntegrity(new ArrayList<>());
        }
    }

    @Test
    void theIntegrityCheckNamesEachBrokenLink() {
        assertThat(integrityAfter(raw -> raw.setLongVolatile(N1 + NEXT_OFFSET, N0)))
                .isEqualTo("node 0 is on a chain twice");
        assertThat(integrityAfter(raw -> raw.setLongVolatile(N1 + PREV_OFFSET, 0)))
                .isEqualTo("node 1's prev is not its predecessor");
        assertThat(integrityAfter(raw -> raw.setLongVolatile(TAIL_OFFSET, N0)))
                .isEqualTo("the tail is not the last node");
        assertThat(integrityAfter(raw -> raw.setLongVolatile(SIZE_OFFSET, 1)))
                .isEqualTo("size 1 but 2 nodes on the list");
        assertThat(integrityAfter(raw -> raw.setLongVolatile(N2 + NEXT_OFFSET, N1)))
                .isEqualTo("node 1 is on a chain twice");
        assertThat(integrityAfter(raw -> raw.setLongVolatile(FREE_OFFSET, 0)))
                .isEqualTo("2 nodes on the chains, capacity 3");
        assertThat(integrityAfter(raw -> raw.setLongVolatile(VERSION_OFFSET, 7)))
                .isEqualTo("version odd after every step finished");
    }

    @Test
    void aLinkBetweenTwoNodesIsRefusedAsCorrupt() {
        Path path = dir.resolve("m.cxc");
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        path, new SharedLinkedList.Settings<>(3, FixedCodec.INT64))) {
            list.pushTail(1L);
            RawBody.of(path).setLongVolatile(HEAD_OFFSET, N0 + 8); // inside node 0
            assertThatThrownBy(list::popHead)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining(
                            "a link at body offset " + HEAD_OFFSET + " holds " + (N0 + 8));
        }
    }

    @Test
    void anObserversViewWithoutItsCodecCannotPushOrPop() {
        Path path = dir.resolve("o.cxc");
        SharedLinkedList.TYPE
                .create(path, new SharedLinkedList.Settings<>(3, FixedCodec.INT64))
                .close();
        try (PrimitiveView view = SharedLinkedList.TYPE.observe(path, CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("size", 0L).containsEntry("elementBytes", 8);
        }
    }

    @Test
    void aBodyIsItsNodesRoundedUpToWholeAlignmentBlocks() {
        for (int capacity = 1; capacity <= 8; capacity++) {
            long raw = NODES_OFFSET + (long) capacity * NODE;
            assertThat(bodyLength(capacity, 8))
                    .as("capacity %d", capacity)
                    .isEqualTo((raw + 63) / 64 * 64);
        }
        for (int capacity = 1; capacity <= 8; capacity++) {
            long raw =
                    SharedVecDescriptor.slotsOffset(8)
                            + (long) capacity * SharedVecDescriptor.slotLength(8);
            assertThat(SharedVecDescriptor.bodyLength(capacity, 8))
                    .as("vec capacity %d", capacity)
                    .isEqualTo((raw + 63) / 64 * 64);
        }
    }
}
