package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a process killed at a step leaves, and how the region repairs it (each step stopped by an
 * error thrown at its {@code Interleaving} point, the file left as a kill there leaves it, the
 * tag's PID then made one above every kernel's pid_max so {@code /proc} proves it dead): a free
 * killed after its seal, completed by the next lock holder; a cached free killed after its claim
 * and a cache pop killed before its writes, freed by {@code reclaimDead}; and how {@code
 * reclaimDead} judges a block's owner (by start time, or by presence for a block half-way into or
 * out of a cache), keeping live, disowned and live-cached blocks. Real SIGKILLs are in {@link
 * SharedRegionProcessTest}.
 */
class RegionCrashRepairTest {

    static final long PID = Pids.current();
    static final long START_TIME = ProcessProbe.startTime(PID);
    static final long DEAD_PID = Pids.MAX_PID - 1;

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

    SharedRegion region(SharedRegion.Settings settings) {
        return files.region(settings);
    }

    /** A heap of 4 KiB laid out as {@code spec}, its cache off. */
    RegionHeap heap(String spec) {
        return files.heap(4096, spec);
    }

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

    static void makeDead(AtomicBuffer raw, int block) {
        long tag = raw.getLongVolatile(block + TAG_WORD);
        raw.setLongVolatile(block + TAG_WORD, tag(generation(tag), DEAD_PID));
    }

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
        }
    }

    @Test
    void aCachedFreeKilledAfterItsClaimLeavesAUsedBlockThatReclaimDeadFrees() {
        try (SharedRegion region = region(64 * 1024)) {
            AtomicBuffer raw = RawBody.of(region.file());
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
    void aCachePopKilledBeforeItsWritesLeavesABlockReclaimDeadFrees() {
        try (SharedRegion region = region(64 * 1024)) {
            AtomicBuffer raw = RawBody.of(region.file());
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
    void aDeadProcessesCachedBlockIsFreedAndALiveOnesKept() {
        try (SharedRegion region = region(64 * 1024)) {
            AtomicBuffer raw = RawBody.of(region.file());
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
    void reclaimDeadFreesEveryBlockOfADeadAllocatorAndKeepsDisownedAndLiveOnes() {
        try (SharedRegion region =
                region(new SharedRegion.Settings(64 * 1024).withFreeCache(false))) {
            AtomicBuffer raw = RawBody.of(region.file());
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
}
