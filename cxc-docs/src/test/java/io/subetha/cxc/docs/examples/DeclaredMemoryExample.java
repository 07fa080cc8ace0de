package io.subetha.cxc.docs.examples;

import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.values.SharedNaNTaggedValue;
import io.subetha.cxc.values.SharedNaNValue;
import io.subetha.cxc.values.SharedUmbraPointer;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Service;

/** A region and NaN-boxed cells declared by properties, injected by name. */
class DeclaredMemoryExample {

    // docs:begin declared-memory
    // cxc.regions.blobs.capacity-bytes=1048576      -> {cxc.directory}/blobs.region
    // cxc.nan-values.flags.cells=64                 -> {cxc.directory}/flags.nan
    // cxc.nan-tagged-values.state.max-user-tag=15   -> {cxc.directory}/state.nantagged
    @Service
    class Catalogue {
        static final int SKU = 3;                     // one of this application's own tags

        private final SharedRegion blobs;
        private final SharedNaNValue flags;
        private final SharedNaNTaggedValue state;

        Catalogue(@Qualifier("blobs") SharedRegion blobs,
                  @Qualifier("flags") SharedNaNValue flags,
                  @Qualifier("state") SharedNaNTaggedValue state) {
            this.blobs = blobs;
            this.flags = flags;
            this.state = state;
        }

        void publish(int item, String title, int sku) {
            SharedUmbraPointer name = SharedUmbraPointer.store(blobs, title); // outlives this process
            flags.set(2 * item, name.head());
            flags.set(2 * item + 1, name.tail());
            state.set(item, SKU, sku);                // a tag above max-user-tag is refused
        }
    }
    // docs:end declared-memory
}
