package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A block's payload through its handle: ranges accepted up to the payload's end and refused past
 * it, every get and set counted once, and the region's own payload comparison (lengths first, then
 * 8 bytes at a time, then the tail bytes, from a given byte on), which never compares the bytes
 * past a payload that an earlier use of the block left.
 */
class RegionPayloadTest {

    @TempDir Path dir;

    RegionFiles files;

    @AfterEach
    void closeFiles() {
        files.close();
    }

    /** A region whose cache is off, for the comparisons. */
    SharedRegion region;

    @BeforeEach
    void open() {
        files = new RegionFiles(dir);
        region = files.region(new SharedRegion.Settings(64 * 1024).withFreeCache(false));
    }

    /** A region of 64 KiB, its cache on. */
    SharedRegion region() {
        return files.region(64 * 1024);
    }

    @Test
    void aRangeIsAcceptedUpToThePayloadsEndAndRefusedPastIt() {
        try (SharedRegion region =
                SharedRegion.TYPE.create(
                        dir.resolve("range.region"), new SharedRegion.Settings(4096))) {
            long handle = region.allocate(20);
            region.set(handle, 0, new byte[] {1, 2, 3, 4, 5}, 1, 3);
            byte[] out = new byte[3];
            region.get(handle, 0, out, 0, 3);
            assertThat(out).containsExactly(2, 3, 4);
            region.set(handle, 17, new byte[] {9, 8, 7}, 0, 3);
            region.get(handle, 17, out, 0, 3);
            assertThat(out).containsExactly(9, 8, 7);
            region.get(handle, 20, out, 0, 0);
            assertThatThrownBy(() -> region.get(handle, 18, out, 0, 3))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(
                            "get of 3 bytes at offset 18 is outside the block's payload of 20"
                                    + " bytes");
            assertThatThrownBy(() -> region.get(handle, 0, out, 0, -1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("get of -1 bytes at offset 0");
            assertThatThrownBy(() -> region.get(handle, -1, out, 0, 1))
                    .hasMessageContaining("get of 1 bytes at offset -1");
            assertThatThrownBy(() -> region.set(handle, 21, ByteBuffer.allocate(0)))
                    .hasMessageContaining("set of 0 bytes at offset 21");
            ByteBuffer source = ByteBuffer.wrap(new byte[] {0, 5, 6});
            source.position(1);
            region.set(handle, 18, source);
            assertThat(source.position()).isEqualTo(3);
            ByteBuffer into = ByteBuffer.allocate(4);
            into.position(1);
            region.get(handle, 18, into, 2);
            assertThat(into.position()).isEqualTo(3);
            assertThat(into.array()).containsExactly(0, 5, 6, 0);
            assertThatThrownBy(() -> region.get(handle, 19, ByteBuffer.allocate(4), 2))
                    .hasMessageContaining("get of 2 bytes at offset 19");
        }
    }

    @Test
    void everyGetAndSetIsCountedOnce() {
        SharedRegion region = region();
        long handle = region.allocate(16);
        region.set(handle, new byte[] {1, 2});
        region.set(handle, 2, new byte[] {3}, 0, 1);
        region.set(handle, 3, ByteBuffer.wrap(new byte[] {4}));
        assertThat(region.get(handle)).startsWith(1, 2, 3, 4);
        byte[] two = new byte[2];
        region.get(handle, 1, two, 0, 2);
        assertThat(two).containsExactly(2, 3);
        ByteBuffer out = ByteBuffer.allocate(1);
        region.get(handle, 3, out, 1);
        assertThat(out.array()).containsExactly(4);
        region.free(handle);
        assertThat(region.opCounts())
                .containsEntry("allocate", 1L)
                .containsEntry("free", 1L)
                .containsEntry("get", 3L)
                .containsEntry("set", 3L);
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

    @Test
    void bytesPastThePayloadLeftByAnEarlierUseAreNotCompared() {
        SharedRegion region = region();
        long earlier = region.allocate(16);
        byte[] filled = new byte[16];
        Arrays.fill(filled, (byte) 0x55);
        region.set(earlier, filled);
        region.free(earlier);
        long reused = region.allocate(1); // the same 48-byte block, from the cache
        assertThat(offset(reused)).isEqualTo(offset(earlier));
        region.set(reused, new byte[] {9});
        long fresh = region.allocate(1);
        region.set(fresh, new byte[] {9});
        assertThat(region.payloadEquals(reused, fresh)).isTrue();
        assertThat(region.payloadEquals(fresh, reused)).isTrue();
        assertThat(region.payloadEquals(reused, new byte[] {9}, 0)).isTrue();
        region.set(fresh, new byte[] {8});
        assertThat(region.payloadEquals(reused, fresh)).isFalse();
    }
}
