package io.subetha.cxc.docs.examples;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.codec.FixedSize;
import io.subetha.cxc.mmf.AtomicBuffer;

/** A record laid out in a mapped file. */
class CodecExample {

    void codec(AtomicBuffer buffer, int offset) {
        // docs:begin fixed-codec
        record Order(long id, int quantity, @FixedSize(16) String note) {}

        FixedCodec<Order> orders = FixedCodec.record(Order.class); // 32 bytes, laid out like a C struct
        orders.write(buffer, offset, new Order(7, 3, "rush"));    // a note over 16 UTF-8 bytes is refused
        Order read = orders.read(buffer, offset);
        // docs:end fixed-codec
    }
}
