package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Words a step must not touch: a free whose list neighbour is the tail writes nothing at body
 * offset 8 (the allocation count, where a link of "block 0" would land); the boundary-tag guards
 * refuse a tag even when a twin of it sits where it points; a block's bytes past its payload (left
 * by an earlier use) never take part in a comparison; and the cache's first and last block offsets.
 */
class RegionStrayWordsAndPaddingTest {

    @TempDir Path dir;

    RegionHeap heap;
    SharedRegion region;

    RegionHeap heap(int capacity, String spec) {
        heap = new RegionHeap(dir.resolve("h" + System.nanoTime() + ".region"), capacity, spec);
        return heap;
    }

    @AfterEach
    void closeRegions() {
        if (heap != null) {
            heap.close();
        }
        if (region != null) {
            region.close();
        }
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
            this.heap = null;
        }
    }

    @Test
    void aBoundaryTagIsRefusedEvenWhenATwinOfItSitsWhereItPoints() {
        //                                  0  1   2   3
        RegionHeap heap = heap(4096, "U* U48 X96 U48");
        int block = heap.at(2);
        long tag = heap.word(block + TAG_WORD);
        long tail = heap.word(block - 8);
        // Too small a block before: its twin 16 bytes back.
        long small = sizeWord(16, false);
        long wasTwin = heap.word(block - 16);
        heap.raw.setLongVolatile(block - 8, small);
        heap.raw.setLongVolatile(block - 16, small);
        assertThatThrownBy(() -> heap.region.free(heap.handles[2]))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("the boundary tag before block " + block);
        heap.raw.setLongVolatile(block - 16, wasTwin);
        heap.raw.setLongVolatile(block + TAG_WORD, tag);
        // A block before the heap's start: its twin in the reserved words below the heap.
        int before = HEAP_OFFSET - 16;
        long below = sizeWord(block - before, false);
        heap.raw.setLongVolatile(block - 8, below);
        heap.raw.setLongVolatile(before, below);
        assertThatThrownBy(() -> heap.region.free(heap.handles[2]))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("the boundary tag before block " + block);
        heap.raw.setLongVolatile(before, 0);
        heap.raw.setLongVolatile(block + TAG_WORD, tag);
        heap.raw.setLongVolatile(block - 8, tail);
        heap.region.free(heap.handles[2]);
        RegionInvariants.check(heap.region);
    }

    @Test
    void theHeapsFirstBlockIsCachedAndAHandleOfTheLast32BytesNamesNoBlock() {
        //                                        0   1
        RegionHeap heap = heap(64 * 1024, "X* U65488").cacheOn();
        assertThat(heap.sizes[0]).isEqualTo(48);
        heap.region.free(heap.handles[0]);
        assertThat(heap.region.cachedBlocks()).isEqualTo(1);
        int end = HEAP_OFFSET + 64 * 1024;
        long last = handle(7, end - MIN_BLOCK);
        assertThat(heap.region.isAllocated(last)).isFalse();
        assertThatThrownBy(() -> heap.region.free(last))
                .hasMessageContaining("names no allocated block");
        RegionInvariants.check(heap.region);
    }

    @Test
    void bytesPastThePayloadLeftByAnEarlierUseAreNotCompared() {
        region =
                SharedRegion.TYPE.create(
                        dir.resolve("pad.region"), new SharedRegion.Settings(64 * 1024));
        long earlier = region.allocate(16);
        byte[] filled = new byte[16];
        Arrays.fill(filled, (byte) 0x55);
        region.set(earlier, filled);
        region.free(earlier);
        long reused = region.allocate(1); // the same 48-byte block, from the cache
        assertThat(offset(reused)).isEqualTo(offset(earlier));
        region.set(reused, new byte[] {9});
        long fresh = region.allocate(1);
        region.set(fresh, new byte[] {9});
        assertThat(region.payloadEquals(reused, fresh)).isTrue();
        assertThat(region.payloadEquals(fresh, reused)).isTrue();
        assertThat(region.payloadEquals(reused, new byte[] {9}, 0)).isTrue();
        region.set(fresh, new byte[] {8});
        assertThat(region.payloadEquals(reused, fresh)).isFalse();
    }

    @Test
    void aComparisonWhoseSecondBlockIsFreedWhileItComparedRefuses() {
        region =
                SharedRegion.TYPE.create(
                        dir.resolve("second.region"), new SharedRegion.Settings(64 * 1024));
        long a = region.allocate(20);
        long b = region.allocate(20);
        byte[] bytes = RegionChild.pattern(3, 20);
        region.set(a, bytes);
        region.set(b, bytes);
        try (StepGate<Boolean> gate =
                StepGate.holdAt(Point.REGION_PAYLOAD_READ, () -> region.payloadEquals(a, b))) {
            region.free(b);
            assertThatThrownBy(gate::release)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("was freed while it was read");
        }
        assertThat(region.isAllocated(a)).isTrue();
    }
}
