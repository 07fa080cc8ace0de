package io.subetha.cxc.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScalarCodecTest {

    private final AtomicBuffer buffer = Buffers.direct(64);

    private <T> void assertRoundTrips(FixedCodec<T> codec, List<T> values) {
        for (T value : values) {
            // Offsets 8 (aligned) and 3 (not): plain stores work at both.
            for (int offset : new int[] {8, 3}) {
                codec.write(buffer, offset, value);
                assertThat(codec.read(buffer, offset)).as(codec.describe()).isEqualTo(value);
            }
        }
    }

    @Test
    void integersRoundTripTheirExtremes() {
        assertRoundTrips(FixedCodec.INT64, List.of(Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE));
        assertRoundTrips(FixedCodec.INT32, List.of(Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE));
        assertRoundTrips(
                FixedCodec.INT16,
                List.of(Short.MIN_VALUE, (short) -1, (short) 0, (short) 1, Short.MAX_VALUE));
        assertRoundTrips(
                FixedCodec.INT8,
                List.of(Byte.MIN_VALUE, (byte) -1, (byte) 0, (byte) 1, Byte.MAX_VALUE));
        assertRoundTrips(FixedCodec.BOOL, List.of(true, false));
    }

    @Test
    void doublesKeepTheirExactBits() {
        double payloadNaN = Double.longBitsToDouble(0x7ff0_0000_0000_0001L);
        for (double value :
                new double[] {
                    0.0,
                    -0.0,
                    Double.NaN,
                    payloadNaN,
                    Double.POSITIVE_INFINITY,
                    Double.NEGATIVE_INFINITY,
                    Double.MIN_VALUE,
                    Double.MAX_VALUE,
                    Math.PI
                }) {
            FixedCodec.FLOAT64.write(buffer, 16, value);
            assertThat(Double.doubleToRawLongBits(FixedCodec.FLOAT64.read(buffer, 16)))
                    .isEqualTo(Double.doubleToRawLongBits(value));
        }
    }

    @Test
    void floatsKeepTheirExactBits() {
        for (float value :
                new float[] {
                    0.0f,
                    -0.0f,
                    Float.NaN,
                    Float.POSITIVE_INFINITY,
                    Float.NEGATIVE_INFINITY,
                    Float.MIN_VALUE,
                    Float.MAX_VALUE
                }) {
            FixedCodec.FLOAT32.write(buffer, 20, value);
            assertThat(Float.floatToRawIntBits(FixedCodec.FLOAT32.read(buffer, 20)))
                    .isEqualTo(Float.floatToRawIntBits(value));
        }
    }

    @Test
    void sizesAndDescriptionsFollowTheJavaTypes() {
        assertThat(
                        List.of(
                                        FixedCodec.INT64,
                                        FixedCodec.INT32,
                                        FixedCodec.INT16,
                                        FixedCodec.INT8,
                                        FixedCodec.FLOAT64,
                                        FixedCodec.FLOAT32,
                                        FixedCodec.BOOL)
                                .stream()
                                .map(codec -> codec.describe() + "=" + codec.size()))
                .containsExactly(
                        "long=8", "int=4", "short=2", "byte=1", "double=8", "float=4", "boolean=1");
    }

    @Test
    void numbersAreLittleEndianAndStoreOnlyTheirOwnBytes() {
        AtomicBuffer filled = Buffers.filled(16, 0xEE);
        FixedCodec.INT32.write(filled, 4, 0x0403_0201);
        FixedCodec.INT16.write(filled, 9, (short) 0x0605);
        assertThat(Buffers.bytes(filled))
                .containsExactly(
                        0xEE, 0xEE, 0xEE, 0xEE, 1, 2, 3, 4, 0xEE, 5, 6, 0xEE, 0xEE, 0xEE, 0xEE,
                        0xEE);
    }

    @Test
    void aBooleanByteOtherThanZeroOrOneIsAFormatError() {
        buffer.putByte(5, (byte) 2);
        assertThatThrownBy(() -> FixedCodec.BOOL.read(buffer, 5))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("offset 5")
                .hasMessageContaining("holds 2");
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void nullIsRefused() {
        for (FixedCodec codec : List.of(FixedCodec.INT64, FixedCodec.BOOL, FixedCodec.FLOAT32)) {
            assertThatThrownBy(() -> codec.write(buffer, 0, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("FixedCodec values cannot be null");
        }
    }

    @Test
    void aValueThatWouldOverflowTheBufferIsRefusedBeforeAnyStore() {
        AtomicBuffer small = Buffers.filled(16, 0xEE);
        byte[] before = Buffers.bytes(small);
        assertThatThrownBy(() -> FixedCodec.INT64.write(small, 9, 1L))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("long needs 8 bytes at offset 9, outside a buffer of 16 bytes");
        assertThatThrownBy(() -> FixedCodec.INT32.write(small, -1, 1))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("offset -1");
        assertThatThrownBy(() -> FixedCodec.INT64.read(small, Integer.MAX_VALUE))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("offset " + Integer.MAX_VALUE);
        assertThat(Buffers.bytes(small)).isEqualTo(before);

        FixedCodec.INT64.write(small, 8, -1L);
        assertThat(FixedCodec.INT64.read(small, 8)).isEqualTo(-1L);
    }
}
