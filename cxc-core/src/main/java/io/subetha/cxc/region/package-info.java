/**
 * Region: {@link io.subetha.cxc.region.SharedRegion}, a crash-safe sub-allocator of variable-size
 * blocks in one mapped file, the backing store for out-of-line payloads.
 */
@NullMarked
package io.subetha.cxc.region;

import org.jspecify.annotations.NullMarked;
