package io.subetha.cxc.codec;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.charset.StandardCharsets;

/**
 * At most {@code maxUtf8Bytes} bytes of UTF-8 after a u32 length:
 *
 * <pre>
 * +---------------------------------------------------------------+
 * |            UTF-8 length in bytes (u32, 0..max)            0   |
 * +---------------------------------------------------------------+
 * |            max bytes: the UTF-8, then zeros               4   |
 * |                             ...                               |
 * +---------------------------------------------------------------+
 * </pre>
 */
final class StringCodec extends BuiltInCodec<String> {

    private static final int LENGTH_BYTES = Integer.BYTES;

    private final int maxUtf8Bytes;

    StringCodec(int maxUtf8Bytes) {
        super(
                LENGTH_BYTES + checkedMax(maxUtf8Bytes),
                LENGTH_BYTES,
                "string(" + maxUtf8Bytes + ")",
                "string(" + maxUtf8Bytes + ")");
        this.maxUtf8Bytes = maxUtf8Bytes;
    }

    private static int checkedMax(int maxUtf8Bytes) {
        if (maxUtf8Bytes < 1 || maxUtf8Bytes > Integer.MAX_VALUE - LENGTH_BYTES) {
            throw new IllegalArgumentException(
                    "a string codec needs a maximum of 1 to "
                            + (Integer.MAX_VALUE - LENGTH_BYTES)
                            + " UTF-8 bytes, got "
                            + maxUtf8Bytes);
        }
        return maxUtf8Bytes;
    }

    /**
     * Counts without encoding, so that a record is checked whole before any store; refuses an
     * unpaired surrogate, which {@link String#getBytes} would silently turn into '?'.
     */
    @Override
    void checkValue(String value) {
        long utf8Bytes = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                utf8Bytes += 1;
            } else if (c < 0x800) {
                utf8Bytes += 2;
            } else if (!Character.isSurrogate(c)) {
                utf8Bytes += 3;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                utf8Bytes += 4;
                i++;
            } else {
                throw new IllegalArgumentException(
                        "string has an unpaired surrogate at index "
                                + i
                                + ", which UTF-8 cannot store; fix the string");
            }
        }
        if (utf8Bytes > maxUtf8Bytes) {
            throw new IllegalArgumentException(
                    "string("
                            + maxUtf8Bytes
                            + ") holds at most "
                            + maxUtf8Bytes
                            + " UTF-8 bytes; this string of "
                            + value.length()
                            + " chars is "
                            + utf8Bytes
                            + " UTF-8 bytes. Strings are never cut: shorten it or raise the"
                            + " limit");
        }
    }

    @Override
    void encode(AtomicBuffer buffer, int offset, String value) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        buffer.setIntPlain(offset, utf8.length);
        buffer.putBytes(offset + LENGTH_BYTES, utf8);
        zero(buffer, offset + LENGTH_BYTES + utf8.length, maxUtf8Bytes - utf8.length);
    }

    @Override
    String decode(AtomicBuffer buffer, int offset) {
        int length = buffer.getIntPlain(offset);
        if (length < 0 || length > maxUtf8Bytes) {
            throw new CxcFormatException(
                    "string("
                            + maxUtf8Bytes
                            + ") at offset "
                            + offset
                            + " stores a length of "
                            + Integer.toUnsignedString(length)
                            + " bytes, outside 0.."
                            + maxUtf8Bytes
                            + ": the bytes are corrupt or were written with another layout"
                            + " (compare the codec fingerprints)");
        }
        byte[] utf8 = new byte[length];
        buffer.getBytes(offset + LENGTH_BYTES, utf8);
        return new String(utf8, StandardCharsets.UTF_8);
    }
}
