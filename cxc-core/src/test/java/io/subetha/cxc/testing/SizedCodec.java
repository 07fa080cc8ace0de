package io.subetha.cxc.testing;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;

/** A codec that only declares a size: for the settings' value-size limit, never written. */
public record SizedCodec(int size) implements FixedCodec<Long> {

    @Override
    public void write(AtomicBuffer buffer, int offset, Long value) {
        buffer.setLongPlain(offset, value);
    }

    @Override
    public Long read(AtomicBuffer buffer, int offset) {
        return buffer.getLongPlain(offset);
    }

    @Override
    public long fingerprint() {
        return 0x5153_1DEDL + size;
    }

    @Override
    public String describe() {
        return "sized(" + size + ")";
    }
}
