package io.subetha.cxc.resolution;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;

/** Two longs in 16 bytes: a key or value wider than one word. */
record Wide(long a, long b) {

    static final FixedCodec<Wide> CODEC =
            new FixedCodec<>() {
                @Override
                public int size() {
                    return 16;
                }

                @Override
                public void write(AtomicBuffer buffer, int offset, Wide value) {
                    buffer.setLongPlain(offset, value.a());
                    buffer.setLongPlain(offset + 8, value.b());
                }

                @Override
                public Wide read(AtomicBuffer buffer, int offset) {
                    return new Wide(buffer.getLongPlain(offset), buffer.getLongPlain(offset + 8));
                }

                @Override
                public long fingerprint() {
                    return 0x51DE_16L;
                }

                @Override
                public String describe() {
                    return "wide(16)";
                }
            };
}
