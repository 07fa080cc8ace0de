package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The locked allocation, read from the file: a split from the first fitting block's end, an exact
 * fit (or one leaving less than the smallest block) unlinked from the list, the generation (its
 * formula is part of the format, and 0 is skipped) and the counters it writes, and a full heap
 * reported with its capacity and fragmentation.
 */
class RegionAllocationTest {

    static final long PID = Pids.current();
    static final long START_TIME = ProcessProbe.startTime(PID);

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

    /** A region of {@code capacity}, with the test's own mapping of its body in {@link #raw}. */
    SharedRegion region(long capacity) {
        SharedRegion region = files.region(capacity);
        raw = RawBody.of(region.file());
        return region;
    }

    RegionHeap heap(String spec) {
        return files.heap(4096, spec);
    }

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
    void theGenerationMixesTheCountWithBothHalvesOfTheSalt() {
        assertThat(generationOf(1, 0)).isEqualTo(0x9E37_79B1);
        assertThat(generationOf(2, 0)).isEqualTo(0x3C6E_F362);
        assertThat(generationOf(1, 0x0000_0005_0000_0003L)).isEqualTo(0x9E37_79B7);
        assertThat(generationOf(3, 0x1234_5678_0000_0000L)).isEqualTo(0xC892_3B6B);
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

    @Test
    void fullIsACapacityErrorNamingTheCapacity() {
        try (SharedRegion region = region(4096)) {
            long whole = region.allocate(region.maxAllocation());
            assertThat(region.freeBytes()).isZero();
            assertThatThrownBy(() -> region.allocate(1))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("capacity 4096 bytes")
                    .hasMessageContaining("largest free block 0");
            region.free(whole);
            List<Long> small = new ArrayList<>();
            while (region.freeBytes() > 0) {
                small.add(region.allocate(1));
            }
            assertThat(small).hasSize(4096 / 48);
            assertThatThrownBy(() -> region.allocate(1)).isInstanceOf(CxcCapacityException.class);
            for (int i = 0; i < small.size(); i += 2) {
                region.free(small.get(i));
            }
            // Half free, but in 48-byte holes (one of 64, which took the 16-byte remainder):
            // fragmentation is reported, not hidden.
            assertThatThrownBy(() -> region.allocate(100))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("largest free block 64 bytes, free 2080");
            RegionInvariants.check(region);
        }
    }
}
