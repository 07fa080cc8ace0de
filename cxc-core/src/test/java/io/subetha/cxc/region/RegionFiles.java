package io.subetha.cxc.region;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The region files one test makes in its temporary directory, each handle closed after the test
 * (closing a handle the test closed itself changes nothing): regions of a capacity or settings, and
 * heaps laid out block by block ({@link RegionHeap}).
 */
final class RegionFiles implements AutoCloseable {

    private final Path dir;
    private final List<AutoCloseable> handles = new ArrayList<>();

    RegionFiles(Path dir) {
        this.dir = dir;
    }

    /** A new file's path in the test's directory. */
    Path path() {
        return dir.resolve("r" + System.nanoTime() + ".region");
    }

    /** A new region of {@code capacity} bytes with the default settings. */
    SharedRegion region(long capacity) {
        return region(new SharedRegion.Settings(capacity));
    }

    SharedRegion region(SharedRegion.Settings settings) {
        SharedRegion region = SharedRegion.TYPE.create(path(), settings);
        handles.add(region);
        return region;
    }

    /**
     * A new region of {@code capacity} bytes laid out as {@code spec} says ({@link RegionHeap}).
     */
    RegionHeap heap(int capacity, String spec) {
        RegionHeap heap = new RegionHeap(path(), capacity, spec);
        handles.add(heap);
        return heap;
    }

    @Override
    public void close() {
        for (AutoCloseable handle : handles) {
            try {
                handle.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
