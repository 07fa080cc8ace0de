package io.subetha.cxc.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The region's own payload comparison (lengths first, then 8 bytes at a time, then the tail bytes,
 * from a given byte on), pinned here so that the region package's mutation run counts it: the
 * values package's tests exercise it only through {@code SharedUmbraPointer}.
 */
class RegionPayloadEqualsTest {

    @TempDir Path dir;

    SharedRegion region;

    @BeforeEach
    void open() {
        region =
                SharedRegion.TYPE.create(
                        dir.resolve("eq.region"),
                        new SharedRegion.Settings(64 * 1024).withFreeCache(false));
    }

    @AfterEach
    void close() {
        region.close();
    }

    long stored(byte[] bytes) {
        long handle = region.allocate(Math.max(1, bytes.length));
        region.set(handle, bytes);
        return handle;
    }

    static byte[] bytes(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 7 + 1);
        }
        return bytes;
    }

    static byte[] flipped(byte[] bytes, int at) {
        byte[] copy = bytes.clone();
        copy[at] ^= 0x40;
        return copy;
    }

    @Test
    void equalPayloadsOfEveryLengthAroundTheWordAreEqual() {
        for (int length : new int[] {1, 7, 8, 9, 15, 16, 17, 31}) {
            byte[] bytes = bytes(length);
            long a = stored(bytes);
            long b = stored(bytes.clone());
            assertThat(region.payloadEquals(a, b)).as("length %d", length).isTrue();
            assertThat(region.payloadEquals(a, bytes, 0)).as("length %d", length).isTrue();
            assertThat(region.payloadEquals(a, a)).isTrue();
        }
    }

    @Test
    void aDifferenceInAWordOrInTheTailMakesThemUnequal() {
        for (int length : new int[] {1, 7, 8, 9, 16, 17, 31}) {
            byte[] bytes = bytes(length);
            long a = stored(bytes);
            for (int at : new int[] {0, length / 2, length - 1}) {
                byte[] other = flipped(bytes, at);
                long b = stored(other);
                assertThat(region.payloadEquals(a, b)).as("length %d at %d", length, at).isFalse();
                assertThat(region.payloadEquals(b, a)).as("length %d at %d", length, at).isFalse();
                assertThat(region.payloadEquals(a, other, 0))
                        .as("length %d at %d", length, at)
                        .isFalse();
                region.free(b);
            }
        }
    }

    @Test
    void payloadsOfDifferentLengthsAreUnequalWhateverTheirPrefix() {
        byte[] bytes = bytes(20);
        long a = stored(bytes);
        long shorter = stored(Arrays.copyOf(bytes, 19));
        assertThat(region.payloadEquals(a, shorter)).isFalse();
        assertThat(region.payloadEquals(shorter, a)).isFalse();
        assertThat(region.payloadEquals(a, Arrays.copyOf(bytes, 19), 0)).isFalse();
        assertThat(region.payloadEquals(a, Arrays.copyOf(bytes, 21), 0)).isFalse();
    }

    @Test
    void aComparisonFromAByteOnIgnoresTheBytesBeforeIt() {
        byte[] bytes = bytes(21);
        long a = stored(bytes);
        for (int from = 0; from <= 21; from++) {
            // Every byte before from differs; from on they are the same.
            byte[] other = bytes.clone();
            for (int i = 0; i < from; i++) {
                other[i] ^= 0x11;
            }
            assertThat(region.payloadEquals(a, other, from)).as("from %d", from).isTrue();
            if (from < 21) {
                assertThat(region.payloadEquals(a, flipped(other, from), from))
                        .as("from %d, its byte changed", from)
                        .isFalse();
                assertThat(region.payloadEquals(a, flipped(other, 20), from))
                        .as("from %d, the last byte changed", from)
                        .isFalse();
            }
        }
        assertThat(region.payloadEquals(a, bytes, -1)).isFalse();
        assertThat(region.payloadEquals(a, bytes, 22)).isFalse();
    }

    @Test
    void aComparisonOfAFreedHandleIsRefused() {
        long a = stored(bytes(10));
        long b = stored(bytes(10));
        region.free(b);
        assertThatThrownBy(() -> region.payloadEquals(a, b))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("payloadEquals refused");
        assertThatThrownBy(() -> region.payloadEquals(b, a))
                .hasMessageContaining("payloadEquals refused");
        assertThatThrownBy(() -> region.payloadEquals(b, bytes(10), 0))
                .hasMessageContaining("payloadEquals refused");
    }
}
