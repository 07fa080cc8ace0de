package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.RawBody;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * What a registry makes of bad input, from its caller or from the file: settings, waits and
 * dispatcher counts one past each limit (named), a body whose declared settings disagree with its
 * header or its length (refused on open, the file untouched), timeouts at both ends of their range,
 * and request lengths, answer lengths and failure texts out of shape in a slot (a handler's failure
 * or a corrupt-file error, never a wrong read).
 */
class PassRegistryBadInputTest extends PassRegistryFixture {

    int files;

    /**
     * A fresh registry of 1 pass, 3 slots, 64-byte payloads (2688-byte body), damaged, reopened.
     */
    void assertRefused(Consumer<AtomicBuffer> damage, String problem) {
        Path path = dir.resolve("calls" + files++ + ".passes");
        PassRegistry.TYPE.create(path, new PassRegistry.Settings(1, 3, 64)).close();
        damage.accept(RawBody.of(path));
        assertThatThrownBy(() -> PassRegistry.open(path))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining(problem)
                .hasMessageContaining("the body is corrupt");
    }

    static Consumer<AtomicBuffer> setInt(int offset, int value) {
        return body -> body.setIntVolatile(offset, value);
    }

    /** A file of layout 2 (a wake token where the caller's waiter is, no callers' doorbell). */
    @Test
    void aFileOfTheLayoutBeforeTheCallersDoorbellIsRefusedWithWhatToDo() {
        Path path = dir.resolve("old.passes");
        PassRegistry.TYPE.create(path, new PassRegistry.Settings(1, 3, 64)).close();
        io.subetha.cxc.testing.RawHeader.setLayoutVersion(path, 2);
        assertThatThrownBy(() -> PassRegistry.open(path))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("layout version 2, but this CXC reads version 3")
                .hasMessageContaining("older CXC release")
                .hasMessageContaining("delete it");
    }

    @Test
    void aBodyDeclaringOtherSettingsIsRefused() {
        assertRefused(setInt(MAX_PASSES_OFFSET, 0), "it declares 0 max passes, outside 1..4096");
        assertRefused(setInt(MAX_PASSES_OFFSET, MAX_PASSES + 1), "4097 max passes");
        assertRefused(setInt(MAX_PASSES_OFFSET, -1), "4294967295 max passes");
        assertRefused(
                setInt(MAILBOX_SLOTS_OFFSET, 0), "it declares 0 mailbox slots, outside 1..1024");
        assertRefused(setInt(MAILBOX_SLOTS_OFFSET, MAX_MAILBOX_SLOTS + 1), "1025 mailbox slots");
        assertRefused(
                setInt(MAX_PAYLOAD_OFFSET, 0),
                "it declares a payload of 0 bytes, outside 1..1048576");
        assertRefused(setInt(MAX_PAYLOAD_OFFSET, MAX_PAYLOAD_BYTES + 1), "a payload of 1048577");
        assertRefused(
                setInt(MAX_PAYLOAD_OFFSET, 65),
                "its settings (1 passes, 3 slots, 65-byte payloads) need a body of 2880 bytes, the"
                        + " file has 2688");
        assertRefused(setInt(MAILBOX_SLOTS_OFFSET, 2), "need a body of 2560 bytes");
        assertRefused(setInt(MAILBOX_SLOTS_OFFSET, 4), "need a body of 2816 bytes");
        // The same body length, split otherwise: the header's numbers tell.
        assertRefused(
                body -> {
                    body.setIntVolatile(MAX_PASSES_OFFSET, 2);
                    body.setIntVolatile(MAILBOX_SLOTS_OFFSET, 1);
                },
                "its body declares 2 passes of 256 bytes, its header 1 of 512");
    }

    @Test
    void theLimitsThemselvesAreAccepted() {
        Path path = dir.resolve("wide.passes");
        PassRegistry.TYPE.create(path, new PassRegistry.Settings(MAX_PASSES, 1, 1)).close();
        try (PassRegistry registry = PassRegistry.open(path)) {
            assertThat(registry.maxPasses()).isEqualTo(MAX_PASSES);
            assertThat(registry.mailboxSlots()).isEqualTo(1);
            assertThat(registry.maxPayloadBytes()).isEqualTo(1);
        }
        Path deep = dir.resolve("deep.passes");
        PassRegistry.TYPE.create(deep, new PassRegistry.Settings(1, MAX_MAILBOX_SLOTS, 64)).close();
        try (PassRegistry registry = PassRegistry.open(deep)) {
            assertThat(registry.mailboxSlots()).isEqualTo(MAX_MAILBOX_SLOTS);
        }
        assertThat(new PassRegistry.Settings(1, 1, MAX_PAYLOAD_BYTES).maxPayloadBytes())
                .isEqualTo(MAX_PAYLOAD_BYTES);
    }

    @Test
    void settingsOnePastEachLimitNameTheSetting() {
        assertThatThrownBy(() -> new PassRegistry.Settings(MAX_PASSES + 1, 1, 1))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("maxPasses"));
        assertThatThrownBy(() -> new PassRegistry.Settings(1, 0, 1))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("mailboxSlots"));
        assertThatThrownBy(() -> new PassRegistry.Settings(1, MAX_MAILBOX_SLOTS + 1, 1))
                .hasMessageContaining("mailboxSlots must be 1..1024, got 1025");
        assertThatThrownBy(() -> new PassRegistry.Settings(1, 1, 0))
                .hasMessageContaining("maxPayloadBytes must be 1..1048576, got 0");
        assertThatThrownBy(() -> new PassRegistry.Settings(4096, 1024, 1 << 20))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("maxPasses"))
                .hasMessageContaining("for 4096 × 1024 × 1048576");
    }

    @Test
    void waitsAndDispatcherCountsOutsideTheirRangeAreRefused() {
        Duration ms = Duration.ofMillis(1);
        Duration negative = Duration.ofNanos(-1);
        assertThatThrownBy(() -> new PassWaiting(negative, ms, ms, ms))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("spin must be 0 or more, got " + negative);
        assertThatThrownBy(() -> new PassWaiting(ms, negative, ms, ms))
                .hasMessage("yield must be 0 or more, got " + negative);
        assertThatThrownBy(() -> new PassWaiting(ms, ms, negative, ms))
                .hasMessage("maxPark must be 0 or more, got " + negative);
        assertThatThrownBy(() -> new PassWaiting(ms, ms, ms, negative))
                .hasMessage("ownerCheck must be 0 or more, got " + negative);
        assertThatThrownBy(() -> new PassWaiting(ms, ms, Duration.ZERO, ms))
                .hasMessage("maxPark and ownerCheck must be positive, got PT0S, PT0.001S");
        assertThatThrownBy(() -> new PassWaiting(ms, ms, ms, Duration.ZERO))
                .hasMessage("maxPark and ownerCheck must be positive, got PT0.001S, PT0S");
        assertThatThrownBy(() -> new PassWaiting(null, ms, ms, ms))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("spin");
        PassWaiting zeroSpin = new PassWaiting(Duration.ZERO, Duration.ZERO, ms, ms);
        PassWaiting respun = zeroSpin.spinning(ms, Duration.ofMillis(2));
        assertThat(respun).isEqualTo(new PassWaiting(ms, Duration.ofMillis(2), ms, ms));

        assertThatThrownBy(() -> new PassRegistry.Settings(1, 1, 8).withDispatcherThreads(0))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("dispatcherThreads"))
                .hasMessage("dispatcherThreads must be 1..64, got 0");
        assertThatThrownBy(() -> new PassRegistry.Settings(1, 1, 8).withDispatcherThreads(65))
                .hasMessage("dispatcherThreads must be 1..64, got 65");
        assertThat(new PassRegistry.Settings(1, 1, 8).withDispatcherThreads(64).dispatcherThreads())
                .isEqualTo(64);
        assertThatThrownBy(() -> new PassRegistry.Settings(1, 1, 8, 1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("waiting");
        try (PassRegistry registry =
                PassRegistry.TYPE.create(
                        dir.resolve("d.passes"),
                        new PassRegistry.Settings(1, 1, 8).withWaiting(zeroSpin))) {
            assertThat(registry.waiting()).isSameAs(zeroSpin);
        }
    }

    /**
     * "Forever" (a duration past {@code toNanos()}'s ~292 years, such as {@code
     * ChronoUnit.FOREVER}) is a long wait, not an {@code ArithmeticException}.
     */
    @Test
    void aTimeoutPastTheNanosecondRangeIsALongWaitNotAnOverflow() {
        PassRegistry owner = open(1, 1, 16);
        owner.register(1, args -> new byte[] {(byte) (args[0] + 1)});
        PassRegistry caller = open(1, 1, 16);

        for (Duration forever :
                List.of(
                        Duration.ofSeconds(Long.MAX_VALUE),
                        ChronoUnit.FOREVER.getDuration(),
                        Duration.ofDays(365L * 300),
                        Duration.ofNanos(Long.MAX_VALUE))) {
            assertThat(caller.execute(1, new byte[] {1}, forever)).containsExactly(2);
            assertThat(caller.executeAsync(1, new byte[] {2}, forever).join()).containsExactly(3);
        }
    }

    @Test
    void aZeroTimeoutWithdrawsARequestNobodyTookAtTheFirstLook() {
        PassRegistry caller = open(1, 1, 16);
        bind(RawBody.of(file()), entry(0, 1, 16), 1, 1, 3); // PID 1
        assertThatThrownBy(() -> caller.execute(1, new byte[] {1}, Duration.ZERO))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("within PT0S; the request was withdrawn before it ran");
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }

    @Test
    void aRequestLengthOutOfRangeIsTheHandlersFailureNotARead() {
        PassRegistry owner = open(1, 1, 256);
        owner.register(1, args -> args);
        PassRegistry caller = open(1, 1, 256);
        AtomicBuffer raw = RawBody.of(file());
        int s = slot(entry(0, 1, 256), 0, 256);
        Thread test = Thread.currentThread();
        try (var planted =
                Interleaving.install(
                        p -> {
                            if (p == Point.PASS_REQUEST_WRITTEN && Thread.currentThread() == test) {
                                raw.setIntVolatile(s + LENGTH_OFFSET, -1);
                            }
                        })) {
            assertThatThrownBy(() -> caller.execute(1, new byte[3], LONG))
                    .isInstanceOfSatisfying(
                            PassFailedException.class,
                            e -> {
                                assertThat(e.handlerException())
                                        .isEqualTo("java.lang.IllegalArgumentException");
                                assertThat(e.handlerMessage())
                                        .isEqualTo("request length 4294967295 is outside 0..256");
                            });
        }
        assertThat(caller.execute(1, new byte[] {5}, LONG)).containsExactly(5);
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }

    @Test
    void anAnswerLengthOutOfRangeIsACorruptFileErrorAndTheSlotIsFreed() {
        PassRegistry owner = open(1, 1, 64);
        owner.register(1, args -> args);
        PassRegistry caller = open(1, 1, 64);
        AtomicBuffer raw = RawBody.of(file());
        int s = slot(entry(0, 1, 64), 0, 64);
        try (var planted =
                Interleaving.install(
                        p -> {
                            if (p == Point.PASS_ANSWER_WRITTEN) {
                                raw.setIntVolatile(s + LENGTH_OFFSET, 65);
                            }
                        })) {
            assertThatThrownBy(() -> caller.execute(1, new byte[3], LONG))
                    .isInstanceOf(CxcException.class)
                    .hasMessageContaining(
                            "answered with a length of 65 bytes, outside 0..64; the file is corrupt");
        }
        assertThat(caller.describe()).containsEntry("busySlots", 0);
        assertThat(caller.execute(1, new byte[0], LONG)).isEmpty();
    }

    @Test
    void anAnswerWithANegativeLengthIsACorruptFileErrorAndTheSlotIsFreed() {
        PassRegistry owner = open(1, 1, 64);
        owner.register(1, args -> args);
        PassRegistry caller = open(1, 1, 64);
        AtomicBuffer raw = RawBody.of(file());
        int s = slot(entry(0, 1, 64), 0, 64);
        try (var planted =
                Interleaving.install(
                        p -> {
                            if (p == Point.PASS_ANSWER_WRITTEN) {
                                raw.setIntVolatile(s + LENGTH_OFFSET, -1);
                            }
                        })) {
            assertThatThrownBy(() -> caller.execute(1, new byte[3], LONG))
                    .isExactlyInstanceOf(CxcException.class)
                    .hasMessageContaining(
                            "answered with a length of 4294967295 bytes, outside 0..64; the file"
                                    + " is corrupt");
        }
        assertThat(busy(caller)).isZero();
    }

    /** A failure whose class name alone fills the payload: no newline, so no message. */
    @Test
    void aFailureTextCutBeforeItsNewlineIsAllClassAndNoMessage() {
        PassRegistry owner = open(1, 1, 16);
        owner.register(
                1,
                args -> {
                    throw new IllegalStateException("boom");
                });
        PassRegistry caller = open(1, 1, 16);

        assertThatThrownBy(() -> caller.execute(1, new byte[0], LONG))
                .isInstanceOfSatisfying(
                        PassFailedException.class,
                        e -> {
                            assertThat(e.handlerException()).isEqualTo("java.lang.Illega");
                            assertThat(e.handlerMessage()).isEmpty();
                        });
    }

    /** A failure text that starts with its newline (planted): no class, all message. */
    @Test
    void aFailureTextStartingWithItsNewlineIsNoClassAndAllMessage() {
        PassRegistry owner = open(1, 1, 64);
        owner.register(
                1,
                args -> {
                    throw new IllegalStateException("boom");
                });
        PassRegistry caller = open(1, 1, 64);
        AtomicBuffer raw = RawBody.of(file());
        int s = slot(entry(0, 1, 64), 0, 64);
        byte[] text = "\nboom".getBytes(StandardCharsets.UTF_8);
        try (var planted =
                Interleaving.install(
                        p -> {
                            if (p == Point.PASS_ANSWER_WRITTEN) {
                                raw.putBytes(s + SLOT_HEADER_LENGTH, text);
                                raw.setIntVolatile(s + LENGTH_OFFSET, text.length);
                            }
                        })) {
            assertThatThrownBy(() -> caller.execute(1, new byte[0], LONG))
                    .isInstanceOfSatisfying(
                            PassFailedException.class,
                            e -> {
                                assertThat(e.handlerException()).isEmpty();
                                assertThat(e.handlerMessage()).isEqualTo("boom");
                            });
        }
    }
}
