package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handle's free cache of small blocks: a free and an allocation of one without the lock, counted
 * as used; its bounds (blocks, bytes, the largest block size, the heap's first and last block, the
 * smallest block) and what sends a free to the lock instead; which block a pop takes and the words
 * and fresh generation it writes; the cache returned by an allocation it cannot serve, by {@code
 * flushCache} and on close; a cached free that finds the cache filled after its claim; a handle
 * with its cache off; every free of a cached block still checked.
 */
class RegionFreeCacheTest {

    static final long PID = Pids.current();
    static final long CAPACITY = 64 * 1024;
    static final int HEAP_END = HEAP_OFFSET + (int) CAPACITY;

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

    /** A region of {@link #CAPACITY}. */
    SharedRegion region() {
        return region(CAPACITY);
    }

    /** A region of {@code capacity}, with the test's own mapping of its body in {@link #raw}. */
    SharedRegion region(long capacity) {
        SharedRegion region = files.region(capacity);
        raw = RawBody.of(region.file());
        return region;
    }

    RegionHeap heap(int capacity, String spec) {
        return files.heap(capacity, spec);
    }

    @Test
    void aSmallFreeIsCachedCountedAsUsedAndAllocatedAgainWithoutTheLock() throws Exception {
        try (SharedRegion region = region()) {
            long other = region.allocate(500);
            long first = region.allocate(64);
            int block = SharedRegionDescriptor.blockSize(64);
            region.free(first);
            assertThat(region.cachedBlocks()).isEqualTo(1);
            assertThat(region.cachedBytes()).isEqualTo(block);
            assertThat(region.usedBytes())
                    .as("a cached block is not free to others")
                    .isEqualTo(block + SharedRegionDescriptor.blockSize(500));
            assertThat(region.isAllocated(first)).isFalse();
            RegionInvariants.check(region);
            // Another thread holds the lock: the cached allocate and free do not wait for it.
            try (StepGate<Void> holder =
                    StepGate.holdAt(
                            Point.INTENT_LOCKED,
                            () -> {
                                region.free(other);
                                return null;
                            })) {
                assertThat(region.lockHolder()).isEqualTo(Pids.current());
                long again = region.allocate(64);
                assertThat(SharedRegionDescriptor.offset(again))
                        .isEqualTo(SharedRegionDescriptor.offset(first));
                assertThat(again).as("a new generation").isNotEqualTo(first);
                assertThat(region.sizeOf(again)).isEqualTo(64);
                assertThat(region.ownerOf(again)).isEqualTo(Pids.current());
                region.free(again);
                holder.release();
            }
            RegionInvariants.check(region);
            assertThat(region.cachedBlocks()).isEqualTo(1);
            region.free(region.allocate(40)); // a size the cache does not hold: it is returned
            assertThat(region.cachedBlocks()).as("only the 40-byte block").isEqualTo(1);
            assertThat(region.flushCache()).isEqualTo(1);
            RegionInvariants.check(region);
            assertThat(region.usedBytes()).isZero();
            assertThat(region.freeList()).hasSize(1);
        }
    }

    @Test
    void doubleStaleAndRacingFreesOfCachedBlocksAreRefused() throws Exception {
        try (SharedRegion region = region()) {
            long handle = region.allocate(40);
            region.free(handle);
            assertThatThrownBy(() -> region.free(handle))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("freed already");
            assertThatThrownBy(() -> region.get(handle)).hasMessageContaining("freed already");
            assertThatThrownBy(() -> region.disown(handle)).hasMessageContaining("freed already");
            long again = region.allocate(40);
            assertThat(SharedRegionDescriptor.offset(again))
                    .isEqualTo(SharedRegionDescriptor.offset(handle));
            assertThatThrownBy(() -> region.free(handle)).hasMessageContaining("stale");
            assertThat(region.isAllocated(again)).isTrue();
            // Two handles of one file (as two processes would be): one free of a handle wins.
            Path path = dir.resolve("two.region");
            try (SharedRegion a =
                            SharedRegion.TYPE.create(path, new SharedRegion.Settings(CAPACITY));
                    SharedRegion b =
                            SharedRegion.TYPE.openAsRecorded(path, CxcFileOptions.defaults())) {
                for (int round = 0; round < 200; round++) {
                    long h = a.allocate(1 + round % 200);
                    CyclicBarrier start = new CyclicBarrier(2);
                    CompletableFuture<Boolean> viaA =
                            CompletableFuture.supplyAsync(() -> freed(a, h, start));
                    CompletableFuture<Boolean> viaB =
                            CompletableFuture.supplyAsync(() -> freed(b, h, start));
                    assertThat(viaA.get(60, TimeUnit.SECONDS) ^ viaB.get(60, TimeUnit.SECONDS))
                            .as("exactly one of two frees of one handle wins, round %d", round)
                            .isTrue();
                    if (round % 7 == 0) {
                        b.flushCache(); // now and then to the free list, so both paths race
                    }
                }
                a.flushCache();
                b.flushCache();
                assertThat(a.usedBytes()).isZero();
                assertThat(a.freeList()).hasSize(1);
            }
        }
    }

    private static boolean freed(SharedRegion region, long handle, CyclicBarrier start) {
        try {
            start.await(60, TimeUnit.SECONDS);
            region.free(handle);
            return true;
        } catch (IllegalArgumentException refused) {
            assertThat(refused).hasMessageContaining("freed already");
            return false;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aHandleWithItsCacheOffFreesUnderTheLock() {
        Path path = dir.resolve("off.region");
        try (SharedRegion region =
                SharedRegion.TYPE.create(path, new SharedRegion.Settings(CAPACITY))) {
            long kept = region.allocate(64);
            region.free(kept);
            assertThat(region.cachedBlocks()).isEqualTo(1);
            try (SharedRegion off =
                    SharedRegion.open(
                            path, new SharedRegion.Settings(CAPACITY).withFreeCache(false))) {
                assertThat(off.freeCache()).isFalse();
                off.free(off.allocate(64));
                assertThat(off.cachedBlocks()).isZero();
                assertThat(off.usedBytes())
                        .as("only the other handle's cached block")
                        .isEqualTo(SharedRegionDescriptor.blockSize(64));
            }
            assertThat(region.flushCache()).isEqualTo(1);
            assertThat(region.usedBytes()).isZero();
            RegionInvariants.check(region);
            assertThat(region.freeCache()).isTrue();
            region.free(region.allocate(64));
            assertThat(region.cachedBlocks()).isEqualTo(1);
        }
    }

    @Test
    void theCacheIsBoundedReturnedWhenFullAndOnClose() {
        Path path = dir.resolve("bounded.region");
        try (SharedRegion region =
                SharedRegion.TYPE.create(path, new SharedRegion.Settings(CAPACITY))) {
            List<Long> held = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                held.add(region.allocate(8));
            }
            held.forEach(region::free);
            assertThat(region.cachedBlocks())
                    .isEqualTo(
                            Math.min(
                                    SharedRegionDescriptor.CACHE_BLOCKS,
                                    SharedRegionDescriptor.cacheByteLimit((int) CAPACITY)
                                            / SharedRegionDescriptor.blockSize(8)));
            RegionInvariants.check(region);
            long cached = region.cachedBytes();
            assertThat(region.largestFreeBlock()).isEqualTo((int) (CAPACITY - cached));
            // Too big for the cache: the allocation returns the cache, the free takes the lock.
            long big = region.allocate(SharedRegionDescriptor.CACHE_MAX_BLOCK);
            assertThat(region.cachedBlocks())
                    .as("returned by an allocation it cannot serve")
                    .isZero();
            region.free(big);
            assertThat(region.cachedBlocks()).isZero();
            assertThat(region.largestFreeBlock()).isEqualTo((int) CAPACITY);
            // The whole heap, once the cached block is back in the list.
            region.free(region.allocate(8));
            assertThat(region.cachedBlocks()).isEqualTo(1);
            long all = region.allocate((int) CAPACITY - SharedRegionDescriptor.OVERHEAD);
            assertThat(region.cachedBlocks()).isZero();
            region.free(all);
            assertThatThrownBy(() -> region.allocate((int) CAPACITY))
                    .isInstanceOf(IllegalArgumentException.class);
            region.allocate(8);
            region.free(region.allocate(8));
        }
        try (SharedRegion region =
                SharedRegion.TYPE.openAsRecorded(path, CxcFileOptions.defaults())) {
            assertThat(region.usedBlocks()).as("close returned the cache").isEqualTo(1);
            assertThatThrownBy(
                            () -> {
                                List<Long> fill = new ArrayList<>();
                                while (true) {
                                    fill.add(region.allocate(4000));
                                }
                            })
                    .isInstanceOf(CxcCapacityException.class);
        }
    }

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
    void aFreeGoesToTheLockWhenTheBlockIsLargeOrTheCacheIsFullOrOff() {
        try (SharedRegion region = region(1 << 20)) {
            assertThat(cacheByteLimit(1 << 20)).isEqualTo(CACHE_BLOCKS * CACHE_MAX_BLOCK);
            long large = region.allocate(CACHE_MAX_BLOCK - OVERHEAD + 1);
            long largest = region.allocate(CACHE_MAX_BLOCK - OVERHEAD);
            region.free(large);
            assertThat(region.cachedBlocks()).isZero();
            region.free(largest);
            assertThat(region.cachedBlocks()).isEqualTo(1);
            assertThat(region.cachedBytes()).isEqualTo(CACHE_MAX_BLOCK);
            region.flushCache();
            long[] small = new long[CACHE_BLOCKS + 1];
            for (int i = 0; i < small.length; i++) {
                small[i] = region.allocate(1);
            }
            for (long h : small) {
                region.free(h);
            }
            assertThat(region.cachedBlocks()).isEqualTo(CACHE_BLOCKS); // the ninth went to the list
            assertThat(region.cachedBytes()).isEqualTo(CACHE_BLOCKS * blockSize(1));
            assertThat(region.freeCache()).isTrue();
            assertThat(region.flushCache()).isEqualTo(CACHE_BLOCKS);
            assertThat(region.cachedBlocks()).isZero();
            try (SharedRegion off =
                    SharedRegion.open(
                            region.file(),
                            new SharedRegion.Settings(1 << 20).withFreeCache(false))) {
                assertThat(off.freeCache()).isFalse();
                long h = off.allocate(1);
                off.free(h);
                assertThat(off.cachedBlocks()).isZero();
                assertThat(off.usedBlocks()).as("freed under the lock").isZero();
            }
            region.free(region.allocate(1));
            assertThat(region.cachedBlocks()).isEqualTo(1);
            RegionInvariants.check(region);
        }
        try (SharedRegion small = region(64 * 1024)) {
            // 512 bytes of cache in a 64 KiB heap: six 80-byte blocks, not seven.
            assertThat(cacheByteLimit(64 * 1024)).isEqualTo(512);
            long[] blocks = new long[7];
            for (int i = 0; i < blocks.length; i++) {
                blocks[i] = small.allocate(40);
            }
            for (long h : blocks) {
                small.free(h);
            }
            assertThat(small.cachedBlocks()).isEqualTo(6);
            assertThat(small.cachedBytes()).isEqualTo(6 * blockSize(40));
        }
        assertThat(cacheByteLimit(4096)).isEqualTo(32);
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
    void aUsedBlockOfTheSmallestSizeIsCached() {
        //                   0  1   2
        RegionHeap heap = heap((int) CAPACITY, "U* X96 U48").cacheOn();
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
    void aPopWritesTheMetaWordThenANewGenerationUnderThisPid() {
        try (SharedRegion region = region(64 * 1024)) {
            AtomicBuffer raw = RawBody.of(region.file());
            long first = region.allocate(40);
            region.free(first);
            long again = region.allocate(33); // the same 80-byte block
            int block = (int) offset(again);
            assertThat(block).isEqualTo((int) offset(first));
            assertThat(generation(again)).isNotZero().isNotEqualTo(generation(first));
            assertThat(raw.getLongVolatile(block + TAG_WORD))
                    .isEqualTo(tag(generation(again), PID));
            assertThat(length(raw.getLongVolatile(block + META_WORD))).isEqualTo(33);
            assertThat(isCachedMeta(raw.getLongVolatile(block + META_WORD))).isFalse();
            assertThat(region.sizeOf(again)).isEqualTo(33);
            assertThat(region.cachedBlocks()).isZero();
            assertThat(region.cachedBytes()).isZero();
            assertThat(region.isAllocated(first)).isFalse();
            assertThatThrownBy(() -> region.free(first))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is stale");
            region.free(again);
            RegionInvariants.check(region);
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
}
