/**
 * SubEtha CXC: cross-process coordination primitives that live in memory-mapped files. This package
 * holds the exceptions every primitive throws ({@link io.subetha.cxc.CxcException} and its
 * subclasses).
 *
 * <p>Every primitive is made by its {@link io.subetha.cxc.primitive.PrimitiveType} (one per
 * primitive; kind codes in {@link io.subetha.cxc.primitive.PrimitiveKinds}) and extends {@link
 * io.subetha.cxc.primitive.MappedPrimitive}. Whatever a process claims goes through the one
 * slot-ownership protocol, {@link io.subetha.cxc.claim.OwnerRecord}; typed payloads through {@link
 * io.subetha.cxc.codec.FixedCodec}. Packages: {@link io.subetha.cxc.mmf} (the file format's public
 * face: header layout, atomic buffer, file options), {@link io.subetha.cxc.internal} (not API:
 * mapping and validation), {@link io.subetha.cxc.observe} (op counting and the registry), {@link
 * io.subetha.cxc.process} (process identity and liveness), {@link io.subetha.cxc.claim} (the claim
 * every family builds on: owner record, status, intent lock), then one package per family of
 * primitives, each named in {@link io.subetha.cxc.primitive.PrimitiveKinds}'s families.
 */
@NullMarked
package io.subetha.cxc;

import org.jspecify.annotations.NullMarked;
