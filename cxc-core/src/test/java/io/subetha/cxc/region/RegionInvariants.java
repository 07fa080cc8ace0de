package io.subetha.cxc.region;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.process.Pids;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The region's structural invariants, checked from its own walk of the heap and the free list. */
final class RegionInvariants {

    private RegionInvariants() {}

    /**
     * Every heap byte in exactly one block, no two free blocks adjacent, the free list exactly the
     * free blocks in address order, the counters equal to what the blocks add up to (cached blocks
     * count as used), and this process's cached blocks exactly its handle's cache.
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
        // Cached blocks are used blocks tagged with their cache's PID: this process's are exactly
        // its handle's cache (one handle per file in these tests).
        List<SharedRegion.Block> ownCached =
                blocks.stream()
                        .filter(b -> b.cached() && b.ownerPid() == Pids.current())
                        .collect(Collectors.toList());
        assertThat(ownCached).as("this process's cached blocks").hasSize(region.cachedBlocks());
        assertThat(ownCached.stream().mapToLong(SharedRegion.Block::size).sum())
                .as("this process's cached bytes")
                .isEqualTo(region.cachedBytes());
    }
}
