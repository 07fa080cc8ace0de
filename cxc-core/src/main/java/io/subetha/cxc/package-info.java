/**
 * SubEtha CXC: cross-process coordination primitives that live in memory-mapped files.
 *
 * <p>Families: {@link io.subetha.cxc.mmf} (the substrate every primitive stands on), {@link
 * io.subetha.cxc.observe} (op counting and the registry), {@link io.subetha.cxc.process} (process
 * identity and liveness), {@link io.subetha.cxc.ownership} (leader election).
 */
@NullMarked
package io.subetha.cxc;

import org.jspecify.annotations.NullMarked;
