package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.stream.IntStream;

/**
 * A region whose heap a test lays out block by block, with the test's own mapping of the file to
 * read the words. The spec lists blocks in address order: {@code U} used, {@code F} free, any other
 * letter used (a block the test frees or plants), each followed by its size, except the first,
 * {@code *}, which takes what the others leave. The region's cache is off, so every free of the
 * layout took the lock; {@link #cacheOn()} swaps in a handle with its cache on.
 */
final class RegionHeap implements AutoCloseable {

    SharedRegion region;
    private final Path path;
    private final int capacity;
    final AtomicBuffer raw;
    final int[] offsets;
    final int[] sizes;
    final long[] handles;
    final String[] tokens;

    RegionHeap(Path path, int capacity, String spec) {
        this.path = path;
        this.capacity = capacity;
        region =
                SharedRegion.TYPE.create(
                        path, new SharedRegion.Settings(capacity).withFreeCache(false));
        raw = RawBody.of(path);
        tokens = spec.trim().split("\\s+");
        int n = tokens.length;
        offsets = new int[n];
        sizes = new int[n];
        handles = new long[n];
        int end = HEAP_OFFSET + capacity;
        for (int i = n - 1; i >= 1; i--) {
            sizes[i] = Integer.parseInt(tokens[i].substring(1));
            end -= sizes[i];
            offsets[i] = end;
        }
        assertThat(tokens[0].substring(1)).as("the first block takes the rest").isEqualTo("*");
        sizes[0] = end - HEAP_OFFSET;
        offsets[0] = HEAP_OFFSET;
        // Split from the end of the one free block: the highest block first.
        for (int i = n - 1; i >= 0; i--) {
            handles[i] = region.allocate(sizes[i] - OVERHEAD);
            assertThat((int) offset(handles[i])).as("block %d", i).isEqualTo(offsets[i]);
            assertThat(size(raw.getLongVolatile(offsets[i] + SIZE_WORD))).isEqualTo(sizes[i]);
        }
        assertThat(region.freeBytes()).isZero();
        for (int i = 0; i < n; i++) {
            if (kind(i) == 'F') {
                region.free(handles[i]);
            }
        }
    }

    /** A handle with its free cache on in place of the one that made the layout under the lock. */
    RegionHeap cacheOn() {
        region.close();
        region = SharedRegion.open(path, new SharedRegion.Settings(capacity));
        return this;
    }

    char kind(int i) {
        return tokens[i].charAt(0);
    }

    int at(int i) {
        return offsets[i];
    }

    long word(int offset) {
        return raw.getLongVolatile(offset);
    }

    long head() {
        return raw.getLongVolatile(FREE_HEAD_OFFSET);
    }

    /** The block's four header and tail words. */
    long[] snapshot(int i) {
        return IntStream.of(0, TAG_WORD, META_WORD, sizes[i] - 8)
                .mapToLong(w -> word(offsets[i] + w))
                .toArray();
    }

    /** The words of a free block: size word, links, meta 0, boundary tag. */
    void assertFreeBlock(int block, int size, int previous, int next) {
        assertThat(word(block + SIZE_WORD))
                .as("size word of %d", block)
                .isEqualTo(sizeWord(size, false));
        assertThat(word(block + TAG_WORD)).as("links of %d", block).isEqualTo(link(previous, next));
        assertThat(word(block + META_WORD)).as("meta of %d", block).isZero();
        assertThat(word(block + size - 8))
                .as("boundary tag of %d", block)
                .isEqualTo(sizeWord(size, false));
    }

    void assertUsedWord(long bytes, long blocks) {
        assertThat(word(USED_OFFSET)).as("used word").isEqualTo(used(bytes, blocks));
        assertThat(region.usedBytes()).isEqualTo(bytes);
        assertThat(region.usedBlocks()).isEqualTo(blocks);
    }

    void assertUnchanged(int i, long[] before) {
        assertThat(snapshot(i)).as("block %d's words", at(i)).containsExactly(before);
    }

    @Override
    public void close() {
        region.close();
    }
}
