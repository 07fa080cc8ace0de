package io.subetha.cxc.codec;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The codecs of the Java primitives. Each stores its primitive in one place ({@code store}), used
 * both for a boxed value and for a primitive record component, which it reads through an exact
 * {@link MethodHandle} so that writing a record of primitives boxes nothing.
 */
abstract class ScalarCodec<T> extends BuiltInCodec<T> {

    static final ScalarCodec<Long> INT64 = new Int64();
    static final ScalarCodec<Integer> INT32 = new Int32();
    static final ScalarCodec<Short> INT16 = new Int16();
    static final ScalarCodec<Byte> INT8 = new Int8();
    static final ScalarCodec<Double> FLOAT64 = new Float64();
    static final ScalarCodec<Float> FLOAT32 = new Float32();
    static final ScalarCodec<Boolean> BOOL = new Bool();

    private static final List<ScalarCodec<?>> ALL =
            List.of(INT64, INT32, INT16, INT8, FLOAT64, FLOAT32, BOOL);

    private final Class<?> primitiveType;
    private final Class<T> boxType;

    private ScalarCodec(
            Class<?> primitiveType, Class<T> boxType, int size, String canonicalLayout) {
        super(size, size, primitiveType.getName(), canonicalLayout);
        this.primitiveType = primitiveType;
        this.boxType = boxType;
    }

    /** The codec of a primitive type or its box, or {@code null} if {@code type} is neither. */
    static @Nullable ScalarCodec<?> forType(Class<?> type) {
        for (ScalarCodec<?> codec : ALL) {
            if (codec.primitiveType == type || codec.boxType == type) {
                return codec;
            }
        }
        return null;
    }

    /**
     * A store of the primitive component that {@code accessor} reads, without boxing it.
     *
     * @param accessor the component's accessor, of type {@code (R)p} for this codec's primitive p
     */
    final RecordCodec.PrimitiveStore primitiveStore(MethodHandle accessor) {
        return primitiveStoreOfExact(
                accessor.asType(MethodType.methodType(primitiveType, Object.class)));
    }

    /**
     * @param accessor of type {@code (Object)p}
     */
    abstract RecordCodec.PrimitiveStore primitiveStoreOfExact(MethodHandle accessor);

    private static final class Int64 extends ScalarCodec<Long> {
        Int64() {
            super(long.class, Long.class, Long.BYTES, "i64");
        }

        @Override
        void encode(AtomicBuffer buffer, int offset, Long value) {
            buffer.setLongPlain(offset, value);
        }

        @Override
        Long decode(AtomicBuffer buffer, int offset) {
            return buffer.getLongPlain(offset);
        }

        @Override
        RecordCodec.PrimitiveStore primitiveStoreOfExact(MethodHandle accessor) {
            return (buffer, offset, record) ->
                    buffer.setLongPlain(offset, (long) accessor.invokeExact(record));
        }
    }

    private static final class Int32 extends ScalarCodec<Integer> {
        Int32() {
            super(int.class, Integer.class, Integer.BYTES, "i32");
        }

        @Override
        void encode(AtomicBuffer buffer, int offset, Integer value) {
            buffer.setIntPlain(offset, value);
        }

        @Override
        Integer decode(AtomicBuffer buffer, int offset) {
            return buffer.getIntPlain(offset);
        }

        @Override
        RecordCodec.PrimitiveStore primitiveStoreOfExact(MethodHandle accessor) {
            return (buffer, offset, record) ->
                    buffer.setIntPlain(offset, (int) accessor.invokeExact(record));
        }
    }

    private static final class Int16 extends ScalarCodec<Short> {
        Int16() {
            super(short.class, Short.class, Short.BYTES, "i16");
        }

        @Override
        void encode(AtomicBuffer buffer, int offset, Short value) {
            buffer.setShortPlain(offset, value);
        }

        @Override
        Short decode(AtomicBuffer buffer, int offset) {
            return buffer.getShortPlain(offset);
        }

        @Override
        RecordCodec.PrimitiveStore primitiveStoreOfExact(MethodHandle accessor) {
            return (buffer, offset, record) ->
                    buffer.setShortPlain(offset, (short) accessor.invokeExact(record));
        }
    }

    private static final class Int8 extends ScalarCodec<Byte> {
        Int8() {
            super(byte.class, Byte.class, Byte.BYTES, "i8");
        }

        @Override
        void encode(AtomicBuffer buffer, int offset, Byte value) {
            buffer.putByte(offset, value);
        }

        @Override
        Byte decode(AtomicBuffer buffer, int offset) {
            return buffer.getByte(offset);
        }

        @Override
        RecordCodec.PrimitiveStore primitiveStoreOfExact(MethodHandle accessor) {
            return (buffer, offset, record) ->
                    buffer.putByte(offset, (byte) accessor.invokeExact(record));
        }
    }

    private static final class Float64 extends ScalarCodec<Double> {
        Float64() {
            super(double.class, Double.class, Double.BYTES, "f64");
        }

        // Raw bits: doubleToLongBits would fold every NaN into one, and -0.0 must stay -0.0.
        private static void store(AtomicBuffer buffer, int offset, double value) {
            buffer.setLongPlain(offset, Double.doubleToRawLongBits(value));
        }

        @Override
        void encode(AtomicBuffer buffer, int offset, Double value) {
            store(buffer, offset, value);
        }

        @Override
        Double decode(AtomicBuffer buffer, int offset) {
            return Double.longBitsToDouble(buffer.getLongPlain(offset));
        }

        @Override
        RecordCodec.PrimitiveStore primitiveStoreOfExact(MethodHandle accessor) {
            return (buffer, offset, record) ->
                    store(buffer, offset, (double) accessor.invokeExact(record));
        }
    }

    private static final class Float32 extends ScalarCodec<Float> {
        Float32() {
            super(float.class, Float.class, Float.BYTES, "f32");
        }

        private static void store(AtomicBuffer buffer, int offset, float value) {
            buffer.setIntPlain(offset, Float.floatToRawIntBits(value));
        }

        @Override
        void encode(AtomicBuffer buffer, int offset, Float value) {
            store(buffer, offset, value);
        }

        @Override
        Float decode(AtomicBuffer buffer, int offset) {
            return Float.intBitsToFloat(buffer.getIntPlain(offset));
        }

        @Override
        RecordCodec.PrimitiveStore primitiveStoreOfExact(MethodHandle accessor) {
            return (buffer, offset, record) ->
                    store(buffer, offset, (float) accessor.invokeExact(record));
        }
    }

    private static final class Bool extends ScalarCodec<Boolean> {
        Bool() {
            super(boolean.class, Boolean.class, 1, "bool");
        }

        private static void store(AtomicBuffer buffer, int offset, boolean value) {
            buffer.putByte(offset, value ? (byte) 1 : (byte) 0);
        }

        @Override
        void encode(AtomicBuffer buffer, int offset, Boolean value) {
            store(buffer, offset, value);
        }

        // Strict: a byte this codec never writes means the bytes are not what the reader thinks.
        @Override
        Boolean decode(AtomicBuffer buffer, int offset) {
            byte stored = buffer.getByte(offset);
            if (stored == 0) {
                return Boolean.FALSE;
            }
            if (stored == 1) {
                return Boolean.TRUE;
            }
            throw new CxcFormatException(
                    "boolean at offset "
                            + offset
                            + " holds "
                            + stored
                            + ", not 0 or 1: the bytes are corrupt or were written with another"
                            + " layout (compare the codec fingerprints)");
        }

        @Override
        RecordCodec.PrimitiveStore primitiveStoreOfExact(MethodHandle accessor) {
            return (buffer, offset, record) ->
                    store(buffer, offset, (boolean) accessor.invokeExact(record));
        }
    }
}
