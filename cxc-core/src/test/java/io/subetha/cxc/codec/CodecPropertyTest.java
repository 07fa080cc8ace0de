package io.subetha.cxc.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Many seeded random values through a record of every kind of component, at random offsets. */
class CodecPropertyTest {

    private record Reading(
            long sequence,
            int sensor,
            short raw,
            byte flags,
            double value,
            float error,
            boolean valid,
            @FixedSize(8) byte[] source,
            @FixedSize(24) String label,
            Location location) {}

    private record Location(Integer zone, @FixedSize(6) String code) {}

    private static final int[] CODE_POINT_RANGES = {
        0x20, 0x7f, // one UTF-8 byte
        0xa0, 0x800, // two
        0x800, 0xd800, // three
        0x1_0000, 0x1_0000 + 0x2000 // four (a surrogate pair in Java)
    };

    /** A string of at most {@code maxUtf8Bytes}, often exactly at the limit. */
    private static String randomString(Random random, int maxUtf8Bytes) {
        StringBuilder text = new StringBuilder();
        int bytes = 0;
        while (random.nextInt(8) != 0) {
            int range = random.nextInt(4);
            int codePoint =
                    CODE_POINT_RANGES[2 * range]
                            + random.nextInt(
                                    CODE_POINT_RANGES[2 * range + 1]
                                            - CODE_POINT_RANGES[2 * range]);
            int length =
                    new String(Character.toChars(codePoint))
                            .getBytes(StandardCharsets.UTF_8)
                            .length;
            if (bytes + length > maxUtf8Bytes) {
                break;
            }
            text.appendCodePoint(codePoint);
            bytes += length;
        }
        return text.toString();
    }

    private static Reading randomReading(Random random) {
        byte[] source = new byte[8];
        random.nextBytes(source);
        return new Reading(
                random.nextLong(),
                random.nextInt(),
                (short) random.nextInt(),
                (byte) random.nextInt(),
                random.nextInt(10) == 0 ? Double.NaN : random.nextDouble() * random.nextLong(),
                Float.intBitsToFloat(random.nextInt()),
                random.nextBoolean(),
                source,
                randomString(random, 24),
                new Location(random.nextInt(), randomString(random, 6)));
    }

    @Test
    void randomValuesRoundTripAndNeverDisturbTheirNeighbours() {
        Random random = new Random(0x5EED_C0DECL);
        FixedCodec<Reading> codec = FixedCodec.record(Reading.class);
        int slots = 8;
        int stride = codec.size();
        AtomicBuffer buffer = Buffers.direct(slots * stride);
        Reading[] stored = new Reading[slots];
        for (int i = 0; i < 5_000; i++) {
            int slot = random.nextInt(slots);
            stored[slot] = randomReading(random);
            codec.write(buffer, slot * stride, stored[slot]);
            int check = random.nextInt(slots);
            if (stored[check] != null) {
                Reading read = codec.read(buffer, check * stride);
                assertThat(read)
                        .usingRecursiveComparison()
                        .withComparatorForType(Double::compare, Double.class)
                        .withComparatorForType(Float::compare, Float.class)
                        .isEqualTo(stored[check]);
                assertThat(Float.floatToRawIntBits(read.error()))
                        .isEqualTo(Float.floatToRawIntBits(stored[check].error()));
            }
        }
    }

    @Test
    void randomScalarsRoundTripAtUnalignedOffsets() {
        Random random = new Random(42);
        AtomicBuffer buffer = Buffers.direct(64);
        for (int i = 0; i < 10_000; i++) {
            int offset = random.nextInt(64 - 24 + 1);
            long asLong = random.nextLong();
            FixedCodec.INT64.write(buffer, offset, asLong);
            assertThat(FixedCodec.INT64.read(buffer, offset)).isEqualTo(asLong);
            double asDouble = Double.longBitsToDouble(random.nextLong());
            FixedCodec.FLOAT64.write(buffer, offset, asDouble);
            assertThat(Double.doubleToRawLongBits(FixedCodec.FLOAT64.read(buffer, offset)))
                    .isEqualTo(Double.doubleToRawLongBits(asDouble));
            String text = randomString(random, 20);
            FixedCodec.string(20).write(buffer, offset, text);
            assertThat(FixedCodec.string(20).read(buffer, offset)).isEqualTo(text);
        }
    }
}
