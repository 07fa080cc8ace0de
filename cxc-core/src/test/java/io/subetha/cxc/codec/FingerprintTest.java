package io.subetha.cxc.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fingerprints go into file headers: a change of value makes every existing file unreadable, so the
 * golden values here must only change together with {@link LayoutFingerprint#RULES}.
 */
class FingerprintTest {

    private record Order(long id, int quantity, @FixedSize(16) String note) {}

    /** Another name, another class, the same shape. */
    private record PurchaseOrder(Long id, Integer quantity, @FixedSize(16) String note) {}

    private record Reordered(int quantity, long id, @FixedSize(16) String note) {}

    private record Resized(long id, int quantity, @FixedSize(17) String note) {}

    private record Retyped(long id, long quantity, @FixedSize(16) String note) {}

    private record Renamed(long id, int count, @FixedSize(16) String note) {}

    private record AsBytes(long id, int quantity, @FixedSize(16) byte[] note) {}

    private record Longer(long id, int quantity, @FixedSize(16) String note, byte flag) {}

    private record Id(long id) {}

    private record WrappedId(Id id) {}

    private record Quantity(int quantity, @FixedSize(16) String note) {}

    private record Nested(long id, Quantity rest) {}

    /** FNV-1a 64 written out independently of the code under test. */
    private static long fnv1a64(String text) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return hash;
    }

    @Test
    void fingerprintsAreGoldenValues() {
        assertThat(fnv1a64("a"))
                .as("published FNV-1a 64 test vector")
                .isEqualTo(0xaf63dc4c8601ec8cL);

        assertThat(FixedCodec.INT64.fingerprint()).isEqualTo(0x40144f165264e3b5L);
        assertThat(FixedCodec.INT64.fingerprint()).isEqualTo(fnv1a64("cxc.codec.v1:i64"));
        assertThat(FixedCodec.record(Order.class).fingerprint()).isEqualTo(0xd3280457d0c68950L);
        assertThat(FixedCodec.record(Order.class).fingerprint())
                .isEqualTo(fnv1a64("cxc.codec.v1:record(i64 id,i32 quantity,string(16) note)"));
    }

    @Test
    void theSameShapeHasTheSameFingerprintWhateverItsClassName() {
        long order = FixedCodec.record(Order.class).fingerprint();
        assertThat(FixedCodec.record(Order.class).fingerprint()).isEqualTo(order);
        assertThat(FixedCodec.record(PurchaseOrder.class).fingerprint()).isEqualTo(order);
        assertThat(FixedCodec.string(16).fingerprint())
                .isEqualTo(FixedCodec.string(16).fingerprint());
    }

    @Test
    void reorderingResizingRetypingOrRenamingAComponentChangesTheFingerprint() {
        List<FixedCodec<?>> codecs =
                List.of(
                        FixedCodec.record(Order.class),
                        FixedCodec.record(Reordered.class),
                        FixedCodec.record(Resized.class),
                        FixedCodec.record(Retyped.class),
                        FixedCodec.record(Renamed.class),
                        FixedCodec.record(AsBytes.class),
                        FixedCodec.record(Longer.class),
                        FixedCodec.record(Nested.class),
                        FixedCodec.record(Id.class),
                        FixedCodec.record(WrappedId.class),
                        FixedCodec.INT64,
                        FixedCodec.INT32,
                        FixedCodec.INT16,
                        FixedCodec.INT8,
                        FixedCodec.FLOAT64,
                        FixedCodec.FLOAT32,
                        FixedCodec.BOOL,
                        FixedCodec.bytes(4),
                        FixedCodec.bytes(5),
                        FixedCodec.string(4),
                        FixedCodec.string(5));
        assertThat(codecs.stream().map(FixedCodec::fingerprint).distinct())
                .hasSameSizeAs(codecs)
                .doesNotContain(0L);
    }
}
