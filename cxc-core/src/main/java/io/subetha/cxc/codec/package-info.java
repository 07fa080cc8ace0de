/**
 * Fixed-size codecs for typed payloads, the Java stand-in for plain-old-data value types: a {@link
 * io.subetha.cxc.codec.FixedCodec} turns a value into exactly {@code size()} bytes of an {@link
 * io.subetha.cxc.mmf.AtomicBuffer} and back. Built-in codecs cover the Java primitives,
 * fixed-length byte arrays, bounded UTF-8 strings and records of those ({@link
 * io.subetha.cxc.codec.FixedCodec#record}, sized with {@link io.subetha.cxc.codec.FixedSize}). A
 * codec's {@link io.subetha.cxc.codec.FixedCodec#fingerprint() fingerprint} goes into the file
 * header so that two processes can never read each other's bytes through different layouts.
 */
@NullMarked
package io.subetha.cxc.codec;

import org.jspecify.annotations.NullMarked;
