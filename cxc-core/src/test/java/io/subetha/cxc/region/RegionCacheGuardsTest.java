package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.process.Pids;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The offset guards of the lock-free cached free against forged handles: words that look like a
 * small allocated block (a size word and a matching tag) at a misaligned offset inside a payload,
 * or in the reserved words below the heap, are never taken into the cache; and a used block of the
 * smallest size is cached like any other.
 */
class RegionCacheGuardsTest {

    static final long PID = Pids.current();

    @TempDir Path dir;

    RegionHeap heap;

    @AfterEach
    void closeRegion() {
        if (heap != null) {
            heap.close();
        }
    }

    RegionHeap heap(String spec) {
        heap = new RegionHeap(dir.resolve("g" + System.nanoTime() + ".region"), 64 * 1024, spec);
        return heap.cacheOn();
    }

    @Test
    void wordsLookingLikeABlockInsideAPayloadAreNotAHandlesBlock() {
        //                   0  1    2
        RegionHeap heap = heap("U* X112 U48");
        int block = heap.at(1);
        // The payload starts 8 bytes past a 16-byte boundary: a forged "block" there.
        ByteBuffer forged = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        forged.putLong(sizeWord(48, true)).putLong(tag(7, PID));
        heap.region.set(heap.handles[1], forged.array());
        long bogus = handle(7, block + PAYLOAD_OFFSET);
        assertThatThrownBy(() -> heap.region.free(bogus))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not 16-aligned");
        assertThat(heap.region.cachedBlocks()).isZero();
        assertThat(heap.word(block + PAYLOAD_OFFSET + TAG_WORD)).isEqualTo(tag(7, PID));
        RegionInvariants.check(heap.region);
    }

    @Test
    void wordsLookingLikeABlockBelowTheHeapAreNotAHandlesBlock() {
        //                   0  1
        RegionHeap heap = heap("U* U48");
        int below = HEAP_OFFSET - 32; // reserved words
        heap.raw.setLongVolatile(below + SIZE_WORD, sizeWord(32, true));
        heap.raw.setLongVolatile(below + TAG_WORD, tag(7, PID));
        heap.raw.setLongVolatile(below + 24, sizeWord(32, true));
        assertThatThrownBy(() -> heap.region.free(handle(7, below)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside this region's heap");
        assertThat(heap.region.cachedBlocks()).isZero();
        assertThat(heap.word(below + TAG_WORD)).isEqualTo(tag(7, PID));
        for (int w = 0; w < 32; w += 8) {
            heap.raw.setLongVolatile(below + w, 0);
        }
    }

    @Test
    void aUsedBlockOfTheSmallestSizeIsCached() {
        //                   0  1   2
        RegionHeap heap = heap("U* X96 U48");
        int block = heap.at(1);
        long size = heap.word(block + SIZE_WORD);
        long tail = heap.word(block + MIN_BLOCK - 8);
        heap.raw.setLongVolatile(block + SIZE_WORD, sizeWord(MIN_BLOCK, true));
        heap.raw.setLongVolatile(block + MIN_BLOCK - 8, sizeWord(MIN_BLOCK, true));
        heap.region.free(heap.handles[1]);
        assertThat(heap.region.cachedBlocks()).isEqualTo(1);
        assertThat(heap.region.cachedBytes()).isEqualTo(MIN_BLOCK);
        // Back to its real size before the cache returns it.
        heap.raw.setLongVolatile(block + SIZE_WORD, size);
        heap.raw.setLongVolatile(block + MIN_BLOCK - 8, tail);
        assertThat(heap.region.flushCache()).isEqualTo(1);
        RegionInvariants.check(heap.region);
    }
}
