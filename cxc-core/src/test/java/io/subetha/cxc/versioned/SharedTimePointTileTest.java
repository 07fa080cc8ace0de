package io.subetha.cxc.versioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedTimePointTileTest {

    @TempDir Path dir;

    @Test
    void aLookupReturnsTheValueAtTheLatestRecordedPointAtOrBeforeTheTime() {
        try (SharedTimePointTile<Long> tile =
                SharedTimePointTile.TYPE.create(
                        dir.resolve("t.cxc"),
                        new SharedTimePointTile.Settings<>(100, 10, 8, FixedCodec.INT64))) {
            assertThat(tile.valueAt(150)).isEmpty();
            tile.record(100, 1L);
            tile.record(130, 4L);
            assertThat(tile.valueAt(99)).isEmpty();
            assertThat(tile.valueAt(100)).contains(1L);
            assertThat(tile.valueAt(129)).contains(1L);
            assertThat(tile.valueAt(130)).contains(4L);
            assertThat(tile.valueAt(Long.MAX_VALUE)).contains(4L);
            tile.record(130, 5L);
            assertThat(tile.recordedAt(130)).contains(5L);
            assertThat(tile.recordedAt(120)).isEmpty();
            assertThat(tile.end()).isEqualTo(170);
            assertThat(tile.describe()).containsEntry("recordedPoints", 2);
            assertThat(tile.opCounts()).containsKeys("push", "read_at");
        }
    }

    @Test
    void aTimeThatIsNotAPointIsAnErrorNamingTheRange() {
        try (SharedTimePointTile<Long> tile =
                SharedTimePointTile.TYPE.create(
                        dir.resolve("t.cxc"),
                        new SharedTimePointTile.Settings<>(100, 10, 8, FixedCodec.INT64))) {
            for (long time : new long[] {105, 90, 180, Long.MIN_VALUE, Long.MAX_VALUE}) {
                assertThatThrownBy(() -> tile.record(time, 1L))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage(
                                "time "
                                        + time
                                        + " is not one of the tile's points: 8 points from 100 to"
                                        + " 170, every 10");
            }
            assertThatThrownBy(() -> tile.recordedAt(101)).hasMessageContaining("100 to 170");
        }
    }

    @Test
    void settingsAndReopeningAreChecked() {
        Path path = dir.resolve("t.cxc");
        assertThatThrownBy(
                        () ->
                                SharedTimePointTile.TYPE.create(
                                        path,
                                        new SharedTimePointTile.Settings<>(
                                                0, 0, 8, FixedCodec.INT64)))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class, e -> assertThat(e.setting()).isEqualTo("step"));
        assertThatThrownBy(
                        () ->
                                SharedTimePointTile.TYPE.create(
                                        path,
                                        new SharedTimePointTile.Settings<>(
                                                0, 1, 2000, FixedCodec.INT64)))
                .hasMessageContaining("count must be 1..1024 (TILE_CAP), got 2000");
        assertThatThrownBy(
                        () ->
                                SharedTimePointTile.TYPE.create(
                                        path,
                                        new SharedTimePointTile.Settings<>(
                                                Long.MAX_VALUE - 5, 10, 2, FixedCodec.INT64)))
                .hasMessageContaining("overflows");
        SharedTimePointTile.TYPE
                .create(path, new SharedTimePointTile.Settings<>(0, 5, 4, FixedCodec.INT64))
                .close();
        try (var tile =
                SharedTimePointTile.open(
                        path, new SharedTimePointTile.Settings<>(0, 5, 4, FixedCodec.INT64))) {
            assertThat(tile.step()).isEqualTo(5);
            assertThat(tile.count()).isEqualTo(4);
        }
        assertThatThrownBy(
                        () ->
                                SharedTimePointTile.openOrCreate(
                                        path,
                                        new SharedTimePointTile.Settings<>(
                                                0, 6, 4, FixedCodec.INT64)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("created with points from 0 every 5");
        assertThatThrownBy(
                        () ->
                                SharedTimePointTile.open(
                                        path,
                                        new SharedTimePointTile.Settings<>(
                                                0, 5, 4, FixedCodec.INT32)))
                .isInstanceOf(CxcFormatException.class);
    }

    @Test
    void concurrentRecordersAndReadersNeverTearAValue() throws Exception {
        try (SharedTimePointTile<Sample> tile =
                SharedTimePointTile.TYPE.create(
                        dir.resolve("c.cxc"),
                        new SharedTimePointTile.Settings<>(0, 1, 2, Sample.CODEC))) {
            ExecutorService pool = Executors.newFixedThreadPool(3);
            AtomicBoolean done = new AtomicBoolean();
            try {
                Future<?> a = pool.submit(() -> recordMany(tile, 1));
                Future<?> b = pool.submit(() -> recordMany(tile, 2));
                Future<long[]> reader =
                        pool.submit(
                                () -> {
                                    long reads = 0;
                                    long torn = 0;
                                    while (!done.get()) {
                                        var value =
                                                tile.valueAt(
                                                        ThreadLocalRandom.current().nextInt(2));
                                        if (value.isPresent()) {
                                            reads++;
                                            torn += value.get().whole() ? 0 : 1;
                                        }
                                    }
                                    return new long[] {reads, torn};
                                });
                a.get(60, TimeUnit.SECONDS);
                b.get(60, TimeUnit.SECONDS);
                done.set(true);
                assertThat(reader.get(60, TimeUnit.SECONDS)[1]).isZero();
            } finally {
                done.set(true);
                pool.shutdownNow();
            }
            assertThat(tile.recordedAt(1).orElseThrow().n()).isEqualTo(5_000);
        }
    }

    static void recordMany(SharedTimePointTile<Sample> tile, long producer) {
        for (long n = 1; n <= 5_000; n++) {
            tile.record(n % 2, Sample.of(producer, n));
            tile.record(1, Sample.of(producer, n));
        }
    }

    @Test
    void everyReadOpIsCountedOnce() {
        try (SharedTimePointTile<Long> tile =
                SharedTimePointTile.TYPE.create(
                        dir.resolve("s.cxc"),
                        new SharedTimePointTile.Settings<>(-10, 1, 4, FixedCodec.INT64))) {
            tile.record(-7, 5L);
            // Long.MAX_VALUE - (-10) overflows to a negative offset: still "after the last point".
            assertThat(tile.valueAt(Long.MAX_VALUE)).contains(5L);
            assertThatThrownBy(() -> tile.record(Long.MAX_VALUE, 1L))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not one of the tile's points");
            tile.valueAt(-100);
            tile.recordedAt(-7);
            assertThat(tile.opCounts()).containsEntry("push", 1L).containsEntry("read_at", 3L);
        }
    }
}
