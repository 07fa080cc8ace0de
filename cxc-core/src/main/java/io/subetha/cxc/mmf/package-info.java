/**
 * The mapped-file substrate every primitive stands on: the common 64-byte header ({@link
 * io.subetha.cxc.mmf.HeaderDescriptor}), race-safe create/open/validate ({@link
 * io.subetha.cxc.mmf.MappedFiles}) and aligned atomic access ({@link
 * io.subetha.cxc.mmf.AtomicBuffer}).
 */
@NullMarked
package io.subetha.cxc.mmf;

import org.jspecify.annotations.NullMarked;
