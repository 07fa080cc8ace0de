/**
 * Values: {@link io.subetha.cxc.values.SharedNaNValue} and {@link
 * io.subetha.cxc.values.SharedNaNTaggedValue} (NaN-boxed typed values in one 64-bit word, in cells
 * of a mapped file) and {@link io.subetha.cxc.values.SharedUmbraPointer} (a 16-byte string
 * reference with its prefix inline, the rest in a {@link io.subetha.cxc.region.SharedRegion}).
 */
@NullMarked
package io.subetha.cxc.values;

import org.jspecify.annotations.NullMarked;
