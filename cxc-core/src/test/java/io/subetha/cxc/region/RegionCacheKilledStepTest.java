package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The free cache's steps as a process killed at each leaves the heap (the step stopped by an error
 * thrown at its {@code Interleaving} point, the file left as a kill there leaves it, the tag's PID
 * then made one above every kernel's pid_max so {@code /proc} proves it dead): a cached free killed
 * after its claim CAS, a cached block of a dead process, a cache pop killed before its writes; what
 * {@code reclaimDead} frees and keeps (a live process's cached block, a disowned one), and the
 * bounds that send a free to the lock instead of the cache.
 */
class RegionCacheKilledStepTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long PID = ProcessHandle.current().pid();

    @TempDir Path dir;

    static final class Killed extends Error {
        Killed() {
            super("killed at the step", null, false, false);
        }
    }

    static void killedAt(Point at, Runnable step) {
        AtomicBoolean fired = new AtomicBoolean();
        try (Interleaving.Installed kill =
                Interleaving.install(
                        p -> {
                            if (p == at && fired.compareAndSet(false, true)) {
                                throw new Killed();
                            }
                        })) {
            assertThatThrownBy(step::run).isInstanceOf(Killed.class);
        }
        assertThat(fired).isTrue();
    }

    Path path;

    SharedRegion region(long capacity) {
        return region(new SharedRegion.Settings(capacity));
    }

    SharedRegion region(SharedRegion.Settings settings) {
        path = dir.resolve("r" + settings.capacityBytes() + ".region");
        return SharedRegion.TYPE.create(path, settings);
    }

    static void makeDead(AtomicBuffer raw, int block) {
        long tag = raw.getLongVolatile(block + TAG_WORD);
        raw.setLongVolatile(block + TAG_WORD, tag(generation(tag), DEAD_PID));
    }

    @Test
    void aCachedFreeKilledAfterItsClaimLeavesAUsedBlockThatReclaimDeadFrees() {
        try (SharedRegion region = region(64 * 1024)) {
            AtomicBuffer raw = RawBody.of(path);
            long keep = region.allocate(100);
            long handle = region.allocate(40);
            int block = (int) offset(handle);
            long meta = raw.getLongVolatile(block + META_WORD);
            killedAt(Point.REGION_CACHE_CLAIMED, () -> region.free(handle));
            assertThat(raw.getLongVolatile(block + TAG_WORD)).isEqualTo(tag(0, PID));
            assertThat(raw.getLongVolatile(block + META_WORD)).isEqualTo(meta); // not yet marked
            assertThat(region.cachedBlocks()).isZero();
            assertThat(region.isAllocated(handle)).isFalse();
            assertThat(region.usedBlocks()).isEqualTo(2);
            assertThat(region.reclaimDead()).isZero(); // this process is alive
            makeDead(raw, block);
            assertThat(region.reclaimDead()).isEqualTo(blockSize(40));
            assertThat(region.usedBlocks()).isEqualTo(1);
            assertThat(region.usedBytes()).isEqualTo(blockSize(100));
            assertThat(region.isAllocated(keep)).isTrue();
            RegionInvariants.check(region);
        }
    }

    @Test
    void aDeadProcessesCachedBlockIsFreedAndALiveOnesKept() {
        try (SharedRegion region = region(64 * 1024)) {
            AtomicBuffer raw = RawBody.of(path);
            long a = region.allocate(40);
            long b = region.allocate(56);
            long c = region.allocate(200);
            region.free(a);
            int blockA = (int) offset(a);
            int blockB = (int) offset(b);
            assertThat(region.cachedBlocks()).isEqualTo(1);
            assertThat(region.cachedBytes()).isEqualTo(blockSize(40));
            assertThat(raw.getLongVolatile(blockA + TAG_WORD)).isEqualTo(tag(0, PID));
            assertThat(isCachedMeta(raw.getLongVolatile(blockA + META_WORD))).isTrue();
            // Block b sits in the free cache of another process, since killed.
            raw.setLongVolatile(blockB + TAG_WORD, tag(0, DEAD_PID));
            raw.setLongVolatile(blockB + META_WORD, cachedMeta(12_345));
            assertThat(region.blocks()).filteredOn(SharedRegion.Block::cached).hasSize(2);
            assertThat(region.usedBlocks()).isEqualTo(3);
            assertThat(region.reclaimDead()).isEqualTo(blockSize(56));
            assertThat(region.usedBlocks()).isEqualTo(2); // c and this live handle's cached a
            assertThat(region.isAllocated(c)).isTrue();
            assertThat(region.reclaimDead()).isZero();
            assertThat(region.cachedBlocks()).isEqualTo(1);
            RegionInvariants.check(region);
        }
    }

    @Test
    void aCachePopKilledBeforeItsWritesLeavesABlockReclaimDeadFrees() {
        try (SharedRegion region = region(64 * 1024)) {
            AtomicBuffer raw = RawBody.of(path);
            long first = region.allocate(40);
            region.free(first);
            assertThat(region.cachedBlocks()).isEqualTo(1);
            int block = (int) offset(first);
            killedAt(Point.REGION_CACHE_POPPED, () -> region.allocate(40));
            assertThat(region.cachedBlocks()).isZero();
            assertThat(raw.getLongVolatile(block + TAG_WORD)).isEqualTo(tag(0, PID));
            assertThat(isCachedMeta(raw.getLongVolatile(block + META_WORD))).isTrue();
            assertThat(region.usedBlocks()).isEqualTo(1);
            makeDead(raw, block);
            assertThat(region.reclaimDead()).isEqualTo(blockSize(40));
            assertThat(region.usedBlocks()).isZero();
            assertThat(region.freeList()).hasSize(1);
            RegionInvariants.check(region);
        }
    }

    @Test
    void aPopWritesTheMetaWordThenANewGenerationUnderThisPid() {
        try (SharedRegion region = region(64 * 1024)) {
            AtomicBuffer raw = RawBody.of(path);
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
    void reclaimDeadFreesEveryBlockOfADeadAllocatorAndKeepsDisownedAndLiveOnes() {
        try (SharedRegion region =
                region(new SharedRegion.Settings(64 * 1024).withFreeCache(false))) {
            AtomicBuffer raw = RawBody.of(path);
            long dead1 = region.allocate(100);
            long live = region.allocate(100);
            long dead2 = region.allocate(300);
            long disowned = region.allocate(100);
            region.disown(disowned);
            assertThat(region.ownerOf(disowned)).isZero();
            assertThat(region.ownerOf(live)).isEqualTo(PID);
            makeDead(raw, (int) offset(dead1));
            makeDead(raw, (int) offset(dead2));
            assertThat(region.reclaimDead()).isEqualTo(blockSize(100) + blockSize(300));
            assertThat(region.isAllocated(dead1)).isFalse();
            assertThat(region.isAllocated(dead2)).isFalse();
            assertThat(region.isAllocated(live)).isTrue();
            assertThat(region.isAllocated(disowned)).isTrue();
            assertThat(region.usedBlocks()).isEqualTo(2);
            assertThat(region.reclaimDead()).isZero();
            RegionInvariants.check(region);
            assertThatThrownBy(() -> region.disown(dead1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("disown refused");
        }
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
                            path, new SharedRegion.Settings(1 << 20).withFreeCache(false))) {
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
}
