package io.subetha.cxc.docs.examples;

// docs:begin region-umbra-nan
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.values.*;
// docs:end region-umbra-nan
import java.nio.file.Path;

/** A shared region, Umbra pointers and NaN-boxed cells in plain Java. */
class MemoryExample {

    void memory(byte[] payload) throws Exception {
        // docs:begin region-umbra-nan

        try (SharedRegion region = SharedRegion.openOrCreate(
                Path.of("/dev/shm/myapp/blobs.cxc"), new SharedRegion.Settings(1 << 20))) {
            long handle = region.allocate(300);          // an offset + generation, valid in every process
            region.set(handle, payload);                  // at most sizeOf(handle) bytes
            byte[] back = region.get(handle);             // in any process that maps the file
            region.free(handle);                          // any process may free it; a second free is refused
            region.reclaimDead();                         // frees blocks whose allocating process died

            // 16 bytes to keep anywhere: length, first 4 bytes, then the rest inline (<= 12 bytes) or a handle
            SharedUmbraPointer name = SharedUmbraPointer.store(region, "a name longer than twelve bytes");
            long head = name.head(), tail = name.tail();  // e.g. in two NaN cells
            boolean maybe = name.prefixEquals("a name");  // false from the length alone: no region read
        }

        // NaN-boxing: one 64-bit word holds a double, int32, u32, bool, 47-bit offset, int48 or null
        try (SharedNaNValue cells =
                SharedNaNValue.openOrCreate(Path.of("/dev/shm/myapp/cells.cxc"), new SharedNaNValue.Settings(64))) {
            cells.set(2, SharedNaNValue.box(42));
            long bits = cells.get(2);
            if (SharedNaNValue.tagOf(bits) == SharedNaNValue.TAG_INT32) { int v = SharedNaNValue.unboxInt(bits); }
            cells.compareAndSet(2, bits, SharedNaNValue.box(Double.NaN)); // every NaN is stored as QNAN
        }
        // docs:end region-umbra-nan
    }
}
