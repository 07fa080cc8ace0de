package io.subetha.cxc.values;

import static io.subetha.cxc.values.SharedNaNValue.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcSettingsException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedNaNValueTest {

    @TempDir Path dir;

    @Test
    void everyTagRoundTripsAtItsBoundaries() {
        for (int v : new int[] {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertThat(tagOf(box(v))).isEqualTo(TAG_INT32);
            assertThat(unboxInt(box(v))).isEqualTo(v);
        }
        for (long v : new long[] {0, 1, 0xFFFF_FFFFL}) {
            assertThat(tagOf(boxUint32(v))).isEqualTo(TAG_UINT32);
            assertThat(unboxUint32(boxUint32(v))).isEqualTo(v);
        }
        for (long v : new long[] {0, 1, MAX_OFFSET}) {
            assertThat(tagOf(boxOffset(v))).isEqualTo(TAG_OFFSET);
            assertThat(unboxOffset(boxOffset(v))).isEqualTo(v);
        }
        for (long v : new long[] {0, -1, MIN_INT48, MAX_INT48}) {
            assertThat(tagOf(boxInt48(v))).isEqualTo(TAG_INT48);
            assertThat(unboxInt48(boxInt48(v))).isEqualTo(v);
        }
        assertThat(unboxBool(box(true))).isTrue();
        assertThat(unboxBool(box(false))).isFalse();
        assertThat(tagOf(box(true))).isEqualTo(TAG_BOOL);
        assertThat(tagOf(NULL)).isEqualTo(TAG_NULL);
        assertThat(isNull(NULL)).isTrue();
        double[] doubles = {
            0.0,
            -0.0,
            1.5,
            -1.5,
            Double.MIN_VALUE,
            -Double.MIN_VALUE,
            Double.MAX_VALUE,
            Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY,
            Double.MIN_NORMAL
        };
        for (double d : doubles) {
            long bits = box(d);
            assertThat(tagOf(bits)).as("%s", d).isEqualTo(TAG_DOUBLE);
            assertThat(Double.doubleToRawLongBits(unboxDouble(bits)))
                    .as("%s keeps its exact bits", d)
                    .isEqualTo(Double.doubleToRawLongBits(d));
        }
    }

    @Test
    void everyNaNStaysADoubleAndIsCanonicalised() {
        long[] nanBits = {
            0x7FF8_0000_0000_0000L, // canonical
            0x7FF0_0000_0000_0001L, // signalling, smallest payload
            0x7FFF_FFFF_FFFF_FFFFL, // quiet, largest payload
            0xFFF8_0000_0000_0000L, // negative quiet: the box prefix itself
            0xFFF8_0000_0000_0001L, // negative quiet with a payload: looks like a boxed null
            0xFFFA_0000_0000_0007L, // looks like a boxed int32 7
            0xFFF0_0000_0000_0001L, // negative signalling
            0xFFFF_FFFF_FFFF_FFFFL
        };
        for (long raw : nanBits) {
            double nan = Double.longBitsToDouble(raw);
            assertThat(Double.isNaN(nan)).isTrue();
            long bits = box(nan);
            assertThat(bits).as("0x%x", raw).isEqualTo(QNAN);
            assertThat(tagOf(bits)).isEqualTo(TAG_DOUBLE);
            assertThat(Double.isNaN(unboxDouble(bits))).isTrue();
        }
        assertThat(tagOf(Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY)))
                .isEqualTo(TAG_DOUBLE);
    }

    @Test
    void unboxingTheWrongTypeSaysWhatTheBitsHold() {
        assertThatThrownBy(() -> unboxInt(box(true)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hold bool true, not an int32");
        assertThatThrownBy(() -> unboxDouble(box(7)))
                .hasMessageContaining("hold int32 7, not a double");
        assertThatThrownBy(() -> unboxBool(box(1.0))).hasMessageContaining("not a bool");
        assertThatThrownBy(() -> unboxOffset(boxInt48(-1))).hasMessageContaining("not an offset");
        assertThatThrownBy(() -> boxUint32(-1)).hasMessageContaining("outside the u32 range");
        assertThatThrownBy(() -> boxOffset(MAX_OFFSET + 1)).hasMessageContaining("47 bits");
        assertThatThrownBy(() -> boxInt48(MAX_INT48 + 1)).hasMessageContaining("int48 range");
    }

    @Test
    void randomBitsAreClassifiedConsistently() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++) {
            long bits = random.nextLong();
            int tag = tagOf(bits);
            assertThat(tag == TAG_DOUBLE).isEqualTo(isDouble(bits));
            assertThat(SharedNaNValue.toString(bits)).isNotEmpty();
            if (tag == TAG_DOUBLE) {
                double d = Double.longBitsToDouble(bits);
                assertThat(tagOf(box(d))).isEqualTo(TAG_DOUBLE);
            }
        }
    }

    @Test
    void cellsReadWriteAndCompareAndSet() {
        try (SharedNaNValue cells =
                SharedNaNValue.TYPE.create(
                        dir.resolve("cells.nan"), new SharedNaNValue.Settings(4))) {
            assertThat(cells.get(0)).isEqualTo(NULL);
            cells.set(1, box(42));
            assertThat(unboxInt(cells.get(1))).isEqualTo(42);
            assertThat(cells.compareAndSet(1, box(41), box(43))).isFalse();
            assertThat(cells.compareAndSet(1, box(42), box(2.5))).isTrue();
            assertThat(unboxDouble(cells.get(1))).isEqualTo(2.5);
            assertThatThrownBy(() -> cells.get(4))
                    .hasMessageContaining("index 4 is outside 0..3 (4 cells)");
            assertThatThrownBy(() -> cells.set(-1, NULL)).hasMessageContaining("index -1");
            assertThat(cells.opCounts())
                    .containsEntry("set", 1L)
                    .containsEntry("compare_and_set", 2L);
        }
        assertThatThrownBy(
                        () ->
                                SharedNaNValue.TYPE.create(
                                        dir.resolve("none"), new SharedNaNValue.Settings(0)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("cells must be 1..");
    }

    @Test
    void taggedCellsAcceptDoublesNullAndTheirOwnTagsOnly() {
        try (SharedNaNTaggedValue cells =
                SharedNaNTaggedValue.TYPE.create(
                        dir.resolve("t.nan"), new SharedNaNTaggedValue.Settings(8, 9))) {
            assertThat(cells.maxUserTag()).isEqualTo(9);
            cells.set(0, 9, -123);
            long bits = cells.get(0);
            assertThat(SharedNaNTaggedValue.isTagged(bits)).isTrue();
            assertThat(SharedNaNTaggedValue.userTagOf(bits)).isEqualTo(9);
            assertThat(SharedNaNTaggedValue.valueOf(bits)).isEqualTo(-123);
            assertThat(tagOf(bits)).isEqualTo(TAG_USER);
            cells.set(1, box(Double.NaN));
            assertThat(cells.get(1)).isEqualTo(QNAN);
            cells.set(2, NULL);
            assertThatThrownBy(() -> cells.set(3, 10, 0))
                    .hasMessageContaining("user tag 10 is outside this file's 0..9");
            assertThatThrownBy(() -> cells.set(3, box(5)))
                    .hasMessageContaining(
                            "a tagged cell holds a double, null or a user tag's value");
            assertThatThrownBy(() -> SharedNaNTaggedValue.box(70_000, 0))
                    .hasMessageContaining("userTag 70000");
            assertThat(cells.get(3)).isEqualTo(NULL);
            assertThat(cells.compareAndSet(0, bits, SharedNaNTaggedValue.box(0, 0))).isTrue();
        }
        try (SharedNaNTaggedValue reopened =
                SharedNaNTaggedValue.open(
                        dir.resolve("t.nan"), new SharedNaNTaggedValue.Settings(8, 0))) {
            assertThat(reopened.maxUserTag()).isEqualTo(9);
            assertThat(SharedNaNTaggedValue.userTagOf(reopened.get(0))).isZero();
        }
    }
}
