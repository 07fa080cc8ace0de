package io.subetha.cxc.primitive;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.observe.OpKind;
import java.util.List;
import java.util.Map;

/**
 * The smallest typed primitive: one value of a codec's type, kept to test what every typed
 * primitive gets from its {@link PrimitiveType} (the codec block, a mismatch refused on open), and
 * to show what a primitive is: its type, its settings, its ops and its protocol.
 */
public final class TypedCell<T> extends MappedPrimitive {

    static final PrimitiveKinds.Kind KIND =
            new PrimitiveKinds.Kind(60_001, "typed-cell", PrimitiveKinds.TEST);

    static final int VALUE_OFFSET = PrimitiveType.TYPED_BODY_START;

    enum Op implements OpKind {
        SET(1),
        GET(3);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    record Settings(FixedCodec<?> codec) {
        Settings {
            if (codec.size() > 1000) {
                throw new CxcSettingsException("codec", "codec must be at most 1000 bytes");
            }
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    static final PrimitiveType<TypedCell<?>, Settings> TYPE =
            (PrimitiveType)
                    PrimitiveType.<TypedCell, Settings>define(KIND, Settings.class)
                            .bodyMagic("TESTCELL")
                            .ops(Op.class)
                            .fixedBody(1024 + 64)
                            .codecs(settings -> List.of(settings.codec()))
                            .defaults(new Settings(FixedCodec.INT64))
                            .construct((file, settings, options) -> new TypedCell(file));

    private TypedCell(MappedFile file) {
        super(file, TYPE);
    }

    @SuppressWarnings("unchecked")
    void set(FixedCodec<T> codec, T value) {
        counters.increment(Op.SET);
        codec.write(body, VALUE_OFFSET, value);
    }

    T get(FixedCodec<T> codec) {
        counters.increment(Op.GET);
        return codec.read(body, VALUE_OFFSET);
    }

    @Override
    public Map<String, Object> describe() {
        return fields("valueBytes", 1024);
    }
}
