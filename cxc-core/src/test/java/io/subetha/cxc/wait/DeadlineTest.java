package io.subetha.cxc.wait;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A caller's wait as a deadline on {@link System#nanoTime()}: the ways a caller says "no limit"
 * ({@code Duration.ofSeconds(Long.MAX_VALUE)}, {@code ChronoUnit.FOREVER}) are the longest wait,
 * not an {@link ArithmeticException} from {@link Duration#toNanos()}.
 */
class DeadlineTest {

    static final List<Duration> NO_LIMITS =
            List.of(Duration.ofSeconds(Long.MAX_VALUE), ChronoUnit.FOREVER.getDuration());

    @Test
    void aWaitPastTheNanosecondRangeIsTheLongestWaitAndShorterOnesAreExact() {
        for (Duration forever : NO_LIMITS) {
            assertThat(Deadline.nanos(forever)).isEqualTo(Long.MAX_VALUE / 4);
        }
        assertThat(Deadline.nanos(Deadline.LONGEST)).isEqualTo(Long.MAX_VALUE / 4);
        assertThat(Deadline.nanos(Deadline.LONGEST.plusNanos(1))).isEqualTo(Long.MAX_VALUE / 4);
        assertThat(Deadline.nanos(Duration.ofSeconds(3, 7))).isEqualTo(3_000_000_007L);
        assertThat(Deadline.nanos(Duration.ZERO)).isZero();
        assertThat(System.nanoTime() + Deadline.nanos(NO_LIMITS.get(0))).isPositive();
    }

    @Test
    void aDeadlineWithoutLimitIsNeverPassedAndItsRemainderDoesNotOverflow() {
        for (Duration forever : NO_LIMITS) {
            Deadline deadline = Deadline.after(forever);
            assertThat(deadline.passed()).isFalse();
            assertThat(deadline.remainingNanos())
                    .isPositive()
                    .isLessThanOrEqualTo(Long.MAX_VALUE / 4);
        }
    }

    @Test
    void aDeadlineOfAnHourRemainsAtMostAnHourAndOneOfNoTimeHasPassed() {
        long hour = Duration.ofHours(1).toNanos();
        Deadline inAnHour = Deadline.after(Duration.ofHours(1));
        assertThat(inAnHour.passed()).isFalse();
        assertThat(inAnHour.remainingNanos()).isPositive().isLessThanOrEqualTo(hour);
        assertThat(inAnHour.remainingNanos())
                .isGreaterThan(hour - Duration.ofMinutes(30).toNanos());

        Deadline now = Deadline.after(Duration.ZERO);
        assertThat(now.passed()).isTrue();
        assertThat(now.remainingNanos()).isNotPositive();
        Deadline past = Deadline.after(Duration.ofSeconds(-1));
        assertThat(past.passed()).isTrue();
        assertThat(past.remainingNanos()).isNegative();
    }
}
