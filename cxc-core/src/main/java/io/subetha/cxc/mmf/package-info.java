/**
 * What applications see of the mapped-file substrate: the common 64-byte header every cxc file
 * starts with ({@link io.subetha.cxc.mmf.HeaderDescriptor}), aligned atomic access to a body
 * ({@link io.subetha.cxc.mmf.AtomicBuffer}, the buffer codecs write to) and the options files are
 * created and opened with ({@link io.subetha.cxc.mmf.CxcFileOptions}). Mapping, validation and
 * publication live in {@link io.subetha.cxc.internal}.
 */
@NullMarked
package io.subetha.cxc.mmf;

import org.jspecify.annotations.NullMarked;
