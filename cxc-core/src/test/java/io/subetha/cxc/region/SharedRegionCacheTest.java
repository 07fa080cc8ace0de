package io.subetha.cxc.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The free cache of small blocks: no lock, truthful counts, and every free still checked. */
class SharedRegionCacheTest {

    static final long CAPACITY = 64 * 1024;

    @TempDir Path dir;

    SharedRegion region() {
        return SharedRegion.TYPE.create(
                dir.resolve("c" + System.nanoTime() + ".region"),
                new SharedRegion.Settings(CAPACITY));
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
}
