package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.SizedCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opening a scheduler checks the grace and the payload sizes its body declares (each refused one
 * past its bound, accepted at it), the settings refuse one past each limit naming it, and an
 * observer's view reads the file without taking part.
 */
class SchedulerFileChecksTest {

    @TempDir Path dir;
    int files;

    /** A fresh 2-job INT64 scheduler (272-byte slots) with {@code damage} done, opened again. */
    void assertRefused(Consumer<AtomicBuffer> damage, String problem) {
        Path path = dir.resolve("jobs" + files++ + ".cxc");
        BackgroundScheduler.TYPE
                .create(
                        path,
                        new BackgroundScheduler.Settings<>(2, FixedCodec.INT64, FixedCodec.INT64))
                .close();
        damage.accept(RawBody.of(path));
        assertThatThrownBy(() -> BackgroundScheduler.TYPE.observe(path, CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining(problem)
                .hasMessageContaining("the body is corrupt");
    }

    @Test
    void aBodyDeclaringABadGraceOrPayloadSizesIsRefused() {
        int jobSize = PrimitiveType.CODEC_SIZES_OFFSET;
        int resultSize = PrimitiveType.CODEC_SIZES_OFFSET + 4;
        long day = Duration.ofDays(1).toNanos();
        assertRefused(
                b -> b.setLongVolatile(GRACE_NANOS_OFFSET, 0),
                "it declares a grace of 0 ns, outside 1 ns .. 1 day");
        assertRefused(b -> b.setLongVolatile(GRACE_NANOS_OFFSET, -1), "a grace of -1 ns");
        assertRefused(
                b -> b.setLongVolatile(GRACE_NANOS_OFFSET, day + 1), "a grace of " + (day + 1));
        assertRefused(
                b -> b.setIntVolatile(jobSize, 100),
                "it declares 100-byte jobs and 8-byte results in 272-byte slots, which do not fit"
                        + " them");
        assertRefused(b -> b.setIntVolatile(jobSize, -1), "4294967295-byte jobs");
        assertRefused(b -> b.setIntVolatile(resultSize, -1), "4294967295-byte results");
        assertRefused(b -> b.setIntVolatile(resultSize, 9), "8-byte jobs and 9-byte results");
        assertRefused(b -> b.setIntVolatile(jobSize, MAX_PAYLOAD + 1), "16385-byte jobs");
        assertRefused(b -> b.setIntVolatile(resultSize, MAX_PAYLOAD + 1), "16385-byte results");
    }

    @Test
    void theLimitsThemselvesAreAccepted() {
        Path path = dir.resolve("widest.cxc");
        var max = new SizedCodec(MAX_PAYLOAD);
        var settings = new BackgroundScheduler.Settings<>(1, max, max, Duration.ofDays(1));
        BackgroundScheduler.TYPE.create(path, settings, CxcFileOptions.defaults()).close();
        try (var view = BackgroundScheduler.TYPE.observe(path, CxcFileOptions.defaults())) {
            assertThat(view.describe())
                    .containsEntry("graceMillis", Duration.ofDays(1).toMillis())
                    .containsEntry("capacity", 1);
        }
        Path ns = dir.resolve("ns.cxc");
        var oneNano =
                new BackgroundScheduler.Settings<>(
                        3, FixedCodec.INT64, FixedCodec.INT64, Duration.ofNanos(1));
        try (BackgroundScheduler<?, ?> s =
                BackgroundScheduler.TYPE.openOrCreate(ns, oneNano, CxcFileOptions.defaults())) {
            assertThat(s.grace()).isEqualTo(Duration.ofNanos(1));
            assertThat(s.describe()).containsEntry("graceMillis", 0L).containsEntry("capacity", 3);
        }
        try (var again =
                BackgroundScheduler.openOrCreate(
                        ns,
                        new BackgroundScheduler.Settings<>(
                                3, FixedCodec.INT64, FixedCodec.INT64))) {
            assertThat(again.grace()).isEqualTo(Duration.ofNanos(1)); // the file's, not the default
        }
    }

    @Test
    void settingsOnePastEachLimitNameTheSettingAndTheLimit() {
        var tooBig = new SizedCodec(MAX_PAYLOAD + 1);
        assertThatThrownBy(() -> new BackgroundScheduler.Settings<>(1, tooBig, FixedCodec.INT64))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("jobCodec"))
                .hasMessage("jobCodec must encode at most 16384 bytes, got 16385 (sized(16385))");
        assertThatThrownBy(() -> new BackgroundScheduler.Settings<>(1, FixedCodec.INT64, tooBig))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("resultCodec"))
                .hasMessage(
                        "resultCodec must encode at most 16384 bytes, got 16385 (sized(16385))");
        for (Duration grace :
                new Duration[] {
                    Duration.ZERO, Duration.ofNanos(-1), Duration.ofDays(1).plusNanos(1)
                }) {
            assertThatThrownBy(
                            () ->
                                    new BackgroundScheduler.Settings<>(
                                            1, FixedCodec.INT64, FixedCodec.INT64, grace))
                    .isInstanceOfSatisfying(
                            CxcSettingsException.class,
                            e -> assertThat(e.setting()).isEqualTo("grace"))
                    .hasMessage("grace must be more than 0 and at most 1 day, got " + grace);
        }
        assertThatThrownBy(
                        () ->
                                new BackgroundScheduler.Settings<>(
                                        MAX_CAPACITY + 1, FixedCodec.INT64, FixedCodec.INT64))
                .hasMessageContaining("got 1048577");
        assertThat(
                        new BackgroundScheduler.Settings<>(
                                        MAX_CAPACITY, FixedCodec.INT64, FixedCodec.INT64)
                                .grace())
                .isEqualTo(BackgroundScheduler.DEFAULT_GRACE);
    }

    @Test
    void anObserversViewReadsTheFileWithoutTakingPart() {
        Path path = dir.resolve("jobs.cxc");
        BackgroundScheduler.TYPE
                .create(
                        path,
                        new BackgroundScheduler.Settings<>(2, FixedCodec.INT64, FixedCodec.INT64))
                .close();
        try (var view = BackgroundScheduler.TYPE.observe(path, CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("queued", 0L);
        }
    }
}
