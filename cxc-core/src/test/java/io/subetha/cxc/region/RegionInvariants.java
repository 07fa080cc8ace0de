package io.subetha.cxc.region;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

/** The region's structural invariants, checked from its own walk of the heap and the free list. */
final class RegionInvariants {

    private RegionInvariants() {}

    /**
     * Every heap byte in exactly one block, no two free blocks adjacent, the free list exactly the
     * free blocks in address order, and the counters equal to what the blocks add up to.
     */
    static void check(SharedRegion region) {
        List<SharedRegion.Block> blocks = region.blocks();
        long end = SharedRegionDescriptor.HEAP_OFFSET;
        long used = 0;
        long usedBlocks = 0;
        List<Integer> free = new ArrayList<>();
        SharedRegion.Block previous = null;
        for (SharedRegion.Block block : blocks) {
            assertThat(block.offset()).as("blocks tile the heap").isEqualTo((int) end);
            end += block.size();
            if (block.used()) {
                used += block.size();
                usedBlocks++;
            } else {
                free.add(block.offset());
                assertThat(previous != null && !previous.used())
                        .as("free block %d follows a free block: not coalesced", block.offset())
                        .isFalse();
            }
            previous = block;
        }
        assertThat(end - SharedRegionDescriptor.HEAP_OFFSET)
                .as("blocks cover the capacity")
                .isEqualTo(region.capacity());
        assertThat(region.freeList())
                .as("free list: the free blocks in address order")
                .isEqualTo(free);
        assertThat(region.usedBytes()).as("used bytes").isEqualTo(used);
        assertThat(region.usedBlocks()).as("used blocks").isEqualTo(usedBlocks);
        assertThat(region.usedBytes() + region.freeBytes()).isEqualTo(region.capacity());
    }
}
