package io.subetha.cxc.boot;

import io.subetha.cxc.codec.FixedCodec;
import java.util.Objects;

/**
 * The item codec of a fan-out declared by {@code cxc.fanouts.<name>.*}: the starter opens the
 * fan-out's file with it. A process that handles the items gives it through its {@link
 * FanoutHandler} bean; a process that only submits declares a bean of this type instead ({@link
 * #of}). Every process sharing the file gives the same codec (the file stores its fingerprint and
 * refuses another).
 *
 * @param <T> the items
 */
public interface FanoutCodec<T> {

    /** The declared fan-out's name: {@code <name>} in {@code cxc.fanouts.<name>.*}. */
    String fanout();

    FixedCodec<T> codec();

    /** The codec alone, for a process that submits but handles no items. */
    static <T> FanoutCodec<T> of(String fanout, FixedCodec<T> codec) {
        Objects.requireNonNull(fanout, "fanout");
        Objects.requireNonNull(codec, "codec");
        return new FanoutCodec<>() {
            @Override
            public String fanout() {
                return fanout;
            }

            @Override
            public FixedCodec<T> codec() {
                return codec;
            }

            @Override
            public String toString() {
                return "FanoutCodec[" + fanout + "]";
            }
        };
    }
}
