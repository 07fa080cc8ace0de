package io.subetha.cxc.boot.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcSettingsException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A fan-out's retry policy: its limits, and the back-off doubling per failure up to its cap. */
class FanoutRetryTest {

    @Test
    void theBackoffDoublesForEachLaterFailureUpToTenMinutes() {
        FanoutRetry retry = new FanoutRetry(100, Duration.ofSeconds(1));
        assertThat(retry.backoffAfter(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(retry.backoffAfter(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(retry.backoffAfter(4)).isEqualTo(Duration.ofSeconds(8));
        assertThat(retry.backoffAfter(11)).isEqualTo(FanoutRetry.MAX_BACKOFF);
        assertThat(retry.backoffAfter(99)).isEqualTo(FanoutRetry.MAX_BACKOFF);
        assertThat(new FanoutRetry(3, Duration.ZERO).backoffAfter(2)).isZero();
    }

    @Test
    void attemptsAndBackoffOutsideTheirLimitsAreRefusedNamingThem() {
        assertThatThrownBy(() -> new FanoutRetry(0, Duration.ofSeconds(1)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("maxAttempts must be 1..1000");
        assertThatThrownBy(() -> new FanoutRetry(3, Duration.ofSeconds(-1)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("backoff must be 0s..10m");
    }
}
