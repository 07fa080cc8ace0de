package io.subetha.cxc.codec;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The size of a {@code byte[]} or {@code String} component of a record laid out by {@link
 * FixedCodec#record}: exactly {@code value} bytes for a {@code byte[]} ({@link
 * FixedCodec#bytes(int)}), at most {@code value} UTF-8 bytes for a {@code String} ({@link
 * FixedCodec#string(int)}).
 *
 * <pre>{@code
 * record Order(long id, int quantity, @FixedSize(16) String note, @FixedSize(32) byte[] digest) {}
 * }</pre>
 *
 * <p>The size is part of the layout and so of the codec's fingerprint: changing it makes files
 * written with the old size unreadable by the new codec, by design.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface FixedSize {

    /**
     * Bytes for a {@code byte[]}, largest UTF-8 length in bytes for a {@code String}; 1 or more.
     */
    int value();
}
