package io.subetha.cxc.versioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.SizedCodec;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opening a chain or a tile checks every field its body declares against the file (each bound
 * refused one past it, and accepted at it), and the settings refuse one past each limit.
 */
class VersionedBodyCheckTest {

    @TempDir Path dir;
    int files;

    /** A fresh 2-version INT64 chain with {@code damage} done to its body, opened again. */
    void assertChainRefused(Consumer<AtomicBuffer> damage, String problem) {
        Path path = dir.resolve("chain" + files++ + ".cxc");
        SharedVersionedChain.TYPE
                .create(path, new SharedVersionedChain.Settings<>(2, FixedCodec.INT64))
                .close();
        damage.accept(RawBody.of(path));
        assertThatThrownBy(() -> SharedVersionedChain.TYPE.observe(path))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining(problem)
                .hasMessageContaining("the body is corrupt");
    }

    /** A fresh 4-point INT64 tile (from 10, every 5) with {@code damage} done, opened again. */
    void assertTileRefused(Consumer<AtomicBuffer> damage, String problem) {
        Path path = dir.resolve("tile" + files++ + ".cxc");
        SharedTimePointTile.TYPE
                .create(path, new SharedTimePointTile.Settings<>(10, 5, 4, FixedCodec.INT64))
                .close();
        damage.accept(RawBody.of(path));
        assertThatThrownBy(() -> SharedTimePointTile.TYPE.observe(path))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining(problem)
                .hasMessageContaining("the body is corrupt");
    }

    static Consumer<AtomicBuffer> setInt(int offset, int value) {
        return body -> body.setIntVolatile(offset, value);
    }

    static Consumer<AtomicBuffer> setLong(int offset, long value) {
        return body -> body.setLongVolatile(offset, value);
    }

    @Test
    void aChainBodyDeclaringAnotherShapeIsRefused() {
        int retained = SharedVersionedChainDescriptor.RETAINED_OFFSET;
        int stride = SharedVersionedChainDescriptor.SLOT_STRIDE_OFFSET;
        int size = SharedVersionedChainDescriptor.VALUE_SIZE_OFFSET;
        assertChainRefused(setInt(retained, 0), "declares 0 versions retained and slot stride 64");
        assertChainRefused(
                setInt(retained, SharedVersionedChainDescriptor.MAX_RETAINED + 1),
                "declares 1048577 versions retained");
        assertChainRefused(setInt(retained, 3), "declares 3 versions retained");
        assertChainRefused(setInt(retained, 1), "declares 1 versions retained");
        assertChainRefused(setInt(stride, 0), "slot stride 0, which do not fill its 256 bytes");
        assertChainRefused(setInt(stride, 63), "slot stride 63");
        assertChainRefused(setInt(stride, 96), "slot stride 96");
        assertChainRefused(setInt(stride, 128), "slot stride 128");
        assertChainRefused(setInt(size, 0), "value size 0 does not fit slot stride 64");
        assertChainRefused(setInt(size, 33), "value size 33 does not fit slot stride 64");
        assertChainRefused(
                setInt(size, SharedVersionedChainDescriptor.MAX_VALUE_SIZE + 1),
                "value size 65537 does not fit");
    }

    @Test
    void aTileBodyDeclaringAnotherShapeOrOverflowingPointsIsRefused() {
        int points = SharedTimePointTileDescriptor.POINTS_OFFSET;
        int stride = SharedTimePointTileDescriptor.SLOT_STRIDE_OFFSET;
        int size = SharedTimePointTileDescriptor.VALUE_SIZE_OFFSET;
        int step = SharedTimePointTileDescriptor.STEP_OFFSET;
        int start = SharedTimePointTileDescriptor.START_OFFSET;
        assertTileRefused(setInt(points, 0), "declares 0 points and slot stride 64");
        assertTileRefused(
                setInt(points, SharedTimePointTileDescriptor.TILE_CAP + 1), "declares 1025 points");
        assertTileRefused(setInt(points, 5), "declares 5 points");
        assertTileRefused(setInt(points, 3), "declares 3 points");
        assertTileRefused(setInt(stride, 0), "slot stride 0, which do not fill its 320 bytes");
        assertTileRefused(setInt(stride, 63), "slot stride 63");
        assertTileRefused(setInt(stride, 96), "slot stride 96");
        assertTileRefused(setInt(size, 0), "value size 0 does not fit slot stride 64");
        assertTileRefused(setInt(size, 33), "value size 33 does not fit slot stride 64");
        assertTileRefused(
                setInt(size, SharedTimePointTileDescriptor.MAX_VALUE_SIZE + 1),
                "value size 65537 does not fit");
        assertTileRefused(setLong(step, 0), "points from 10 every 0 (4 points)");
        assertTileRefused(setLong(step, -5), "points from 10 every -5 (4 points)");
        assertTileRefused(
                setLong(start, Long.MAX_VALUE - 14),
                "points from " + (Long.MAX_VALUE - 14) + " every 5 (4 points)");
        assertTileRefused(
                setLong(step, Long.MAX_VALUE / 2), "every " + Long.MAX_VALUE / 2 + " (4 points)");
    }

    @Test
    void theLimitsThemselvesAreAccepted() {
        Path chainPath = dir.resolve("widest-chain.cxc");
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        chainPath,
                        new SharedVersionedChain.Settings<>(
                                SharedVersionedChainDescriptor.MAX_RETAINED, FixedCodec.INT64))) {
            assertThat(chain.push(7L)).isEqualTo(1);
        }
        try (var chain =
                SharedVersionedChain.open(
                        chainPath,
                        new SharedVersionedChain.Settings<>(
                                SharedVersionedChainDescriptor.MAX_RETAINED, FixedCodec.INT64))) {
            assertThat(chain.retained()).isEqualTo(SharedVersionedChainDescriptor.MAX_RETAINED);
            assertThat(chain.readAt(1)).contains(7L);
        }
        Path tilePath = dir.resolve("widest-tile.cxc");
        long last = Long.MAX_VALUE - (SharedTimePointTileDescriptor.TILE_CAP - 1);
        SharedTimePointTile.TYPE
                .create(
                        tilePath,
                        new SharedTimePointTile.Settings<>(
                                last, 1, SharedTimePointTileDescriptor.TILE_CAP, FixedCodec.INT64))
                .close();
        try (var tile =
                SharedTimePointTile.open(
                        tilePath,
                        new SharedTimePointTile.Settings<>(
                                last,
                                1,
                                SharedTimePointTileDescriptor.TILE_CAP,
                                FixedCodec.INT64))) {
            assertThat(tile.count()).isEqualTo(SharedTimePointTileDescriptor.TILE_CAP);
            assertThat(tile.end()).isEqualTo(Long.MAX_VALUE);
            tile.record(Long.MAX_VALUE, 3L);
            assertThat(tile.valueAt(Long.MAX_VALUE)).contains(3L);
        }
        int max = SharedVersionedChainDescriptor.MAX_VALUE_SIZE;
        assertThat(new SharedVersionedChain.Settings(1, new SizedCodec(max)).values().size())
                .isEqualTo(max);
        assertThat(new SharedTimePointTile.Settings(0, 1, 1, new SizedCodec(max)).count())
                .isEqualTo(1);
        assertThat(new SharedTimePointTile.Settings(Long.MAX_VALUE, 1, 1, FixedCodec.INT64).start())
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void settingsOnePastEachLimitNameTheSettingAndTheLimit() {
        SizedCodec tooBig = new SizedCodec(SharedVersionedChainDescriptor.MAX_VALUE_SIZE + 1);
        assertThatThrownBy(() -> new SharedVersionedChain.Settings(1, tooBig))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("values"))
                .hasMessageContaining(
                        "values must be at most 65536 bytes (MAX_VALUE_SIZE), got sized(65537) of"
                                + " 65537");
        assertThatThrownBy(
                        () ->
                                new SharedVersionedChain.Settings(
                                        SharedVersionedChainDescriptor.MAX_RETAINED + 1,
                                        FixedCodec.INT64))
                .hasMessageContaining("got 1048577");
        assertThatThrownBy(() -> new SharedTimePointTile.Settings(0, 1, 1, tooBig))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("values"))
                .hasMessageContaining(
                        "values must be at most 65536 bytes (MAX_VALUE_SIZE), got sized(65537) of"
                                + " 65537");
        assertThatThrownBy(() -> new SharedTimePointTile.Settings(0, 1, 0, FixedCodec.INT64))
                .hasMessageContaining("got 0");
        assertThatThrownBy(() -> new SharedTimePointTile.Settings(1, 1, 1, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(
                        () ->
                                new SharedTimePointTile.Settings(
                                        Long.MAX_VALUE, 1, 2, FixedCodec.INT64))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class, e -> assertThat(e.setting()).isEqualTo("step"))
                .hasMessage(
                        "the last point, start "
                                + Long.MAX_VALUE
                                + " + step 1 * 1, overflows a long");
        assertThatThrownBy(
                        () ->
                                new SharedTimePointTile.Settings(
                                        0, Long.MAX_VALUE, 3, FixedCodec.INT64))
                .hasMessageContaining("overflows a long");
    }
}
