/**
 * How a primitive is built: {@link io.subetha.cxc.primitive.PrimitiveType} (a primitive's kind,
 * layout, settings, ops and its one create/open path), {@link
 * io.subetha.cxc.primitive.MappedPrimitive} (what every primitive is made of) and {@link
 * io.subetha.cxc.primitive.PrimitiveKinds} (the registry of kind codes, one range per family).
 *
 * <p>A new primitive is its descriptor (the body layout, drawn), its class (protocol, {@code
 * Settings} record, {@code Op} enum, {@code TYPE}), its tests, one line in {@code PrimitiveKinds},
 * and, if the Spring Boot starter declares it by properties, one entry there.
 */
@NullMarked
package io.subetha.cxc.primitive;

import org.jspecify.annotations.NullMarked;
