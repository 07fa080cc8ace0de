package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the region refuses and reports instead of trusting: handles that name no allocated block
 * (freed, stale, another region's, 0, outside the heap, misaligned, generation 0, a free block's
 * links, words forged to look like a block inside a payload or below the heap), each refused naming
 * the operation and changing nothing; arguments and settings past their limits; and a damaged heap
 * (a boundary tag, a block's offset or size word, the free list's order, a cycle, the body check on
 * open), reported as corrupt rather than followed, with a payload length past its block clamped.
 */
class RegionBadInputTest {

    static final long PID = Pids.current();
    static final int HEAP_END = HEAP_OFFSET + 4096;
    static final int LARGE_HEAP_END = HEAP_OFFSET + 64 * 1024;

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

    AtomicBuffer raw;

    /** A region of 64 KiB. */
    SharedRegion region() {
        return region(64 * 1024);
    }

    /** A region of {@code capacity}, with the test's own mapping of its body in {@link #raw}. */
    SharedRegion region(long capacity) {
        SharedRegion region = files.region(capacity);
        raw = RawBody.of(region.file());
        return region;
    }

    /** A heap of 4 KiB laid out as {@code spec}, its cache off. */
    RegionHeap heap(String spec) {
        return heap(4096, spec);
    }

    RegionHeap heap(int capacity, String spec) {
        return files.heap(capacity, spec);
    }

    /** A heap of 64 KiB laid out as {@code spec}, its cache on. */
    RegionHeap cachingHeap(String spec) {
        return heap(64 * 1024, spec).cacheOn();
    }

    @Test
    void doubleFreeStaleForeignAndBogusHandlesAreRefusedAndChangeNothing() {
        try (SharedRegion region = region(4096);
                SharedRegion other = region(4096)) {
            long handle = region.allocate(64);
            region.free(handle);
            assertThatThrownBy(() -> region.free(handle))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("freed already");
            long again = region.allocate(64);
            assertThat(SharedRegionDescriptor.offset(again))
                    .isEqualTo(SharedRegionDescriptor.offset(handle));
            assertThatThrownBy(() -> region.free(handle))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("stale");
            assertThatThrownBy(() -> region.get(handle)).hasMessageContaining("stale");
            long foreign = other.allocate(64);
            assertThat(SharedRegionDescriptor.offset(foreign))
                    .isEqualTo(SharedRegionDescriptor.offset(again));
            assertThatThrownBy(() -> region.free(foreign)).hasMessageContaining("another region");
            assertThatThrownBy(() -> region.free(0))
                    .hasMessageContaining("handle 0 is not a handle");
            assertThatThrownBy(() -> region.free(SharedRegionDescriptor.handle(7, 1 << 30)))
                    .hasMessageContaining("outside this region's heap");
            assertThatThrownBy(() -> region.free(again + 8)).hasMessageContaining("not 16-aligned");
            assertThat(region.isAllocated(again)).isTrue();
            assertThat(region.isAllocated(handle)).isFalse();
            RegionInvariants.check(region);
            assertThat(region.usedBlocks()).isEqualTo(1);
        }
    }

    @Test
    void handlesNamingNoBlockStartOfTheHeapAreRefusedSayingWhere() {
        SharedRegion region = region();
        long kept = region.allocate(16);
        int[] outside = {
            16, HEAP_OFFSET - 16, LARGE_HEAP_END, LARGE_HEAP_END - 16, HEAP_OFFSET + 8
        };
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
                                    + LARGE_HEAP_END
                                    + ") or not 16-aligned");
        }
        // Inside the free block: no block starts there.
        for (int offset : new int[] {HEAP_OFFSET + 64, LARGE_HEAP_END - 48 - MIN_BLOCK}) {
            assertThatThrownBy(() -> region.free(handle(7, offset)))
                    .hasMessageContaining("names no allocated block");
        }
        assertThat(region.cachedBlocks()).isZero();
        assertThat(region.isAllocated(kept)).isTrue();
        RegionInvariants.check(region);
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

    @Test
    void aGenerationZeroHandleOfACachedBlockIsRefusedAndTheBlockStaysCachedOnce() {
        SharedRegion region = region(64 * 1024);
        long handle = region.allocate(40);
        region.free(handle);
        int block = (int) offset(handle);
        long tag = raw.getLongVolatile(block + TAG_WORD);
        assertThat(tag).isEqualTo(tag(0, PID));
        assertThatThrownBy(() -> region.free(handle(0, block)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no allocated block");
        assertThat(region.cachedBlocks()).isEqualTo(1);
        assertThat(region.cachedBytes()).isEqualTo(blockSize(40));
        assertThat(raw.getLongVolatile(block + TAG_WORD)).isEqualTo(tag);
        RegionInvariants.check(region);
    }

    @Test
    void aHandleOfAFreeBlockWhoseLinksMatchItIsRefusedAndTheLinksKept() {
        //                              0  1   2   3
        RegionHeap heap = heap(64 * 1024, "F* U48 F64 U48").cacheOn();
        int block = heap.at(2);
        long links = heap.word(block + TAG_WORD);
        assertThat(links).isEqualTo(link(HEAP_OFFSET, 0));
        // A free block's links read as a tag: previous in the generation's place.
        long bogus = handle(HEAP_OFFSET, block);
        assertThatThrownBy(() -> heap.region.free(bogus))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no allocated block");
        assertThat(heap.word(block + TAG_WORD)).isEqualTo(links);
        assertThat(heap.region.cachedBlocks()).isZero();
        RegionInvariants.check(heap.region);
    }

    @Test
    void wordsLookingLikeABlockInsideAPayloadAreNotAHandlesBlock() {
        //                   0  1    2
        RegionHeap heap = cachingHeap("U* X112 U48");
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
        RegionHeap heap = cachingHeap("U* U48");
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
    void aSmallBlockWhoseSizeWordIsDamagedIsNotCachedButRefused() {
        //                              0  1   2   3
        RegionHeap heap = heap(64 * 1024, "U* U48 U48 U48").cacheOn();
        // Below the smallest block.
        int low = heap.at(1);
        long lowTag = heap.word(low + TAG_WORD);
        heap.raw.setLongVolatile(low + SIZE_WORD, sizeWord(16, true));
        assertThatThrownBy(() -> heap.region.free(heap.handles[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no allocated block");
        assertThat(heap.word(low + TAG_WORD)).isEqualTo(lowTag);
        // Past the heap's end (the last block claims 64 bytes of its 48).
        int last = heap.at(3);
        long lastTag = heap.word(last + TAG_WORD);
        heap.raw.setLongVolatile(last + SIZE_WORD, sizeWord(64, true));
        assertThatThrownBy(() -> heap.region.free(heap.handles[3]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no allocated block");
        assertThat(heap.word(last + TAG_WORD)).isEqualTo(lastTag);
        assertThat(heap.region.cachedBlocks()).isZero();
        // An intact small block next to them is still cached.
        heap.region.free(heap.handles[2]);
        assertThat(heap.region.cachedBlocks()).isEqualTo(1);
        heap.raw.setLongVolatile(low + SIZE_WORD, sizeWord(48, true));
        heap.raw.setLongVolatile(last + SIZE_WORD, sizeWord(48, true));
        assertThat(heap.region.flushCache()).isEqualTo(1);
        RegionInvariants.check(heap.region);
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
    void badArgumentsNameTheValueAndTheLimit() {
        try (SharedRegion region = region(4096)) {
            assertThatThrownBy(() -> region.allocate(0))
                    .hasMessageContaining("size 0 is outside 1..4064");
            assertThatThrownBy(() -> region.allocate(-5)).hasMessageContaining("size -5");
            assertThatThrownBy(() -> region.allocate(4065)).hasMessageContaining("4065");
            long handle = region.allocate(10);
            assertThatThrownBy(() -> region.set(handle, new byte[11]))
                    .hasMessageContaining(
                            "11 bytes at offset 0 is outside the block's payload of 10 bytes");
            assertThatThrownBy(() -> region.get(handle, -1, new byte[4], 0, 1))
                    .hasMessageContaining("offset -1");
        }
        assertThatThrownBy(
                        () ->
                                SharedRegion.TYPE.create(
                                        dir.resolve("small"), new SharedRegion.Settings(100)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacityBytes must be 4096..");
    }

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

    @Test
    void theLockTimeoutMustBePositive() {
        SharedRegion region = region(4096);
        assertThat(region.lockTimeout()).isEqualTo(SharedRegion.DEFAULT_LOCK_TIMEOUT);
        SharedRegion.Settings settings = new SharedRegion.Settings(4096);
        assertThatThrownBy(() -> settings.withLockTimeout(Duration.ZERO))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("lockTimeout must be positive, got PT0S");
        assertThatThrownBy(() -> settings.withLockTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        try (SharedRegion quick =
                SharedRegion.open(region.file(), settings.withLockTimeout(Duration.ofNanos(1)))) {
            assertThat(quick.lockTimeout()).isEqualTo(Duration.ofNanos(1));
            assertThat(quick.settings().lockTimeout()).isEqualTo(Duration.ofNanos(1));
        }
    }

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
}
