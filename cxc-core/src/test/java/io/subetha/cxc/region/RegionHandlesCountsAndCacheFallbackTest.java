package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.StepGate;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cached free that finds the cache filled by another thread after its claim (the block goes to
 * the free list under the lock), the cache's edges (the heap's last block, turning it on again),
 * handles naming no block of the heap, the generation's formula (part of the format), op counts,
 * and what {@code blocks} and {@code freeList} say of a free block's links.
 */
class RegionHandlesCountsAndCacheFallbackTest {

    static final int CAPACITY = 64 * 1024;
    static final int HEAP_END = HEAP_OFFSET + CAPACITY;

    @TempDir Path dir;

    SharedRegion region;
    RegionHeap heap;

    SharedRegion region() {
        region =
                SharedRegion.TYPE.create(
                        dir.resolve("r" + System.nanoTime() + ".region"),
                        new SharedRegion.Settings(CAPACITY));
        return region;
    }

    RegionHeap heap(String spec) {
        heap = new RegionHeap(dir.resolve("h" + System.nanoTime() + ".region"), 4096, spec);
        return heap;
    }

    @AfterEach
    void closeRegions() {
        if (region != null) {
            region.close();
        }
        if (heap != null) {
            heap.close();
        }
    }

    @Test
    void aCachedFreeThatFindsTheCacheFilledAfterItsClaimFreesTheBlockUnderTheLock()
            throws Exception {
        SharedRegion region = region();
        long held = region.allocate(16);
        long[] fillers = new long[CACHE_BLOCKS];
        for (int i = 0; i < fillers.length; i++) {
            fillers[i] = region.allocate(16);
        }
        region.allocate(16); // a guard below them
        try (StepGate<Void> freer =
                StepGate.holdAt(
                        Point.REGION_CACHE_CLAIMED,
                        () -> {
                            region.free(held);
                            return null;
                        })) {
            for (long h : fillers) {
                region.free(h);
            }
            assertThat(region.cachedBlocks()).isEqualTo(CACHE_BLOCKS);
            freer.release();
        }
        assertThat(region.cachedBlocks()).isEqualTo(CACHE_BLOCKS);
        assertThat(region.isAllocated(held)).isFalse();
        assertThat(region.freeList()).contains((int) offset(held));
        assertThat(region.blocks())
                .filteredOn(b -> b.offset() == (int) offset(held))
                .singleElement()
                .extracting(SharedRegion.Block::used)
                .isEqualTo(false);
        RegionInvariants.check(region);
    }

    @Test
    void aCachedFreeThatFindsTheCacheBytesFilledAfterItsClaimFreesTheBlockUnderTheLock()
            throws Exception {
        SharedRegion region = region();
        long held = region.allocate(96); // 128 bytes: four fill the 512
        long[] fillers = new long[4];
        for (int i = 0; i < fillers.length; i++) {
            fillers[i] = region.allocate(96);
        }
        region.allocate(16);
        try (StepGate<Void> freer =
                StepGate.holdAt(
                        Point.REGION_CACHE_CLAIMED,
                        () -> {
                            region.free(held);
                            return null;
                        })) {
            for (long h : fillers) {
                region.free(h);
            }
            freer.release();
        }
        assertThat(region.cachedBlocks()).isEqualTo(4);
        assertThat(region.cachedBytes()).isEqualTo(512);
        assertThat(region.freeList()).contains((int) offset(held));
        RegionInvariants.check(region);
    }

    @Test
    void theHeapsLastBlockIsCachedAndReturned() {
        SharedRegion region = region();
        long last = region.allocate(16);
        assertThat(offset(last)).isEqualTo(HEAP_END - 48);
        region.free(last);
        assertThat(region.cachedBlocks()).isEqualTo(1);
        assertThat(region.blocks()).last().extracting(SharedRegion.Block::cached).isEqualTo(true);
        assertThat(region.flushCache()).isEqualTo(1);
        assertThat(region.cachedBlocks()).isZero();
        RegionInvariants.check(region);
    }

    @Test
    void aClosedHandleIsClosedAndClosingAgainChangesNothing() {
        Path path = dir.resolve("closed.region");
        SharedRegion region = SharedRegion.TYPE.create(path, new SharedRegion.Settings(CAPACITY));
        region.free(region.allocate(16));
        assertThat(region.cachedBlocks()).isEqualTo(1);
        region.close();
        assertThat(region.isClosed()).isTrue();
        region.close();
        assertThat(region.isClosed()).isTrue();
        try (SharedRegion again =
                SharedRegion.TYPE.openAsRecorded(path, CxcFileOptions.defaults())) {
            assertThat(again.usedBlocks()).as("close returned the cached block").isZero();
        }
    }

    @Test
    void handlesNamingNoBlockStartOfTheHeapAreRefusedSayingWhere() {
        SharedRegion region = region();
        long kept = region.allocate(16);
        int[] outside = {16, HEAP_OFFSET - 16, HEAP_END, HEAP_END - 16, HEAP_OFFSET + 8};
        for (int offset : outside) {
            long handle = handle(7, offset);
            assertThat(region.isAllocated(handle)).as("offset %d", offset).isFalse();
            assertThatThrownBy(() -> region.free(handle))
                    .as("offset %d", offset)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(
                            "names offset "
                                    + offset
                                    + ", outside this region's heap ["
                                    + HEAP_OFFSET
                                    + ", "
                                    + HEAP_END
                                    + ") or not 16-aligned");
        }
        // Inside the free block: no block starts there.
        for (int offset : new int[] {HEAP_OFFSET + 64, HEAP_END - 48 - MIN_BLOCK}) {
            assertThatThrownBy(() -> region.free(handle(7, offset)))
                    .hasMessageContaining("names no allocated block");
        }
        assertThat(region.cachedBlocks()).isZero();
        assertThat(region.isAllocated(kept)).isTrue();
        RegionInvariants.check(region);
    }

    @Test
    void aUsedBlockOfTheSmallestSizeIsAHandlesBlock() {
        //                              0  1   2
        RegionHeap heap = heap("U* X96 U48");
        int block = heap.at(1);
        long size = heap.word(block + SIZE_WORD);
        long tail = heap.word(block + MIN_BLOCK - 8);
        heap.raw.setLongVolatile(block + SIZE_WORD, sizeWord(MIN_BLOCK, true));
        heap.raw.setLongVolatile(block + MIN_BLOCK - 8, sizeWord(MIN_BLOCK, true));
        assertThat(heap.region.isAllocated(heap.handles[1])).isTrue();
        assertThat(heap.region.sizeOf(heap.handles[1])).as("no room for a payload").isZero();
        heap.raw.setLongVolatile(block + SIZE_WORD, size);
        heap.raw.setLongVolatile(block + MIN_BLOCK - 8, tail);
        assertThat(heap.region.sizeOf(heap.handles[1])).isEqualTo(64);
    }

    @Test
    void theGenerationMixesTheCountWithBothHalvesOfTheSalt() {
        assertThat(generationOf(1, 0)).isEqualTo(0x9E37_79B1);
        assertThat(generationOf(2, 0)).isEqualTo(0x3C6E_F362);
        assertThat(generationOf(1, 0x0000_0005_0000_0003L)).isEqualTo(0x9E37_79B7);
        assertThat(generationOf(3, 0x1234_5678_0000_0000L)).isEqualTo(0xC892_3B6B);
    }

    @Test
    void everyGetAndSetIsCountedOnce() {
        SharedRegion region = region();
        long handle = region.allocate(16);
        region.set(handle, new byte[] {1, 2});
        region.set(handle, 2, new byte[] {3}, 0, 1);
        region.set(handle, 3, ByteBuffer.wrap(new byte[] {4}));
        assertThat(region.get(handle)).startsWith(1, 2, 3, 4);
        byte[] two = new byte[2];
        region.get(handle, 1, two, 0, 2);
        assertThat(two).containsExactly(2, 3);
        ByteBuffer out = ByteBuffer.allocate(1);
        region.get(handle, 3, out, 1);
        assertThat(out.array()).containsExactly(4);
        region.free(handle);
        assertThat(region.opCounts())
                .containsEntry("allocate", 1L)
                .containsEntry("free", 1L)
                .containsEntry("get", 3L)
                .containsEntry("set", 3L);
    }

    @Test
    void aFreeBlockHasNoOwnerWhateverItsLinksSayAndALinkToItselfIsOutOfOrder() {
        //                              0  1   2   3   4
        RegionHeap heap = heap("U* F64 U48 F80 U48");
        assertThat(heap.word(heap.at(1) + TAG_WORD)).isEqualTo(link(0, heap.at(3)));
        assertThat(heap.region.blocks())
                .contains(new SharedRegion.Block(heap.at(1), 64, false, 0, false))
                .contains(new SharedRegion.Block(heap.at(3), 80, false, 0, false));
        long links = heap.word(heap.at(1) + TAG_WORD);
        heap.raw.setLongVolatile(heap.at(1) + TAG_WORD, link(0, heap.at(1)));
        assertThatThrownBy(() -> heap.region.freeList())
                .hasMessageContaining(
                        "the free list names block "
                                + heap.at(1)
                                + " after "
                                + heap.at(1)
                                + ", out of address order");
        heap.raw.setLongVolatile(heap.at(1) + TAG_WORD, links);
        RegionInvariants.check(heap.region);
    }
}
