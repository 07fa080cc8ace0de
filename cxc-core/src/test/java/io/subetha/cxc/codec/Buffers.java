package io.subetha.cxc.codec;

import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.ByteBuffer;

/** Direct buffers for codec tests (never heap buffers: they lose atomic access on Java 22+). */
final class Buffers {

    private Buffers() {}

    static AtomicBuffer direct(int capacity) {
        return new AtomicBuffer(ByteBuffer.allocateDirect(capacity));
    }

    /** A direct buffer whose every byte is {@code fill}, so that a stray or missing store shows. */
    static AtomicBuffer filled(int capacity, int fill) {
        AtomicBuffer buffer = direct(capacity);
        for (int i = 0; i < capacity; i++) {
            buffer.putByte(i, (byte) fill);
        }
        return buffer;
    }

    static byte[] bytes(AtomicBuffer buffer) {
        byte[] all = new byte[buffer.capacity()];
        buffer.getBytes(0, all);
        return all;
    }
}
