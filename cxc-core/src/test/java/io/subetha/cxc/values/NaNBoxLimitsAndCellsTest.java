package io.subetha.cxc.values;

import static io.subetha.cxc.values.SharedNaNValue.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edges of NaN-boxing (one past each range, each tag refused by the others' unboxers, the names
 * and texts people read) and what a cell file does at its index bounds and counts.
 */
class NaNBoxLimitsAndCellsTest {

    @TempDir Path dir;

    @Test
    void oneOverEachRangeIsRefusedWithTheRange() {
        assertThatThrownBy(() -> boxOffset(MAX_OFFSET + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offset " + (MAX_OFFSET + 1))
                .hasMessageContaining("0.." + MAX_OFFSET);
        assertThatThrownBy(() -> boxOffset(-1)).hasMessageContaining("offset -1");
        assertThatThrownBy(() -> boxInt48(MAX_INT48 + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("value " + (MAX_INT48 + 1));
        assertThatThrownBy(() -> boxInt48(MIN_INT48 - 1))
                .hasMessageContaining("value " + (MIN_INT48 - 1));
        assertThatThrownBy(() -> boxUint32(1L << 32)).hasMessageContaining("u32 range");
        assertThatThrownBy(() -> boxUint32(-1)).hasMessageContaining("u32 range");
    }

    @Test
    void eachUnboxerRefusesTheOtherTags() {
        long[] others = {box(-1), boxOffset(5), boxInt48(-5), boxUint32(7), TRUE, NULL, box(2.5)};
        for (long bits : others) {
            if (tagOf(bits) != TAG_UINT32) {
                assertThatThrownBy(() -> unboxUint32(bits))
                        .as(SharedNaNValue.toString(bits))
                        .hasMessageContaining("not an uint32");
            }
            if (tagOf(bits) != TAG_INT48) {
                assertThatThrownBy(() -> unboxInt48(bits))
                        .as(SharedNaNValue.toString(bits))
                        .hasMessageContaining("not an int48");
            }
            if (tagOf(bits) != TAG_INT32) {
                assertThatThrownBy(() -> unboxInt(bits)).hasMessageContaining("not an int32");
            }
            if (tagOf(bits) != TAG_OFFSET) {
                assertThatThrownBy(() -> unboxOffset(bits)).hasMessageContaining("not an offset");
            }
            if (tagOf(bits) != TAG_BOOL) {
                assertThatThrownBy(() -> unboxBool(bits)).hasMessageContaining("not a bool");
            }
            if (tagOf(bits) != TAG_DOUBLE) {
                assertThatThrownBy(() -> unboxDouble(bits)).hasMessageContaining("not a double");
            }
        }
        assertThat(isNull(box(0))).isFalse();
        assertThat(isNull(FALSE)).isFalse();
        assertThat(isNull(box(0.0))).isFalse();
    }

    @Test
    void everyTagHasItsNameAndEveryValueItsText() {
        assertThat(tagName(TAG_DOUBLE)).isEqualTo("double");
        assertThat(tagName(TAG_NULL)).isEqualTo("null");
        assertThat(tagName(TAG_BOOL)).isEqualTo("bool");
        assertThat(tagName(TAG_INT32)).isEqualTo("int32");
        assertThat(tagName(TAG_UINT32)).isEqualTo("uint32");
        assertThat(tagName(TAG_OFFSET)).isEqualTo("offset");
        assertThat(tagName(TAG_INT48)).isEqualTo("int48");
        assertThat(tagName(TAG_RESERVED)).isEqualTo("reserved");
        assertThat(tagName(TAG_USER)).isEqualTo("user-tagged");
        assertThat(tagName(9)).isEqualTo("tag 9");

        assertThat(SharedNaNValue.toString(box(2.5))).isEqualTo("double 2.5");
        assertThat(SharedNaNValue.toString(NULL)).isEqualTo("null");
        assertThat(SharedNaNValue.toString(NULL | 3)).isEqualTo("null 0xfff8000000000003");
        assertThat(SharedNaNValue.toString(TRUE)).isEqualTo("bool true");
        assertThat(SharedNaNValue.toString(FALSE)).isEqualTo("bool false");
        assertThat(SharedNaNValue.toString(box(-7))).isEqualTo("int32 -7");
        assertThat(SharedNaNValue.toString(boxUint32(0xFFFF_FFFFL))).isEqualTo("uint32 4294967295");
        assertThat(SharedNaNValue.toString(boxOffset(MAX_OFFSET)))
                .isEqualTo("offset " + MAX_OFFSET);
        assertThat(SharedNaNValue.toString(boxInt48(-3))).isEqualTo("int48 -3");
        assertThat(SharedNaNValue.toString(SharedNaNTaggedValue.box(12, -2)))
                .isEqualTo("user tag 12 value -2");
        assertThat(SharedNaNValue.toString(boxed(TAG_RESERVED, 1)))
                .isEqualTo("reserved 0xfffe000000000001");
    }

    @Test
    void aCellFileRefusesTheIndexJustOutsideAndCountsEachOp() {
        try (SharedNaNValue cells =
                SharedNaNValue.TYPE.create(dir.resolve("v.cxc"), new SharedNaNValue.Settings(3))) {
            assertThat(cells.cells()).isEqualTo(3);
            assertThatThrownBy(() -> cells.get(3)).hasMessageContaining("index 3 is outside 0..2");
            assertThatThrownBy(() -> cells.get(-1)).hasMessageContaining("index -1");
            cells.set(2, box(9));
            assertThat(cells.get(2)).isEqualTo(box(9));
            assertThat(cells.compareAndSet(2, box(8), box(10))).isFalse();
            assertThat(cells.compareAndSet(2, box(9), box(2.0))).isTrue();
            assertThat(cells.opCounters().get(Op.GET)).isEqualTo(1);
            assertThat(cells.opCounters().get(Op.SET)).isEqualTo(1);
            assertThat(cells.opCounters().get(Op.COMPARE_AND_SET)).isEqualTo(2);
            assertThat(cells.describe())
                    .containsEntry("cells", 3)
                    .containsEntry("nullCells", 2)
                    .containsEntry("doubleCells", 1);
        }
    }

    @Test
    void aTaggedFileRefusesOtherWordsAndTheIndexJustOutsideAndCountsEachOp() {
        assertThatThrownBy(() -> SharedNaNTaggedValue.userTagOf(box(3)))
                .hasMessageContaining("not an user-tagged");
        assertThatThrownBy(() -> SharedNaNTaggedValue.valueOf(NULL))
                .hasMessageContaining("not an user-tagged");
        try (SharedNaNTaggedValue cells =
                SharedNaNTaggedValue.TYPE.create(
                        dir.resolve("t.cxc"), new SharedNaNTaggedValue.Settings(2, 5))) {
            assertThat(cells.cells()).isEqualTo(2);
            assertThatThrownBy(() -> cells.get(2)).hasMessageContaining("index 2 is outside 0..1");
            assertThatThrownBy(() -> cells.set(-1, NULL)).hasMessageContaining("index -1");
            cells.set(1, 5, 42);
            assertThat(cells.get(1)).isEqualTo(SharedNaNTaggedValue.box(5, 42));
            assertThat(cells.compareAndSet(1, NULL, box(1.0))).isFalse();
            assertThat(cells.get(1)).isEqualTo(SharedNaNTaggedValue.box(5, 42));
            assertThat(cells.compareAndSet(1, SharedNaNTaggedValue.box(5, 42), box(1.0))).isTrue();
            assertThat(cells.opCounters().get(SharedNaNTaggedValue.Op.GET)).isEqualTo(2);
            assertThat(cells.opCounters().get(SharedNaNTaggedValue.Op.SET)).isEqualTo(1);
            assertThat(cells.opCounters().get(SharedNaNTaggedValue.Op.COMPARE_AND_SET))
                    .isEqualTo(2);
            cells.set(0, 2, 1);
            assertThat(cells.describe())
                    .containsEntry("cells", 2)
                    .containsEntry("maxUserTag", 5)
                    .containsEntry("taggedCells", 1);
        }
    }
}
