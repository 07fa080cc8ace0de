/**
 * Op observation: every primitive counts its operations by op kind ({@link
 * io.subetha.cxc.observe.OpCounters}) and exposes them through {@link
 * io.subetha.cxc.observe.ObservedPrimitive}; a {@link io.subetha.cxc.observe.PrimitiveRegistry}
 * lists the primitives registered in it ({@code registry.register(primitive)}). Raw {@code
 * create}/{@code open} return an unregistered primitive.
 */
@NullMarked
package io.subetha.cxc.observe;

import org.jspecify.annotations.NullMarked;
