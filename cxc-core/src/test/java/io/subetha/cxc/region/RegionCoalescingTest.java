package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The locked free in each of its four cases (merge with the block before, after, both, or an
 * address-ordered insert between used blocks), read from the file: the merged block's size word and
 * boundary tag, its links, the absorbed headers cleared, its list neighbours' links (and their
 * other halves kept), every other block and the allocation count as they were; neighbours freed in
 * every order, and {@code reclaimDead}'s frees, coalesce the same way.
 */
class RegionCoalescingTest {

    static final int CAPACITY = 4096;
    static final long DEAD_PID = Pids.MAX_PID - 1;

    @TempDir Path dir;

    RegionFiles files;

    @BeforeEach
    void files() {
        files = new RegionFiles(dir);
    }

    @AfterEach
    void closeFiles() {
        files.close();
    }

    SharedRegion region;
    RegionHeap heap;

    /** A heap of {@link #CAPACITY} laid out as {@code spec}; {@link #region} is its region. */
    RegionHeap heap(String spec) {
        return heap(CAPACITY, spec);
    }

    RegionHeap heap(int capacity, String spec) {
        heap = files.heap(capacity, spec);
        region = heap.region;
        return heap;
    }

    SharedRegion region(long capacity) {
        return files.region(capacity);
    }

    void assertFreeBlock(int block, int size, int previous, int next) {
        heap.assertFreeBlock(block, size, previous, next);
    }

    void assertUsedWord(long bytes, long blocks) {
        heap.assertUsedWord(bytes, blocks);
    }

    void assertUnchanged(RegionHeap heap, int i, long[] before) {
        heap.assertUnchanged(i, before);
    }

    long head() {
        return heap.head();
    }

    /** Checks the invariants, then closes the region. */
    void close() {
        RegionInvariants.check(region);
        region.close();
    }

    @Test
    void aFreeBetweenUsedBlocksIsLinkedBetweenTheFreeBlocksAroundItInAddressOrder() {
        //                 0  1   2   3   4   5   6   7   8    9
        RegionHeap heap = heap("F* U48 F64 U48 X96 U48 F80 U48 F112 U48");
        long used = region.usedBytes();
        long[] first = heap.snapshot(0);
        long[] last = heap.snapshot(8);
        assertFreeBlock(heap.at(2), 64, heap.at(0), heap.at(6));
        region.free(heap.handles[4]);
        assertFreeBlock(heap.at(4), 96, heap.at(2), heap.at(6));
        assertFreeBlock(heap.at(2), 64, heap.at(0), heap.at(4));
        assertFreeBlock(heap.at(6), 80, heap.at(4), heap.at(8));
        assertUnchanged(heap, 0, first);
        assertUnchanged(heap, 8, last);
        assertThat(head()).isEqualTo(heap.at(0));
        assertUsedWord(used - 96, 5);
        assertThat(region.freeList())
                .containsExactly(heap.at(0), heap.at(2), heap.at(4), heap.at(6), heap.at(8));
        close();
    }

    @Test
    void aFreeBeforeEveryFreeBlockBecomesTheListHead() {
        //                 0  1   2   3   4   5
        RegionHeap heap = heap("U* X96 U48 F64 U48 F80");
        long used = region.usedBytes();
        long[] tail = heap.snapshot(5);
        region.free(heap.handles[1]);
        assertThat(head()).isEqualTo(heap.at(1));
        assertFreeBlock(heap.at(1), 96, 0, heap.at(3));
        assertFreeBlock(heap.at(3), 64, heap.at(1), heap.at(5));
        assertUnchanged(heap, 5, tail);
        assertUsedWord(used - 96, 3);
        close();
    }

    @Test
    void theFirstBlockOfTheHeapFreedBetweenUsedOnesBecomesTheListHead() {
        //                 0  1   2   3
        RegionHeap heap = heap("X* U48 F64 U48");
        long used = region.usedBytes();
        int size = heap.sizes[0];
        region.free(heap.handles[0]);
        assertThat(head()).isEqualTo(HEAP_OFFSET);
        assertFreeBlock(HEAP_OFFSET, size, 0, heap.at(2));
        assertFreeBlock(heap.at(2), 64, HEAP_OFFSET, 0);
        assertUsedWord(used - size, 2);
        close();
    }

    @Test
    void aFreeAfterEveryFreeBlockBecomesTheListTail() {
        //                 0  1   2   3   4   5
        RegionHeap heap = heap("F* U48 F64 U48 X96 U48");
        long used = region.usedBytes();
        long[] first = heap.snapshot(0);
        region.free(heap.handles[4]);
        assertFreeBlock(heap.at(4), 96, heap.at(2), 0);
        assertFreeBlock(heap.at(2), 64, heap.at(0), heap.at(4));
        assertUnchanged(heap, 0, first);
        assertThat(head()).isEqualTo(heap.at(0));
        assertUsedWord(used - 96, 3);
        close();
    }

    @Test
    void aFreeInAHeapWithNoFreeBlockIsTheWholeList() {
        //                 0  1   2
        RegionHeap heap = heap("U* X96 U48");
        assertThat(head()).isZero();
        region.free(heap.handles[1]);
        assertThat(head()).isEqualTo(heap.at(1));
        assertFreeBlock(heap.at(1), 96, 0, 0);
        assertUsedWord(heap.sizes[0] + 48, 2);
        close();
    }

    @Test
    void aFreeAfterAFreeBlockGrowsItAndLeavesTheListAsItWas() {
        //                 0  1   2   3   4   5   6   7   8
        RegionHeap heap = heap("F* U48 F64 X96 U48 F80 U48 F112 U48");
        long used = region.usedBytes();
        long[] first = heap.snapshot(0);
        long[] after = heap.snapshot(5);
        long[] next = heap.snapshot(4);
        region.free(heap.handles[3]);
        assertFreeBlock(heap.at(2), 64 + 96, heap.at(0), heap.at(5));
        assertThat(heap.word(heap.at(3) + SIZE_WORD)).as("the absorbed size word").isZero();
        assertUnchanged(heap, 0, first);
        assertUnchanged(heap, 5, after);
        assertUnchanged(heap, 4, next);
        assertThat(head()).isEqualTo(heap.at(0));
        assertUsedWord(used - 96, 4);
        assertThat(region.freeList())
                .containsExactly(heap.at(0), heap.at(2), heap.at(5), heap.at(7));
        close();
    }

    @Test
    void aFreeAfterTheSmallestFreeBlockMergesWithIt() {
        //                 0  1   2   3
        RegionHeap heap = heap("U* F80 U48 U48");
        // A 48-byte block split from the 80-byte one's end leaves the smallest free block, 32.
        long split = region.allocate(16);
        int block = (int) offset(split);
        assertThat(block).isEqualTo(heap.at(1) + 32);
        assertFreeBlock(heap.at(1), MIN_BLOCK, 0, 0);
        long used = region.usedBytes();
        region.free(split);
        assertFreeBlock(heap.at(1), 80, 0, 0);
        assertThat(heap.word(block + SIZE_WORD)).isZero();
        assertThat(head()).isEqualTo(heap.at(1));
        assertUsedWord(used - 48, 3);
        close();
    }

    @Test
    void aFreeAfterTheFirstBlockOfTheHeapMergesWithIt() {
        //                 0  1   2   3
        RegionHeap heap = heap("F* X96 U48 F64");
        long used = region.usedBytes();
        int size = heap.sizes[0];
        region.free(heap.handles[1]);
        assertFreeBlock(HEAP_OFFSET, size + 96, 0, heap.at(3));
        assertFreeBlock(heap.at(3), 64, HEAP_OFFSET, 0);
        assertThat(heap.word(heap.at(1) + SIZE_WORD)).isZero();
        assertUsedWord(used - 96, 1);
        close();
    }

    @Test
    void aFreeBeforeAFreeBlockTakesItsPlaceInTheList() {
        //                 0  1   2   3   4   5   6    7   8   9
        RegionHeap heap = heap("F* U48 F64 U48 X96 F80 U48 F112 U48 F48");
        long used = region.usedBytes();
        long[] first = heap.snapshot(0);
        long[] last = heap.snapshot(9);
        int absorbed = heap.at(5);
        region.free(heap.handles[4]);
        assertFreeBlock(heap.at(4), 96 + 80, heap.at(2), heap.at(7));
        assertThat(heap.word(absorbed + SIZE_WORD)).as("the absorbed size word").isZero();
        assertFreeBlock(heap.at(2), 64, heap.at(0), heap.at(4));
        assertFreeBlock(heap.at(7), 112, heap.at(4), heap.at(9));
        assertUnchanged(heap, 0, first);
        assertUnchanged(heap, 9, last);
        assertThat(head()).isEqualTo(heap.at(0));
        assertUsedWord(used - 96, 4);
        assertThat(region.freeList())
                .containsExactly(heap.at(0), heap.at(2), heap.at(4), heap.at(7), heap.at(9));
        close();
    }

    @Test
    void aFreeBeforeTheListHeadBecomesTheHead() {
        //                 0  1   2   3   4
        RegionHeap heap = heap("U* X96 F80 U48 F64");
        long used = region.usedBytes();
        region.free(heap.handles[1]);
        assertThat(head()).isEqualTo(heap.at(1));
        assertFreeBlock(heap.at(1), 96 + 80, 0, heap.at(4));
        assertThat(heap.word(heap.at(2) + SIZE_WORD)).isZero();
        assertFreeBlock(heap.at(4), 64, heap.at(1), 0);
        assertUsedWord(used - 96, 2);
        close();
    }

    @Test
    void aFreeBeforeTheListTailBecomesTheTail() {
        //                 0  1   2   3   4
        RegionHeap heap = heap("F* U48 X96 F80 U48");
        long used = region.usedBytes();
        region.free(heap.handles[2]);
        assertFreeBlock(heap.at(2), 96 + 80, HEAP_OFFSET, 0);
        assertFreeBlock(HEAP_OFFSET, heap.sizes[0], 0, heap.at(2));
        assertThat(heap.word(heap.at(3) + SIZE_WORD)).isZero();
        assertUsedWord(used - 96, 2);
        close();
    }

    @Test
    void aFreeBetweenTwoFreeBlocksJoinsThemAndTheSecondLeavesTheList() {
        //                 0  1   2   3   4   5   6    7   8   9
        RegionHeap heap = heap("F* U48 F64 X96 F80 U48 F112 U48 F48 U48");
        long used = region.usedBytes();
        long[] first = heap.snapshot(0);
        long[] last = heap.snapshot(8);
        region.free(heap.handles[3]);
        assertFreeBlock(heap.at(2), 64 + 96 + 80, heap.at(0), heap.at(6));
        assertThat(heap.word(heap.at(3) + SIZE_WORD)).as("the freed block's size word").isZero();
        assertThat(heap.word(heap.at(4) + SIZE_WORD)).as("the block after's size word").isZero();
        assertFreeBlock(heap.at(6), 112, heap.at(2), heap.at(8));
        assertUnchanged(heap, 0, first);
        assertUnchanged(heap, 8, last);
        assertThat(head()).isEqualTo(heap.at(0));
        assertUsedWord(used - 96, 4);
        assertThat(region.freeList())
                .containsExactly(heap.at(0), heap.at(2), heap.at(6), heap.at(8));
        close();
    }

    @Test
    void aFreeBetweenTheHeadAndTheTailLeavesOneFreeBlock() {
        //                 0  1   2   3   4
        RegionHeap heap = heap("U* F64 X96 F80 U48");
        long used = region.usedBytes();
        region.free(heap.handles[2]);
        assertThat(head()).isEqualTo(heap.at(1));
        assertFreeBlock(heap.at(1), 64 + 96 + 80, 0, 0);
        assertThat(heap.word(heap.at(2) + SIZE_WORD)).isZero();
        assertThat(heap.word(heap.at(3) + SIZE_WORD)).isZero();
        assertUsedWord(used - 96, 2);
        assertThat(region.largestFreeBlock()).isEqualTo(240);
        close();
    }

    @Test
    void aFreeOfTheWholeHeapsMiddleLeavesOneBlockOfTheWholeHeap() {
        //                 0  1   2
        RegionHeap heap = heap("F* X96 F80");
        region.free(heap.handles[1]);
        assertThat(head()).isEqualTo(HEAP_OFFSET);
        assertFreeBlock(HEAP_OFFSET, CAPACITY, 0, 0);
        assertUsedWord(0, 0);
        close();
    }

    @Test
    void aFreeNextToTheListTailLeavesTheAllocationCountAsItWas() {
        String[] specs = {
            "U* F64 X96 F80 U48", // both neighbours free, the one after is the tail
            "F* U48 X96 F80 U48", // the block after is free and the tail
            "F* U48 F64 U48 X96 U48" // between used blocks, after every free block
        };
        for (String spec : specs) {
            RegionHeap heap = heap(4096, spec);
            int index = 0;
            while (heap.kind(index) != 'X') {
                index++;
            }
            long count = heap.word(ALLOCATIONS_OFFSET);
            assertThat(count).as("one allocation per block").isEqualTo(heap.tokens.length);
            heap.region.free(heap.handles[index]);
            assertThat(heap.word(ALLOCATIONS_OFFSET)).as(spec).isEqualTo(count);
            assertThat(heap.region.describe()).containsEntry("allocations", count);
            RegionInvariants.check(heap.region);
            heap.close();
        }
    }

    @Test
    void freedNeighboursCoalesceInEveryOrder() {
        int[][] orders = {{0, 1, 2}, {2, 1, 0}, {1, 0, 2}, {1, 2, 0}, {0, 2, 1}, {2, 0, 1}};
        for (int[] order : orders) {
            try (SharedRegion region = region(4096)) {
                long[] handles = {region.allocate(40), region.allocate(200), region.allocate(8)};
                long guard = region.allocate(16); // keeps the heap's remainder apart
                for (int i : order) {
                    region.free(handles[i]);
                    RegionInvariants.check(region);
                }
                assertThat(region.freeList()).as("order %s", Arrays.toString(order)).hasSize(2);
                region.free(guard);
                assertThat(region.freeList()).hasSize(1);
                assertThat(region.largestFreeBlock()).isEqualTo(4096);
            }
        }
    }

    @Test
    void reclaimDeadCoalescesEachDeadBlockInItsCaseAndWalksOnFromTheMergedBlock() {
        //                 0  1   2   3   4   5   6   7   8   9  10  11  12  13  14  15
        RegionHeap heap = heap("F* U48 F64 D96 U48 D80 F64 U48 D64 U48 F80 D48 F64 U48 D96 U64");
        List<Integer> dead = new ArrayList<>();
        String[] tokens =
                "F* U48 F64 D96 U48 D80 F64 U48 D64 U48 F80 D48 F64 U48 D96 U64".split(" ");
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i].charAt(0) == 'D') {
                int block = heap.at(i);
                long tag = heap.raw.getLongVolatile(block + TAG_WORD);
                heap.raw.setLongVolatile(block + TAG_WORD, tag(generation(tag), DEAD_PID));
                dead.add(i);
            }
        }
        long used = region.usedBytes();
        long freed = dead.stream().mapToLong(i -> heap.sizes[i]).sum();
        assertThat(region.reclaimDead()).isEqualTo(freed);
        // 2+3 (before), 5+6 (after), 8 alone, 10+11+12 (both), 14 alone.
        assertFreeBlock(HEAP_OFFSET, heap.sizes[0], 0, heap.at(2));
        assertFreeBlock(heap.at(2), 64 + 96, HEAP_OFFSET, heap.at(5));
        assertFreeBlock(heap.at(5), 80 + 64, heap.at(2), heap.at(8));
        assertFreeBlock(heap.at(8), 64, heap.at(5), heap.at(10));
        assertFreeBlock(heap.at(10), 80 + 48 + 64, heap.at(8), heap.at(14));
        assertFreeBlock(heap.at(14), 96, heap.at(10), 0);
        assertUsedWord(used - freed, 6);
        assertThat(region.freeList())
                .containsExactly(
                        HEAP_OFFSET, heap.at(2), heap.at(5), heap.at(8), heap.at(10), heap.at(14));
        List<Integer> live = IntStream.of(1, 4, 7, 9, 13, 15).boxed().collect(Collectors.toList());
        for (int i : live) {
            assertThat(region.isAllocated(heap.handles[i])).as("block %d", i).isTrue();
        }
        assertThat(region.reclaimDead()).isZero();
        close();
    }
}
