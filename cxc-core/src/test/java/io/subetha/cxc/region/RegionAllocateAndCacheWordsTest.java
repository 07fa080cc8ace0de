package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The words the locked allocation writes (a split from the first fitting block's end, an exact fit
 * unlinked from the list, the generation and counters), what the free cache takes and gives back
 * (its byte limit, which cached block a pop takes, a fresh generation per pop, handles it must
 * refuse), and how {@code reclaimDead} judges a block's owner (by start time or by presence).
 */
class RegionAllocateAndCacheWordsTest {

    static final long PID = Pids.current();
    static final long START_TIME = ProcessProbe.startTime(PID);
    static final long DEAD_PID = Pids.MAX_PID - 1;

    @TempDir Path dir;

    RegionHeap heap;

    RegionHeap heap(String spec) {
        return heap(4096, spec);
    }

    RegionHeap heap(int capacity, String spec) {
        heap = new RegionHeap(dir.resolve("h" + System.nanoTime() + ".region"), capacity, spec);
        return heap;
    }

    SharedRegion opened;
    AtomicBuffer raw;

    SharedRegion region(long capacity) {
        Path path = dir.resolve("r" + System.nanoTime() + ".region");
        opened = SharedRegion.TYPE.create(path, new SharedRegion.Settings(capacity));
        raw = RawBody.of(path);
        return opened;
    }

    @AfterEach
    void closeRegions() {
        if (heap != null) {
            heap.close();
        }
        if (opened != null) {
            opened.close();
        }
    }

    // ------------------------------------------------------------------ locked allocation

    @Test
    void aSplitAllocationWritesItsBlockAtTheFreeBlocksEndAndShrinksIt() {
        SharedRegion region = region(4096);
        long salt = raw.getLongVolatile(SALT_OFFSET);
        assertThat(salt).isNotZero();
        long handle = region.allocate(100);
        int need = blockSize(100);
        assertThat(need).isEqualTo(144);
        int block = HEAP_OFFSET + 4096 - need;
        int generation = generationOf(1, salt);
        assertThat(handle).isEqualTo(handle(generation, block));
        assertThat(raw.getLongVolatile(block + SIZE_WORD)).isEqualTo(sizeWord(need, true));
        assertThat(raw.getLongVolatile(block + TAG_WORD)).isEqualTo(tag(generation, PID));
        assertThat(raw.getLongVolatile(block + META_WORD)).isEqualTo(meta(100, START_TIME));
        assertThat(raw.getLongVolatile(block + need - 8)).isEqualTo(sizeWord(need, true));
        int rest = 4096 - need;
        assertThat(raw.getLongVolatile(HEAP_OFFSET + SIZE_WORD)).isEqualTo(sizeWord(rest, false));
        assertThat(raw.getLongVolatile(HEAP_OFFSET + rest - 8)).isEqualTo(sizeWord(rest, false));
        assertThat(raw.getLongVolatile(HEAP_OFFSET + TAG_WORD)).isEqualTo(link(0, 0));
        assertThat(raw.getLongVolatile(FREE_HEAD_OFFSET)).isEqualTo(HEAP_OFFSET);
        assertThat(raw.getLongVolatile(ALLOCATIONS_OFFSET)).isEqualTo(1);
        assertThat(raw.getLongVolatile(USED_OFFSET)).isEqualTo(used(need, 1));
        long second = region.allocate(1);
        assertThat(generation(second)).isEqualTo(generationOf(2, salt));
        assertThat(offset(second)).isEqualTo(block - blockSize(1));
        assertThat(raw.getLongVolatile(ALLOCATIONS_OFFSET)).isEqualTo(2);
        assertThat(raw.getLongVolatile(USED_OFFSET)).isEqualTo(used(need + 48, 2));
        assertThat(region.describe()).containsEntry("allocations", 2L);
        RegionInvariants.check(region);
    }

    @Test
    void aGenerationOfZeroIsSkippedForTheNextAllocationCount() {
        SharedRegion region = region(4096);
        // generationOf(1, salt) is 0 for this salt: the first allocation counts twice.
        long salt = 0x9E37_79B1L;
        raw.setLongVolatile(SALT_OFFSET, salt);
        assertThat(generationOf(1, salt)).isZero();
        long handle = region.allocate(10);
        assertThat(generation(handle)).isEqualTo(generationOf(2, salt)).isNotZero();
        assertThat(raw.getLongVolatile(ALLOCATIONS_OFFSET)).isEqualTo(2);
        assertThat(region.isAllocated(handle)).isTrue();
        region.free(handle);
        assertThat(region.isAllocated(handle)).isFalse();
    }

    @Test
    void anAllocationLeavingLessThanTheSmallestBlockTakesTheWholeFreeBlockAndUnlinksIt() {
        //                              0  1   2   3   4    5   6   7   8
        RegionHeap heap = heap("U* F64 U48 F96 U48 F160 U48 F48 U48");
        long used = heap.region.usedBytes();
        // 64 bytes of payload need 96: the 64-byte head is passed over, the 96-byte block fits
        // exactly; a request of 80 bytes (need 112) would leave 48 of the 160-byte block.
        long handle = heap.region.allocate(64);
        int block = heap.at(3);
        assertThat(offset(handle)).isEqualTo(block);
        assertThat(heap.word(block + SIZE_WORD)).isEqualTo(sizeWord(96, true));
        assertThat(heap.word(block + TAG_WORD)).isEqualTo(tag(generation(handle), PID));
        assertThat(heap.word(block + META_WORD)).isEqualTo(meta(64, START_TIME));
        assertThat(heap.word(block + 96 - 8)).isEqualTo(sizeWord(96, true));
        heap.assertFreeBlock(heap.at(1), 64, 0, heap.at(5));
        heap.assertFreeBlock(heap.at(5), 160, heap.at(1), heap.at(7));
        heap.assertFreeBlock(heap.at(7), 48, heap.at(5), 0);
        heap.assertUsedWord(used + 96, 6);
        RegionInvariants.check(heap.region);
    }

    @Test
    void anAllocationLeavingSixteenBytesTakesTheWholeBlockAtItsSize() {
        //                              0  1   2
        RegionHeap heap = heap("U* F96 U48");
        long used = heap.region.usedBytes();
        long handle = heap.region.allocate(48); // need 80 of 96: 16 over, no block of their own
        int block = heap.at(1);
        assertThat(offset(handle)).isEqualTo(block);
        assertThat(heap.word(block + SIZE_WORD)).isEqualTo(sizeWord(96, true));
        assertThat(heap.word(block + 96 - 8)).isEqualTo(sizeWord(96, true));
        assertThat(heap.word(block + META_WORD)).isEqualTo(meta(48, START_TIME));
        assertThat(heap.region.sizeOf(handle)).isEqualTo(48);
        assertThat(heap.head()).isZero();
        heap.assertUsedWord(used + 96, 3);
        heap.region.free(handle);
        heap.assertFreeBlock(block, 96, 0, 0);
        RegionInvariants.check(heap.region);
    }

    @Test
    void anExactFitOfTheListHeadMakesItsSuccessorTheHead() {
        //                              0  1   2   3   4
        RegionHeap heap = heap("U* F96 U48 F64 U48");
        long handle = heap.region.allocate(60); // need 96
        assertThat(offset(handle)).isEqualTo(heap.at(1));
        assertThat(heap.head()).isEqualTo(heap.at(3));
        heap.assertFreeBlock(heap.at(3), 64, 0, 0);
        long last = heap.region.allocate(20); // need 64: the last free block, the list empty
        assertThat(offset(last)).isEqualTo(heap.at(3));
        assertThat(heap.head()).isZero();
        assertThat(heap.region.freeBytes()).isZero();
        RegionInvariants.check(heap.region);
    }

    @Test
    void anExactFitOfTheListTailClearsItsPredecessorsNextLink() {
        //                              0  1   2   3   4
        RegionHeap heap = heap("U* F64 U48 F96 U48");
        long handle = heap.region.allocate(64);
        assertThat(offset(handle)).isEqualTo(heap.at(3));
        heap.assertFreeBlock(heap.at(1), 64, 0, 0);
        assertThat(heap.head()).isEqualTo(heap.at(1));
        RegionInvariants.check(heap.region);
    }

    @Test
    void anAllocationLeavingExactlyTheSmallestBlockSplitsIt() {
        //                              0  1    2
        RegionHeap heap = heap("U* F112 U48");
        long used = heap.region.usedBytes();
        long handle = heap.region.allocate(48); // need 80: 32 left, a block of its own
        assertThat(offset(handle)).isEqualTo(heap.at(1) + 32);
        assertThat(heap.word(heap.at(1) + 32 + SIZE_WORD)).isEqualTo(sizeWord(80, true));
        heap.assertFreeBlock(heap.at(1), MIN_BLOCK, 0, 0);
        heap.assertUsedWord(used + 80, 3);
        RegionInvariants.check(heap.region);
    }

    @Test
    void theFirstFitPassesSmallerBlocksAndSplitsTheFirstThatFitsFromItsEnd() {
        //                              0  1   2   3    4   5    6
        RegionHeap heap = heap("U* F64 U48 F208 U48 F304 U48");
        long[] small = heap.snapshot(1);
        long[] large = heap.snapshot(5);
        long handle = heap.region.allocate(100); // need 144
        assertThat(offset(handle)).isEqualTo(heap.at(3) + 208 - 144);
        heap.assertFreeBlock(heap.at(3), 64, heap.at(1), heap.at(5));
        heap.assertUnchanged(1, small);
        heap.assertUnchanged(5, large);
        RegionInvariants.check(heap.region);
    }

    // ------------------------------------------------------------------------- the cache

    @Test
    void theCacheTakesBlocksUpToExactlyItsByteLimit() {
        SharedRegion region = region(64 * 1024);
        assertThat(cacheByteLimit(64 * 1024)).isEqualTo(512);
        long[] blocks = new long[5];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = region.allocate(96); // 128-byte blocks: four fill 512 exactly
        }
        for (long h : blocks) {
            region.free(h);
        }
        assertThat(region.cachedBlocks()).isEqualTo(4);
        assertThat(region.cachedBytes()).isEqualTo(512);
        RegionInvariants.check(region);
    }

    @Test
    void aBlockOfTheLargestCachedSizeIsTakenBackFromTheCache() {
        SharedRegion region = region(1 << 20);
        long largest = region.allocate(CACHE_MAX_BLOCK - OVERHEAD);
        long guard = region.allocate(16);
        region.free(largest);
        assertThat(region.cachedBlocks()).isEqualTo(1);
        long again = region.allocate(CACHE_MAX_BLOCK - OVERHEAD);
        assertThat(offset(again)).isEqualTo(offset(largest));
        assertThat(region.cachedBlocks()).isZero();
        assertThat(region.cachedBytes()).isZero();
        assertThat(region.isAllocated(guard)).isTrue();
        RegionInvariants.check(region);
    }

    @Test
    void aPopTakesTheLastCachedBlockOfItsSizeAndKeepsTheOthersFindable() {
        SharedRegion region = region(64 * 1024);
        long x = region.allocate(16); // 48
        long y = region.allocate(48); // 80
        long z = region.allocate(80); // 112
        long w = region.allocate(16); // 48
        region.allocate(16); // a guard
        for (long h : new long[] {x, y, z, w}) {
            region.free(h);
        }
        assertThat(region.cachedBlocks()).isEqualTo(4);
        assertThat(region.cachedBytes()).isEqualTo(48 + 80 + 112 + 48);
        assertThat(offset(region.allocate(16))).as("the last 48").isEqualTo(offset(w));
        assertThat(region.cachedBytes()).isEqualTo(48 + 80 + 112);
        assertThat(offset(region.allocate(48))).isEqualTo(offset(y));
        assertThat(region.cachedBlocks()).isEqualTo(2);
        assertThat(region.cachedBytes()).isEqualTo(48 + 112);
        assertThat(offset(region.allocate(80))).as("moved into y's place").isEqualTo(offset(z));
        assertThat(offset(region.allocate(16))).isEqualTo(offset(x));
        assertThat(region.cachedBlocks()).isZero();
        assertThat(region.cachedBytes()).isZero();
        RegionInvariants.check(region);
    }

    @Test
    void aBlockPoppedTwiceGetsANewGenerationEachTime() {
        SharedRegion region = region(64 * 1024);
        long first = region.allocate(40);
        region.free(first);
        long second = region.allocate(40);
        region.free(second);
        long third = region.allocate(40);
        assertThat(offset(second)).isEqualTo(offset(first));
        assertThat(offset(third)).isEqualTo(offset(first));
        assertThat(generation(second)).isNotZero().isNotEqualTo(generation(first));
        assertThat(generation(third)).isNotZero().isNotIn(generation(first), generation(second));
        assertThat(region.isAllocated(second)).isFalse();
        assertThat(region.isAllocated(third)).isTrue();
        assertThatThrownBy(() -> region.free(second)).hasMessageContaining("is stale");
        region.free(third);
        RegionInvariants.check(region);
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

    // -------------------------------------------------------------------- reclaimDead

    @Test
    void aBlockTakenByAFreeThatDiedIsJudgedByPresenceNotByItsAllocatorsStartTime() {
        //                              0  1   2   3
        RegionHeap heap = heap("U* T48 U48 U48");
        int block = heap.at(1);
        // Taken by this process's free (generation 0, no mark), allocated by a process whose
        // start time is not this one's: this PID is present, so the block is kept.
        heap.raw.setLongVolatile(block + TAG_WORD, tag(0, PID));
        heap.raw.setLongVolatile(block + META_WORD, meta(16, START_TIME + 1));
        assertThat(heap.region.reclaimDead()).isZero();
        assertThat(heap.region.usedBlocks()).isEqualTo(4);
        heap.raw.setLongVolatile(block + TAG_WORD, tag(0, DEAD_PID));
        assertThat(heap.region.reclaimDead()).isEqualTo(48);
        assertThat(heap.region.usedBlocks()).isEqualTo(3);
        RegionInvariants.check(heap.region);
    }

    @Test
    void aCachedBlockOfThisPidUnderAnotherStartTimeIsAReusedPidsAndFreed() {
        //                              0  1   2   3
        RegionHeap heap = heap("U* C48 U48 U48");
        int block = heap.at(1);
        heap.raw.setLongVolatile(block + TAG_WORD, tag(0, PID));
        heap.raw.setLongVolatile(block + META_WORD, cachedMeta(START_TIME + 1));
        assertThat(heap.region.reclaimDead()).isEqualTo(48);
        assertThat(heap.region.usedBlocks()).isEqualTo(3);
        RegionInvariants.check(heap.region);
    }

    @Test
    void blocksOfOnePidAreJudgedPerStartTime() {
        //                              0  1   2   3   4   5   6   7   8
        RegionHeap heap = heap("U* L48 U48 R64 U48 L80 U48 R96 U48");
        // R: allocated by an earlier process of this PID (another start time): dead. L: this one.
        for (int i : new int[] {3, 7}) {
            int block = heap.at(i);
            heap.raw.setLongVolatile(
                    block + META_WORD, meta(heap.sizes[i] - OVERHEAD, START_TIME + 1));
        }
        assertThat(heap.region.reclaimDead()).isEqualTo(64 + 96);
        assertThat(heap.region.isAllocated(heap.handles[1])).isTrue();
        assertThat(heap.region.isAllocated(heap.handles[5])).isTrue();
        assertThat(heap.region.isAllocated(heap.handles[3])).isFalse();
        assertThat(heap.region.isAllocated(heap.handles[7])).isFalse();
        assertThat(heap.region.freeList()).containsExactly(heap.at(3), heap.at(7));
        RegionInvariants.check(heap.region);
    }

    // ----------------------------------------------------------------------- settings

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
}
