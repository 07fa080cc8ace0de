package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassPlantedStatesTest.bind;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ends of a call's timeout: "forever" (a duration past {@code toNanos()}'s ~292 years, such as
 * {@code ChronoUnit.FOREVER}) is a long wait, not an {@code ArithmeticException} (it was, before
 * this pass), and zero withdraws a request nobody has taken at the first look.
 */
class PassTimeoutBoundsTest {

    @TempDir Path dir;
    private final List<PassRegistry> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(PassRegistry::close);
    }

    private PassRegistry open() {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        dir.resolve("calls.passes"), new PassRegistry.Settings(1, 1, 16));
        opened.add(registry);
        return registry;
    }

    @Test
    void aTimeoutPastTheNanosecondRangeIsALongWaitNotAnOverflow() {
        PassRegistry owner = open();
        owner.register(1, args -> new byte[] {(byte) (args[0] + 1)});
        PassRegistry caller = open();

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
        PassRegistry caller = open();
        bind(RawBody.of(dir.resolve("calls.passes")), entry(0, 1, 16), 1, 1, 3); // PID 1
        assertThatThrownBy(() -> caller.execute(1, new byte[] {1}, Duration.ZERO))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("within PT0S; the request was withdrawn before it ran");
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }
}
