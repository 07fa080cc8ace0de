package io.subetha.cxc.values;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.region.SharedRegion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What decides an Umbra pointer's equality and order (heads first, the region only when the heads
 * cannot), how its 16 bytes travel through a buffer, and what {@code free} releases.
 */
class UmbraPointerEqualityAndLifetimeTest {

    @TempDir Path dir;

    SharedRegion region() {
        return SharedRegion.TYPE.create(
                dir.resolve("strings.region"), new SharedRegion.Settings(64 * 1024));
    }

    static long resolves() {
        return SharedUmbraPointer.opCounters().get(SharedUmbraPointer.Op.RESOLVE);
    }

    static long prefixCompares() {
        return SharedUmbraPointer.opCounters().get(SharedUmbraPointer.Op.PREFIX_EQ);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void differentHeadsAreUnequalWhateverTheTails() {
        try (SharedRegion region = region()) {
            SharedUmbraPointer ab = SharedUmbraPointer.store(region, "ab");
            SharedUmbraPointer abc = SharedUmbraPointer.store(region, "abc");
            // Both tails are 0 (nothing past the prefix): only the heads tell them apart.
            assertThat(ab.tail()).isEqualTo(abc.tail());
            assertThat(
                            SharedUmbraPointer.equals(
                                    region, ab.head(), ab.tail(), abc.head(), abc.tail()))
                    .isFalse();
            assertThat(ab.contentEquals(abc)).isFalse();
            assertThat(ab.contentEquals(utf8("abc"))).isFalse();
            assertThat(ab.equals(abc)).isFalse();
            assertThat(ab.equals(SharedUmbraPointer.store(region, "ab"))).isTrue();
            assertThat(ab.equals((Object) "ab")).isFalse();
            assertThat(ab.equals(null)).isFalse();
        }
    }

    @Test
    void anInlineStringWithTheSameHeadDiffersByItsTail() {
        try (SharedRegion region = region()) {
            SharedUmbraPointer p = SharedUmbraPointer.store(region, "abcdefgh");
            assertThat(p.contentEquals(utf8("abcdefgX"))).isFalse();
            assertThat(p.contentEquals(utf8("abcdefgh"))).isTrue();
        }
    }

    @Test
    void aLongStringEqualsItsBytesThroughTheRegion() {
        try (SharedRegion region = region()) {
            String s = "a string longer than twelve bytes";
            SharedUmbraPointer p = SharedUmbraPointer.store(region, s);
            assertThat(p.isInline()).isFalse();
            assertThat(p.contentEquals(utf8(s))).isTrue();
            assertThat(p.contentEquals(utf8("a string longer than twelve byteZ"))).isFalse();
            assertThat(p.compareTo(utf8(s))).isZero();
            assertThat(p.compareTo(utf8("b"))).isNegative();
        }
    }

    @Test
    void prefixEqualityIsTheHeadAndIsCounted() {
        try (SharedRegion region = region()) {
            SharedUmbraPointer abcd = SharedUmbraPointer.store(region, "abcd");
            long before = prefixCompares();
            assertThat(abcd.prefixEquals(utf8("abcd"))).isTrue();
            assertThat(abcd.prefixEquals(utf8("abce"))).isFalse();
            assertThat(abcd.prefixEquals(SharedUmbraPointer.store(region, "abcd"))).isTrue();
            assertThat(abcd.prefixEquals(SharedUmbraPointer.store(region, "abce"))).isFalse();
            assertThat(abcd.prefixEquals(SharedUmbraPointer.store(region, "abcde"))).isFalse();
            assertThat(prefixCompares() - before).isEqualTo(5);
        }
    }

    @Test
    void orderIsDecidedWithoutTheRegionWhenTheShorterEndsInThePrefix() {
        try (SharedRegion region = region()) {
            SharedUmbraPointer abcd = SharedUmbraPointer.store(region, "abcd");
            SharedUmbraPointer longer =
                    SharedUmbraPointer.store(region, "abcd, and then much more");
            long before = resolves();
            assertThat(abcd.compareTo(longer)).isNegative();
            assertThat(longer.compareTo(abcd)).isPositive();
            assertThat(resolves()).isEqualTo(before);
        }
    }

    @Test
    void equalLongStringsCompareEqualWithoutResolvingEither() {
        try (SharedRegion region = region()) {
            String s = "the same long string, twice";
            SharedUmbraPointer a = SharedUmbraPointer.store(region, s);
            SharedUmbraPointer b = SharedUmbraPointer.store(region, s);
            assertThat(a.handle()).isNotEqualTo(b.handle());
            long before = resolves();
            assertThat(a.compareTo(b)).isZero();
            assertThat(resolves()).isEqualTo(before);
            a.resolve();
            assertThat(resolves()).isEqualTo(before + 1);
        }
    }

    @Test
    void theSixteenBytesRoundTripThroughABuffer() {
        try (SharedRegion region = region()) {
            AtomicBuffer buffer = new AtomicBuffer(ByteBuffer.allocateDirect(48));
            SharedUmbraPointer inline = SharedUmbraPointer.store(region, "twelve bytes");
            SharedUmbraPointer outOfLine =
                    SharedUmbraPointer.store(region, "more than twelve bytes");
            inline.writeTo(buffer, 8);
            outOfLine.writeTo(buffer, 24);
            assertThat(buffer.getLongAcquire(8)).isEqualTo(inline.head());
            assertThat(buffer.getLongAcquire(16)).isEqualTo(inline.tail());
            assertThat(buffer.getLongAcquire(24)).isEqualTo(outOfLine.head());
            assertThat(buffer.getLongAcquire(32)).isEqualTo(outOfLine.tail());
            assertThat(buffer.getLongAcquire(0)).isZero();
            assertThat(buffer.getLongAcquire(40)).isZero();
            SharedUmbraPointer back = SharedUmbraPointer.readFrom(region, buffer, 24);
            assertThat(back.head()).isEqualTo(outOfLine.head());
            assertThat(back.tail()).isEqualTo(outOfLine.tail());
            assertThat(back.resolveString()).isEqualTo("more than twelve bytes");
            assertThat(SharedUmbraPointer.readFrom(region, buffer, 8).resolveString())
                    .isEqualTo("twelve bytes");
        }
    }

    @Test
    void freeReleasesOnlyAnOutOfLineBlock() {
        try (SharedRegion region = region()) {
            SharedUmbraPointer inline = SharedUmbraPointer.store(region, "short");
            SharedUmbraPointer outOfLine =
                    SharedUmbraPointer.store(region, "longer than the inline max");
            long handle = outOfLine.handle();
            assertThat(region.usedBlocks()).isEqualTo(1);
            inline.free();
            assertThat(region.isAllocated(handle)).isTrue();
            assertThat(region.usedBlocks()).isEqualTo(1);
            outOfLine.free();
            assertThat(region.isAllocated(handle)).isFalse();
            // A small freed block waits in this handle's free cache, still used to everyone else.
            assertThat(region.usedBlocks()).isEqualTo(region.cachedBlocks());
            region.flushCache();
            assertThat(region.usedBlocks()).isZero();
        }
    }

    @Test
    void hashesSpreadAndTextNamesWhereTheBytesAre() {
        try (SharedRegion region = region()) {
            SharedUmbraPointer a = SharedUmbraPointer.store(region, "a");
            SharedUmbraPointer b = SharedUmbraPointer.store(region, "b");
            assertThat(a.hashCode()).isNotEqualTo(b.hashCode());
            assertThat(a.hashCode()).isEqualTo(SharedUmbraPointer.store(region, "a").hashCode());
            assertThat(a.hashCode()).isNotZero();
            assertThat(a.toString()).isEqualTo("umbra(1 bytes, inline)");
            SharedUmbraPointer l = SharedUmbraPointer.store(region, "longer than the inline max");
            assertThat(l.toString())
                    .isEqualTo("umbra(26 bytes, handle 0x" + Long.toHexString(l.handle()) + ")");
        }
    }
}
