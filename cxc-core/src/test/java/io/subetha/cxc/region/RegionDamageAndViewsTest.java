package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the region reports for a damaged heap instead of following it (a boundary tag, a block's
 * offset or size word, the free list's order, a cycle, the body check on open), what its views say
 * ({@code blocks}, {@code describe}, the payload bounds), its settings' limits, and a free killed
 * after its seal completed by the next lock holder.
 */
class RegionDamageAndViewsTest {

    static final long PID = Pids.current();
    static final int HEAP_END = HEAP_OFFSET + 4096;

    @TempDir Path dir;

    RegionHeap heap;

    RegionHeap heap(String spec) {
        path = dir.resolve("h" + System.nanoTime() + ".region");
        heap = new RegionHeap(path, 4096, spec);
        return heap;
    }

    Path path;

    @AfterEach
    void closeRegion() {
        if (heap != null) {
            heap.close();
        }
    }

    // ------------------------------------------------------------------- damaged words

    @Test
    void aDamagedBoundaryTagBeforeAFreedBlockIsReportedAndNothingMerged() {
        //                              0  1   2   3
        RegionHeap heap = heap("U* U48 X96 U48");
        int block = heap.at(2);
        long tag = heap.word(block + TAG_WORD);
        long tail = heap.word(block - 8);
        long[] damages = {
            sizeWord(16, true), // below the smallest block
            sizeWord(1 << 30, false), // a block before the heap's start
            sizeWord(48, false) // says free: the block there is used
        };
        for (long damage : damages) {
            heap.raw.setLongVolatile(block - 8, damage);
            assertThatThrownBy(() -> heap.region.free(heap.handles[2]))
                    .as("tag 0x%x", damage)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining(
                            "the boundary tag before block " + block + " does not match its block");
            assertThat(heap.word(heap.at(1) + SIZE_WORD)).isEqualTo(sizeWord(48, true));
            assertThat(heap.head()).isZero();
            heap.raw.setLongVolatile(block + TAG_WORD, tag); // taken by the failed free
        }
        heap.raw.setLongVolatile(block - 8, tail);
        heap.region.free(heap.handles[2]);
        heap.assertFreeBlock(block, 96, 0, 0);
        RegionInvariants.check(heap.region);
    }

    @Test
    void aFreeListNamingAnOffsetOutsideTheHeapOrMisalignedIsReported() {
        //                              0  1   2
        RegionHeap heap = heap("U* F64 U48");
        int[] bad = {16, HEAP_OFFSET - 16, HEAP_END - 16, heap.at(1) + 8};
        for (int offset : bad) {
            heap.raw.setLongVolatile(FREE_HEAD_OFFSET, offset);
            assertThatThrownBy(() -> heap.region.freeList())
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("a block at offset " + offset + ", outside the heap [")
                    .hasMessageContaining("is corrupt")
                    .hasMessageContaining("recreate the region");
            assertThatThrownBy(() -> heap.region.largestFreeBlock())
                    .isInstanceOf(CxcFormatException.class);
        }
        // 32 bytes before the end is inside the heap: its (meta) word is judged as a size word.
        heap.raw.setLongVolatile(FREE_HEAD_OFFSET, HEAP_END - 32);
        assertThatThrownBy(() -> heap.region.freeList())
                .hasMessageContaining("the block at offset " + (HEAP_END - 32) + " has size word");
        heap.raw.setLongVolatile(FREE_HEAD_OFFSET, heap.at(1));
        RegionInvariants.check(heap.region);
    }

    @Test
    void aSizeWordThatIsSmallMisalignedPastTheEndOrUntaggedIsReported() {
        //                              0  1   2   3
        RegionHeap heap = heap("U* X96 U48 U48");
        int block = heap.at(1);
        long size = heap.word(block + SIZE_WORD);
        // Each damage with a boundary tag that matches it, so that only the size is wrong.
        int[] sizes = {16, 40, 4096};
        for (int bad : sizes) {
            long word = sizeWord(bad, true);
            heap.raw.setLongVolatile(block + SIZE_WORD, word);
            if (bad < 96) {
                long tailWas = heap.word(block + bad - 8);
                heap.raw.setLongVolatile(block + bad - 8, word);
                assertBlockReported(heap, block, size);
                heap.raw.setLongVolatile(block + bad - 8, tailWas);
            } else {
                assertBlockReported(heap, block, size);
            }
        }
        // A size word whose boundary tag differs.
        heap.raw.setLongVolatile(block + SIZE_WORD, sizeWord(80, true));
        assertBlockReported(heap, block, size);
        RegionInvariants.check(heap.region);
    }

    private static void assertBlockReported(RegionHeap heap, int block, long size) {
        assertThatThrownBy(() -> heap.region.blocks())
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("the block at offset " + block + " has size word 0x");
        assertThatThrownBy(() -> heap.region.reclaimDead())
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("the block at offset " + block + " has size word 0x");
        heap.raw.setLongVolatile(block + SIZE_WORD, size);
    }

    @Test
    void aFreeListNamingAUsedBlockOrGoingBackIsReported() {
        //                              0  1   2   3   4
        RegionHeap heap = heap("U* F64 U48 F80 U48");
        heap.raw.setLongVolatile(FREE_HEAD_OFFSET, heap.at(2));
        assertThatThrownBy(() -> heap.region.freeList())
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining(
                        "the free list names block " + heap.at(2) + " after 0, a used block");
        assertThatThrownBy(() -> heap.region.allocate(1000)).hasMessageContaining("a used block");
        heap.raw.setLongVolatile(FREE_HEAD_OFFSET, heap.at(1));
        // The second free block's next link back to the first: out of address order.
        long links = heap.word(heap.at(3) + TAG_WORD);
        heap.raw.setLongVolatile(heap.at(3) + TAG_WORD, link(heap.at(1), heap.at(1)));
        assertThatThrownBy(() -> heap.region.freeList())
                .hasMessageContaining(
                        "the free list names block "
                                + heap.at(1)
                                + " after "
                                + heap.at(3)
                                + ", out of address order");
        assertThatThrownBy(() -> heap.region.allocate(1000))
                .hasMessageContaining("out of address order");
        // largestFreeBlock checks no order: it stops at the bound instead.
        assertThatThrownBy(() -> heap.region.largestFreeBlock())
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("the free list has a cycle");
        heap.raw.setLongVolatile(heap.at(3) + TAG_WORD, links);
        RegionInvariants.check(heap.region);
    }

    @Test
    void openRefusesAFirstFreeBlockOutsideTheHeapAndMoreUsedBytesThanTheHeap() {
        Path file = dir.resolve("open.region");
        SharedRegion.TYPE.create(file, new SharedRegion.Settings(4096)).close();
        AtomicBuffer raw = RawBody.of(file);
        for (long head : new long[] {16, HEAP_OFFSET + 8, HEAP_END - 16, HEAP_END}) {
            raw.setLongVolatile(FREE_HEAD_OFFSET, head);
            assertThatThrownBy(
                            () ->
                                    SharedRegion.TYPE
                                            .openAsRecorded(file, CxcFileOptions.defaults())
                                            .close())
                    .as("head %d", head)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining(
                            "first free block at "
                                    + head
                                    + ", outside the heap ["
                                    + HEAP_OFFSET
                                    + ", "
                                    + HEAP_END
                                    + ")");
        }
        for (long head : new long[] {0, HEAP_OFFSET, HEAP_END - MIN_BLOCK}) {
            raw.setLongVolatile(FREE_HEAD_OFFSET, head);
            SharedRegion.TYPE
                    .openAsRecorded(file, CxcFileOptions.defaults())
                    .close(); // the body check looks no further
        }
        raw.setLongVolatile(FREE_HEAD_OFFSET, HEAP_OFFSET);
        raw.setLongVolatile(USED_OFFSET, used(4096 + 16, 1));
        assertThatThrownBy(
                        () ->
                                SharedRegion.TYPE
                                        .openAsRecorded(file, CxcFileOptions.defaults())
                                        .close())
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("used bytes 4112, more than the heap's 4096");
        raw.setLongVolatile(USED_OFFSET, used(4096, 1));
        try (SharedRegion region =
                SharedRegion.TYPE.openAsRecorded(file, CxcFileOptions.defaults())) {
            assertThat(region.usedBytes()).isEqualTo(4096);
            raw.setLongVolatile(USED_OFFSET, used(8192, 1));
            assertThat(region.usedBytes()).as("never past the capacity").isEqualTo(4096);
            assertThat(region.freeBytes()).isZero();
            raw.setLongVolatile(USED_OFFSET, used(0, 0));
        }
    }

    // ----------------------------------------------------------------------------- views

    @Test
    void blocksShowsEachBlocksOffsetSizeStateOwnerAndCache() {
        Path file = dir.resolve("views.region");
        try (SharedRegion region =
                SharedRegion.TYPE.create(file, new SharedRegion.Settings(64 * 1024))) {
            long mine = region.allocate(100);
            long cached = region.allocate(40);
            long disowned = region.allocate(300);
            region.free(cached);
            region.disown(disowned);
            assertThat(region.blocks())
                    .containsExactly(
                            new SharedRegion.Block(
                                    HEAP_OFFSET, 64 * 1024 - 144 - 80 - 336, false, 0, false),
                            new SharedRegion.Block((int) offset(disowned), 336, true, 0, false),
                            new SharedRegion.Block((int) offset(cached), 80, true, PID, true),
                            new SharedRegion.Block((int) offset(mine), 144, true, PID, false));
            assertThat(region.describe())
                    .containsEntry("capacityBytes", 64 * 1024)
                    .containsEntry("usedBytes", 560L)
                    .containsEntry("freeBytes", 64 * 1024 - 560L)
                    .containsEntry("usedBlocks", 3L)
                    .containsEntry("cachedBytes", 80L)
                    .containsEntry("allocations", 3L)
                    .containsEntry("repairs", 0L)
                    .containsEntry("lockHolderPid", 0L)
                    .containsEntry("lockWaiterPid", 0L);
            assertThat(region.maxAllocation()).isEqualTo(64 * 1024 - OVERHEAD);
            assertThat(region.capacity()).isEqualTo(64 * 1024);
            assertThat(region.flushCache()).isEqualTo(1);
            assertThat(region.flushCache()).isZero();
        }
    }

    @Test
    void aPayloadLengthBeyondItsBlockIsClampedToTheBlock() {
        //                              0  1    2
        RegionHeap heap = heap("U* X112 U48");
        int block = heap.at(1);
        long handle = heap.handles[1];
        assertThat(heap.region.sizeOf(handle)).isEqualTo(112 - OVERHEAD);
        heap.raw.setLongVolatile(block + META_WORD, meta(1000, 7));
        assertThat(heap.region.sizeOf(handle)).isEqualTo(112 - OVERHEAD);
        assertThat(heap.region.get(handle)).hasSize(112 - OVERHEAD);
        heap.raw.setLongVolatile(block + META_WORD, meta(-5, 7));
        assertThat(heap.region.sizeOf(handle)).isZero();
        heap.raw.setLongVolatile(block + META_WORD, meta(50, 7));
        assertThat(heap.region.sizeOf(handle)).isEqualTo(50);
    }

    @Test
    void aRangeIsAcceptedUpToThePayloadsEndAndRefusedPastIt() {
        try (SharedRegion region =
                SharedRegion.TYPE.create(
                        dir.resolve("range.region"), new SharedRegion.Settings(4096))) {
            long handle = region.allocate(20);
            region.set(handle, 0, new byte[] {1, 2, 3, 4, 5}, 1, 3);
            byte[] out = new byte[3];
            region.get(handle, 0, out, 0, 3);
            assertThat(out).containsExactly(2, 3, 4);
            region.set(handle, 17, new byte[] {9, 8, 7}, 0, 3);
            region.get(handle, 17, out, 0, 3);
            assertThat(out).containsExactly(9, 8, 7);
            region.get(handle, 20, out, 0, 0);
            assertThatThrownBy(() -> region.get(handle, 18, out, 0, 3))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(
                            "get of 3 bytes at offset 18 is outside the block's payload of 20"
                                    + " bytes");
            assertThatThrownBy(() -> region.get(handle, 0, out, 0, -1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("get of -1 bytes at offset 0");
            assertThatThrownBy(() -> region.get(handle, -1, out, 0, 1))
                    .hasMessageContaining("get of 1 bytes at offset -1");
            assertThatThrownBy(() -> region.set(handle, 21, ByteBuffer.allocate(0)))
                    .hasMessageContaining("set of 0 bytes at offset 21");
            ByteBuffer source = ByteBuffer.wrap(new byte[] {0, 5, 6});
            source.position(1);
            region.set(handle, 18, source);
            assertThat(source.position()).isEqualTo(3);
            ByteBuffer into = ByteBuffer.allocate(4);
            into.position(1);
            region.get(handle, 18, into, 2);
            assertThat(into.position()).isEqualTo(3);
            assertThat(into.array()).containsExactly(0, 5, 6, 0);
            assertThatThrownBy(() -> region.get(handle, 19, ByteBuffer.allocate(4), 2))
                    .hasMessageContaining("get of 2 bytes at offset 19");
        }
    }

    @Test
    void aFreedHandlesViewsAreRefusedNamingTheOperation() {
        try (SharedRegion region =
                SharedRegion.TYPE.create(
                        dir.resolve("refused.region"), new SharedRegion.Settings(4096))) {
            long handle = region.allocate(20);
            assertThat(region.ownerOf(handle)).isEqualTo(PID);
            region.free(handle);
            assertThatThrownBy(() -> region.sizeOf(handle))
                    .hasMessageStartingWith("sizeOf refused in region ");
            assertThatThrownBy(() -> region.ownerOf(handle))
                    .hasMessageStartingWith("ownerOf refused in region ");
            assertThatThrownBy(() -> region.get(handle))
                    .hasMessageStartingWith("get refused in region ");
            assertThatThrownBy(() -> region.set(handle, new byte[1]))
                    .hasMessageStartingWith("set refused in region ");
            assertThatThrownBy(() -> region.disown(handle))
                    .hasMessageStartingWith("disown refused in region ");
            assertThat(region.isAllocated(handle)).isFalse();
        }
    }

    // ------------------------------------------------------------------------ settings

    @Test
    void settingsAcceptTheirLimitsRoundUpToSixtyFourAndRefuseBeyond() {
        assertThat(new SharedRegion.Settings(MIN_CAPACITY).capacityBytes()).isEqualTo(4096);
        assertThat(new SharedRegion.Settings(4097).capacityBytes()).isEqualTo(4160);
        assertThat(new SharedRegion.Settings(4160).capacityBytes()).isEqualTo(4160);
        assertThat(new SharedRegion.Settings(MAX_CAPACITY).capacityBytes()).isEqualTo(MAX_CAPACITY);
        assertThatThrownBy(() -> new SharedRegion.Settings(MIN_CAPACITY - 1))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining(
                        "capacityBytes must be 4096..1073741824 (4 KiB..1 GiB), got 4095");
        assertThatThrownBy(() -> new SharedRegion.Settings(MAX_CAPACITY + 1))
                .isInstanceOf(CxcSettingsException.class);
        assertThat(BODY_LAYOUT.bodyLength(4096, ALIGNMENT)).isEqualTo(HEAP_OFFSET + 4096L);
        assertThat(BODY_LAYOUT.bodyLength((int) MAX_CAPACITY, ALIGNMENT))
                .isEqualTo(HEAP_OFFSET + MAX_CAPACITY);
        assertThatThrownBy(() -> BODY_LAYOUT.bodyLength(4096, 8))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a region's slot size is its alignment, 16, not 8");
        for (int bad : new int[] {4095, 4096 + 32, (int) MAX_CAPACITY + 64}) {
            assertThatThrownBy(() -> BODY_LAYOUT.bodyLength(bad, ALIGNMENT))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a region's capacity must be 4096..1073741824 bytes");
        }
    }

    // ----------------------------------------------------------------- a killed holder

    @Test
    void aFreeKilledAfterItsSealIsCompletedByTheNextHolderAndCounted() {
        for (Point at : new Point[] {Point.INTENT_SEALED, Point.INTENT_HALF_APPLIED}) {
            //                              0  1   2   3   4   5   6
            RegionHeap heap = heap("F* U48 F64 X96 F80 U48 F64");
            AtomicBoolean fired = new AtomicBoolean();
            try (Interleaving.Installed kill =
                    Interleaving.install(
                            p -> {
                                if (p == at && fired.compareAndSet(false, true)) {
                                    throw new IllegalStateException("killed at " + at);
                                }
                            })) {
                assertThatThrownBy(() -> heap.region.free(heap.handles[3]))
                        .hasMessageContaining("killed at");
            }
            assertThat(fired).isTrue();
            assertThat(heap.region.repairs()).isZero();
            // The next holder replays the sealed step before its own.
            assertThat(heap.region.freeList()).containsExactly(HEAP_OFFSET, heap.at(2), heap.at(6));
            assertThat(heap.region.repairs()).as("at %s", at).isEqualTo(1);
            assertThat(heap.region.describe()).containsEntry("repairs", 1L);
            heap.assertFreeBlock(heap.at(2), 64 + 96 + 80, HEAP_OFFSET, heap.at(6));
            heap.assertFreeBlock(heap.at(6), 64, heap.at(2), 0);
            RegionInvariants.check(heap.region);
            heap.close();
            this.heap = null;
        }
    }
}
