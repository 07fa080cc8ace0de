package io.subetha.cxc.codec;

import io.subetha.cxc.mmf.AtomicBuffer;

/** Exactly {@code length} bytes, as they are; {@code read} returns a fresh array. */
final class BytesCodec extends BuiltInCodec<byte[]> {

    BytesCodec(int length) {
        super(checkedLength(length), 1, "byte[" + length + "]", "bytes(" + length + ")");
    }

    private static int checkedLength(int length) {
        if (length < 1) {
            throw new IllegalArgumentException(
                    "a byte[] codec needs a length of 1 or more, got " + length);
        }
        return length;
    }

    @Override
    void checkValue(byte[] value) {
        if (value.length != size()) {
            throw new IllegalArgumentException(
                    "byte[" + size() + "] takes exactly " + size() + " bytes, got " + value.length);
        }
    }

    @Override
    void encode(AtomicBuffer buffer, int offset, byte[] value) {
        buffer.putBytes(offset, value);
    }

    @Override
    byte[] decode(AtomicBuffer buffer, int offset) {
        byte[] value = new byte[size()];
        buffer.getBytes(offset, value);
        return value;
    }
}
