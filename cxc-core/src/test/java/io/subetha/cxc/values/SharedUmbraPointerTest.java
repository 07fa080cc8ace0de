package io.subetha.cxc.values;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.region.SharedRegion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedUmbraPointerTest {

    @TempDir Path dir;

    SharedRegion region() {
        return SharedRegion.TYPE.create(
                dir.resolve("strings.region"), new SharedRegion.Settings(256 * 1024));
    }

    @Test
    void shortStringsStayInlineAndNeverTouchTheRegion() {
        try (SharedRegion region = region()) {
            AtomicInteger regionSteps = new AtomicInteger();
            try (Interleaving.Installed watch =
                    Interleaving.install(
                            p -> {
                                if (p == Point.INTENT_LOCKED) {
                                    regionSteps.incrementAndGet();
                                }
                            })) {
                for (String s : new String[] {"", "a", "abcd", "abcde", "exactly12byt"}) {
                    SharedUmbraPointer p = SharedUmbraPointer.store(region, s);
                    assertThat(p.isInline()).isTrue();
                    assertThat(p.length()).isEqualTo(s.length());
                    assertThat(p.resolveString()).isEqualTo(s);
                    assertThat(p.contentEquals(s)).isTrue();
                    assertThat(p.handle()).isZero();
                }
            }
            assertThat(regionSteps).hasValue(0);
            assertThat(region.usedBlocks()).isZero();
        }
    }

    @Test
    void longStringsLiveInTheRegionAndOutliveTheirStorer() {
        try (SharedRegion region = region()) {
            String s = "thirteen bytes and a good deal more";
            SharedUmbraPointer p = SharedUmbraPointer.store(region, s);
            assertThat(p.isInline()).isFalse();
            assertThat(region.isAllocated(p.handle())).isTrue();
            assertThat(region.ownerOf(p.handle())).as("disowned: survives its storer").isZero();
            assertThat(p.resolveString()).isEqualTo(s);
            assertThat(p.contentEquals(s)).isTrue();
            assertThat(p.contentEquals(s + "!")).isFalse();
            assertThat(p.contentEquals("thirteen bytes and a good deal morE")).isFalse();
            SharedUmbraPointer copy = SharedUmbraPointer.of(region, p.head(), p.tail());
            assertThat(copy).isEqualTo(p);
            SharedUmbraPointer twin = SharedUmbraPointer.store(region, s);
            assertThat(twin.handle()).isNotEqualTo(p.handle());
            assertThat(twin).isEqualTo(p).hasSameHashCodeAs(p);
            p.free();
            assertThat(region.isAllocated(p.handle())).isFalse();
            assertThatThrownBy(copy::resolve).hasMessageContaining("freed already");
        }
    }

    @Test
    void prefixEqualsComparesLengthAndTheFirstFourBytes() {
        try (SharedRegion region = region()) {
            SharedUmbraPointer p = SharedUmbraPointer.store(region, "prefix-and-a-long-tail");
            assertThat(p.prefixEquals("prefix-and-a-long-tail")).isTrue();
            assertThat(p.prefixEquals("prXfix-and-a-long-tail")).isFalse();
            assertThat(p.prefixEquals("prefix-and-a-long-tai")).isFalse();
            assertThat(p.prefixEquals("prefiX-and-a-long-tail"))
                    .as("same length and 4 bytes")
                    .isTrue();
            long before = SharedUmbraPointer.opCounters().get(SharedUmbraPointer.Op.PREFIX_EQ);
            p.prefixEquals(p);
            assertThat(SharedUmbraPointer.opCounters().get(SharedUmbraPointer.Op.PREFIX_EQ))
                    .isEqualTo(before + 1);
        }
    }

    @Test
    void ordersAsTheUnsignedBytesDo() {
        SplittableRandom random = new SplittableRandom(3);
        try (SharedRegion region = region()) {
            List<byte[]> values = new ArrayList<>();
            List<SharedUmbraPointer> pointers = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                byte[] v = new byte[random.nextInt(30)];
                for (int j = 0; j < v.length; j++) {
                    v[j] =
                            (byte)
                                    (random.nextBoolean()
                                            ? 'a' + random.nextInt(3)
                                            : 0xF0 + random.nextInt(3));
                }
                values.add(v);
                pointers.add(SharedUmbraPointer.store(region, v));
            }
            for (int i = 0; i < values.size(); i++) {
                for (int j = 0; j < values.size(); j += 7) {
                    int expected =
                            Integer.signum(Arrays.compareUnsigned(values.get(i), values.get(j)));
                    assertThat(Integer.signum(pointers.get(i).compareTo(pointers.get(j))))
                            .as(
                                    "%s vs %s",
                                    Arrays.toString(values.get(i)), Arrays.toString(values.get(j)))
                            .isEqualTo(expected);
                    assertThat(pointers.get(i).contentEquals(pointers.get(j)))
                            .isEqualTo(expected == 0);
                    assertThat(pointers.get(i).contentEquals(values.get(j)))
                            .isEqualTo(expected == 0);
                }
                assertThat(pointers.get(i).resolve()).isEqualTo(values.get(i));
            }
            List<SharedUmbraPointer> sorted = new ArrayList<>(pointers);
            sorted.sort(Comparator.naturalOrder());
            values.sort(Arrays::compareUnsigned);
            for (int i = 0; i < values.size(); i++) {
                assertThat(sorted.get(i).resolve()).isEqualTo(values.get(i));
            }
        }
    }

    @Test
    void sixteenBytesWrittenAnywhereReadBackInAnotherHandle() {
        Path path = dir.resolve("strings.region");
        try (SharedRegion region = SharedRegion.TYPE.create(path, new SharedRegion.Settings(8192));
                SharedNaNValue cells = SharedNaNValue.create(dir.resolve("words.nan"), 2)) {
            SharedUmbraPointer p =
                    SharedUmbraPointer.store(region, "ünïcödé strings are bytes too");
            cells.set(0, p.head());
            cells.set(1, p.tail());
            try (SharedRegion other =
                    SharedRegion.TYPE.openAsRecorded(path, CxcFileOptions.defaults())) {
                SharedUmbraPointer q = SharedUmbraPointer.of(other, cells.get(0), cells.get(1));
                assertThat(q.resolveString()).isEqualTo("ünïcödé strings are bytes too");
                assertThat(q.length())
                        .isEqualTo(
                                "ünïcödé strings are bytes too"
                                        .getBytes(StandardCharsets.UTF_8)
                                        .length);
            }
        }
    }

    @Test
    void flatPointersCompareAsTheirWordsDo() {
        try (SharedRegion region = region()) {
            String[] values = {
                "",
                "abcd",
                "abce",
                "exactly12byt",
                "exactly12byu",
                "a long string, out of line",
                "a long string, out of linf",
                "a long string, out of line!"
            };
            long[] flat = new long[2 * values.length];
            long[] copy = new long[2 * values.length];
            for (int i = 0; i < values.length; i++) {
                SharedUmbraPointer p = SharedUmbraPointer.store(region, values[i]);
                flat[2 * i] = p.head();
                flat[2 * i + 1] = p.tail();
                // The same content stored again: another handle, equal by the region's bytes.
                SharedUmbraPointer q = SharedUmbraPointer.store(region, values[i]);
                copy[2 * i] = q.head();
                copy[2 * i + 1] = q.tail();
            }
            for (int i = 0; i < values.length; i++) {
                for (int j = 0; j < values.length; j++) {
                    assertThat(SharedUmbraPointer.equals(region, flat, 2 * i, copy, 2 * j))
                            .as("%s vs %s", values[i], values[j])
                            .isEqualTo(values[i].equals(values[j]))
                            .isEqualTo(
                                    SharedUmbraPointer.equals(
                                            region,
                                            flat[2 * i],
                                            flat[2 * i + 1],
                                            copy[2 * j],
                                            copy[2 * j + 1]));
                }
            }
        }
    }
}
