package io.subetha.cxc.eventlog;

import static io.subetha.cxc.eventlog.EventStateLogDescriptor.*;
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
 * Opening a log checks every field its body declares against the file (each bound refused one past
 * it, accepted at it), and the settings refuse one past each limit, naming it.
 */
class EventLogBodyCheckTest {

    @TempDir Path dir;
    int files;

    /**
     * A fresh 2-event INT64 log (stride 64, body 1664 bytes: 576 and the doorbell) with {@code
     * damage} done, reopened.
     */
    void assertRefused(Consumer<AtomicBuffer> damage, String problem) {
        Path path = dir.resolve("log" + files++ + ".cxc");
        EventStateLog.TYPE
                .create(
                        path,
                        new EventStateLog.Settings<>(2, FixedCodec.INT64, FixedCodec.INT64, 0L))
                .close();
        damage.accept(RawBody.of(path));
        assertThatThrownBy(() -> EventStateLog.TYPE.observe(path))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining(problem)
                .hasMessageContaining("the body is corrupt");
    }

    static Consumer<AtomicBuffer> setInt(int offset, int value) {
        return body -> body.setIntVolatile(offset, value);
    }

    @Test
    void aBodyDeclaringAnotherShapeIsRefused() {
        assertRefused(setInt(CAPACITY_OFFSET, 0), "declares capacity 0 and slot stride 64");
        assertRefused(setInt(CAPACITY_OFFSET, MAX_CAPACITY + 1), "declares capacity 1048577");
        assertRefused(
                setInt(CAPACITY_OFFSET, 3),
                "declares capacity 3 and slot stride 64, which need 1728 bytes, but it has 1664");
        assertRefused(setInt(CAPACITY_OFFSET, 1), "which need 1600 bytes, but it has 1664");
    }

    @Test
    void aBodyDeclaringAnotherStrideOrPayloadIsRefused() {
        assertRefused(setInt(SLOT_STRIDE_OFFSET, 0), "declares capacity 2 and slot stride 0");
        assertRefused(setInt(SLOT_STRIDE_OFFSET, 63), "slot stride 63");
        assertRefused(setInt(SLOT_STRIDE_OFFSET, 96), "slot stride 96");
        assertRefused(setInt(SLOT_STRIDE_OFFSET, 128), "which need 1920 bytes, but it has 1664");
        assertRefused(setInt(EVENT_SIZE_OFFSET, 0), "event size 0 and state size 8");
        assertRefused(setInt(STATE_SIZE_OFFSET, 0), "event size 8 and state size 0");
        assertRefused(setInt(EVENT_SIZE_OFFSET, 33), "event size 33 and state size 8 do not fit");
        assertRefused(setInt(STATE_SIZE_OFFSET, 57), "event size 8 and state size 57 do not fit");
        assertRefused(setInt(EVENT_SIZE_OFFSET, MAX_PAYLOAD + 1), "event size 65537");
        assertRefused(setInt(STATE_SIZE_OFFSET, MAX_PAYLOAD + 1), "state size 65537");
    }

    @Test
    void theLimitsThemselvesAreAccepted() {
        Path path = dir.resolve("widest.cxc");
        try (EventStateLog<Long, Long> log =
                EventStateLog.TYPE.create(
                        path,
                        new EventStateLog.Settings<>(
                                MAX_CAPACITY, FixedCodec.INT64, FixedCodec.INT64, 0L))) {
            log.emit(4L);
            assertThat(log.drainAndFold(Long::sum)).isEqualTo(1);
        }
        try (EventStateLog<Long, Long> log =
                EventStateLog.open(
                        path,
                        new EventStateLog.Settings<>(
                                MAX_CAPACITY, FixedCodec.INT64, FixedCodec.INT64, 0L))) {
            assertThat(log.capacity()).isEqualTo(MAX_CAPACITY);
            assertThat(log.readCurrent()).isEqualTo(4);
        }
        var max = new SizedCodec(MAX_PAYLOAD);
        assertThat(new EventStateLog.Settings(1, max, max, 0L).stride())
                .isEqualTo(strideFor(MAX_PAYLOAD, MAX_PAYLOAD));
    }

    @Test
    void settingsOnePastEachLimitNameTheSettingAndTheLimit() {
        var tooBig = new SizedCodec(MAX_PAYLOAD + 1);
        assertThatThrownBy(() -> new EventStateLog.Settings(1, tooBig, FixedCodec.INT64, 0L))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("events"))
                .hasMessage(
                        "events must be at most 65536 bytes (MAX_PAYLOAD), got sized(65537) of"
                                + " 65537");
        assertThatThrownBy(() -> new EventStateLog.Settings(1, FixedCodec.INT64, tooBig, 0L))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class, e -> assertThat(e.setting()).isEqualTo("state"))
                .hasMessage(
                        "state must be at most 65536 bytes (MAX_PAYLOAD), got sized(65537) of"
                                + " 65537");
        assertThatThrownBy(
                        () ->
                                new EventStateLog.Settings(
                                        1, FixedCodec.INT64, FixedCodec.INT64, null))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("initial"))
                .hasMessage("initial state must not be null");
        assertThatThrownBy(
                        () ->
                                new EventStateLog.Settings(
                                        MAX_CAPACITY + 1, FixedCodec.INT64, FixedCodec.INT64, 0L))
                .hasMessageContaining("got 1048577");
        assertThatThrownBy(() -> new EventStateLog.Settings(1, null, FixedCodec.INT64, 0L))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new EventStateLog.Settings(1, FixedCodec.INT64, null, 0L))
                .isInstanceOf(NullPointerException.class);
    }
}
