package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a region promises its user: a block allocated, written, read and freed; a random workload
 * that matches its model; threads of one process sharing a handle; a file reopened with its blocks;
 * what {@code blocks} and {@code describe} say; a handle closed twice.
 */
class SharedRegionTest {

    static final long PID = Pids.current();
    static final long CAPACITY = 64 * 1024;

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

    SharedRegion region(long capacity) {
        return files.region(capacity);
    }

    @Test
    void allocatesWritesReadsAndFrees() {
        try (SharedRegion region = region(4096)) {
            assertThat(region.freeBytes()).isEqualTo(4096);
            long handle = region.allocate(100);
            assertThat(handle).isNotZero();
            assertThat(region.sizeOf(handle)).isEqualTo(100);
            assertThat(region.ownerOf(handle)).isEqualTo(Pids.current());
            byte[] bytes = RegionChild.pattern(handle, 100);
            region.set(handle, bytes);
            assertThat(region.get(handle)).isEqualTo(bytes);
            byte[] part = new byte[10];
            region.get(handle, 5, part, 0, 10);
            assertThat(part).isEqualTo(Arrays.copyOfRange(bytes, 5, 15));
            region.set(handle, 90, ByteBuffer.wrap(new byte[] {1, 2, 3}));
            ByteBuffer out = ByteBuffer.allocate(3);
            region.get(handle, 90, out, 3);
            assertThat(out.array()).containsExactly(1, 2, 3);
            assertThat(region.usedBytes()).isEqualTo(SharedRegionDescriptor.blockSize(100));
            RegionInvariants.check(region);
            region.free(handle);
            assertThat(region.usedBytes()).isZero();
            assertThat(region.largestFreeBlock()).isEqualTo(4096);
            assertThat(region.freeList()).hasSize(1);
            assertThat(region.opCounts()).containsEntry("allocate", 1L).containsEntry("free", 1L);
        }
    }

    @Test
    void aRandomWorkloadMatchesItsModelAndKeepsTheInvariants() {
        SplittableRandom random = new SplittableRandom(42);
        try (SharedRegion region = region(64 * 1024)) {
            Map<Long, byte[]> model = new HashMap<>();
            List<Long> handles = new ArrayList<>();
            for (int step = 0; step < 20_000; step++) {
                if (handles.isEmpty() || random.nextInt(100) < 55) {
                    int size = 1 + random.nextInt(random.nextBoolean() ? 64 : 2000);
                    try {
                        long handle = region.allocate(size);
                        byte[] bytes = RegionChild.pattern(handle, size);
                        region.set(handle, bytes);
                        assertThat(model.put(handle, bytes)).as("handle given twice").isNull();
                        handles.add(handle);
                    } catch (CxcCapacityException full) {
                        assertThat(region.largestFreeBlock())
                                .isLessThan(SharedRegionDescriptor.blockSize(size));
                    }
                } else {
                    long handle = handles.remove(random.nextInt(handles.size()));
                    assertThat(region.get(handle)).isEqualTo(model.remove(handle));
                    region.free(handle);
                }
                if (step % 1000 == 0) {
                    RegionInvariants.check(region);
                }
            }
            for (long handle : handles) {
                assertThat(region.get(handle)).isEqualTo(model.get(handle));
                region.free(handle);
            }
            RegionInvariants.check(region);
            region.flushCache();
            RegionInvariants.check(region);
            assertThat(region.freeList()).hasSize(1);
        }
    }

    @Test
    void threadsOfOneProcessShareTheLock() throws Exception {
        try (SharedRegion region = region(256 * 1024)) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    long seed = t;
                    done.add(
                            pool.submit(
                                    () -> {
                                        SplittableRandom random = new SplittableRandom(seed);
                                        List<Long> held = new ArrayList<>();
                                        for (int i = 0; i < 20_000; i++) {
                                            if (held.size() < 32 && random.nextBoolean()) {
                                                int size = 1 + random.nextInt(500);
                                                long h = region.allocate(size);
                                                region.set(h, RegionChild.pattern(h, size));
                                                held.add(h);
                                            } else if (!held.isEmpty()) {
                                                long h = held.remove(held.size() - 1);
                                                assertThat(region.get(h))
                                                        .isEqualTo(
                                                                RegionChild.pattern(
                                                                        h, region.sizeOf(h)));
                                                region.free(h);
                                            }
                                        }
                                        held.forEach(region::free);
                                        return null;
                                    }));
                }
                for (Future<?> f : done) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            RegionInvariants.check(region);
            assertThat(region.usedBytes()).isEqualTo(region.cachedBytes());
            region.flushCache();
            assertThat(region.usedBytes()).isZero();
        }
    }

    @Test
    void reopenedRegionKeepsItsBlocksAndDescribesThem() {
        Path path = dir.resolve("keep.region");
        long handle;
        try (SharedRegion region =
                SharedRegion.openOrCreate(path, new SharedRegion.Settings(8192))) {
            handle = region.allocate(20);
            region.set(handle, "hello, other process".getBytes());
        }
        try (SharedRegion region = SharedRegion.open(path, new SharedRegion.Settings(8192))) {
            assertThat(new String(region.get(handle))).isEqualTo("hello, other process");
            assertThat(region.describe())
                    .containsEntry("capacityBytes", 8192)
                    .containsEntry("usedBlocks", 1L)
                    .containsEntry("lockHolderPid", 0L);
            region.disown(handle);
            assertThat(region.ownerOf(handle)).isZero();
            assertThat(region.reclaimDead()).isZero();
        }
    }

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
    void aClosedHandleIsClosedAndClosingAgainChangesNothing() {
        Path path = dir.resolve("closed.region");
        SharedRegion region = SharedRegion.TYPE.create(path, new SharedRegion.Settings(CAPACITY));
        region.free(region.allocate(16));
        assertThat(region.cachedBlocks()).isEqualTo(1);
        region.close();
        assertThat(region.isClosed()).isTrue();
        region.close();
        assertThat(region.isClosed()).isTrue();
        try (SharedRegion again =
                SharedRegion.TYPE.openAsRecorded(path, CxcFileOptions.defaults())) {
            assertThat(again.usedBlocks()).as("close returned the cached block").isZero();
        }
    }
}
