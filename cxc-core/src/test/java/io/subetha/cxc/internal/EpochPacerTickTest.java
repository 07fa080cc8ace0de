package io.subetha.cxc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The pacer's one word: who may tick, judged from the stamp in the buffer (planted here, so no test
 * depends on the clock's speed: every interval is an hour or a nanosecond).
 */
class EpochPacerTickTest {

    private static final int OFFSET = 8;
    private static final Duration HOUR = Duration.ofHours(1);

    private final AtomicBuffer body = new AtomicBuffer(ByteBuffer.allocateDirect(32));
    private final EpochPacer pacer = new EpochPacer(body, OFFSET);

    @Test
    void theFirstClaimOfANeverTickedWordWinsAndStampsItAtItsOffset() {
        long before = System.nanoTime();
        assertThat(pacer.claimTick(HOUR)).isTrue();
        long stamp = body.getLongVolatile(OFFSET);
        assertThat(stamp - before).isNotNegative();
        assertThat(System.nanoTime() - stamp).isNotNegative();
        assertThat(body.getLongVolatile(0)).as("the word before").isZero();
        assertThat(body.getLongVolatile(16)).as("the word after").isZero();
    }

    @Test
    void aTickWithinTheIntervalIsRefusedAndLeavesTheStamp() {
        long recent = System.nanoTime();
        body.setLongVolatile(OFFSET, recent);
        assertThat(pacer.claimTick(HOUR)).isFalse();
        assertThat(body.getLongVolatile(OFFSET)).isEqualTo(recent);
    }

    @Test
    void aTickOlderThanTheIntervalIsDueAndRestamped() {
        long old = System.nanoTime() - HOUR.toNanos() - 1;
        body.setLongVolatile(OFFSET, old);
        assertThat(pacer.claimTick(HOUR)).isTrue();
        assertThat(body.getLongVolatile(OFFSET)).isGreaterThan(old + HOUR.toNanos());
    }

    @Test
    void aTickFromTheFutureCountsAsDueSoTheEpochNeverFreezes() {
        long future = System.nanoTime() + HOUR.toNanos();
        body.setLongVolatile(OFFSET, future);
        assertThat(pacer.claimTick(HOUR)).isTrue();
        assertThat(body.getLongVolatile(OFFSET)).isLessThan(future);
    }

    @Test
    void anElapsedIntervalOfExactlyOneNanosecondIsDue() {
        // Whatever the clock did since the stamp, at least one nanosecond has passed by the claim.
        body.setLongVolatile(OFFSET, System.nanoTime() - 1);
        assertThat(pacer.claimTick(Duration.ofNanos(1))).isTrue();
    }

    @Test
    void aNeverTickedWordIsDueWhateverTheInterval() {
        assertThat(pacer.claimTick(Duration.ofNanos(Long.MAX_VALUE))).isTrue();
        assertThat(body.getLongVolatile(OFFSET)).isNotZero();
    }

    @Test
    void aSecondPacerRightAfterAWinnerStandsDown() {
        long old = System.nanoTime() - HOUR.toNanos() - 1;
        body.setLongVolatile(OFFSET, old);
        EpochPacer other = new EpochPacer(body, OFFSET);
        assertThat(other.claimTick(HOUR)).isTrue();
        long winner = body.getLongVolatile(OFFSET);
        assertThat(pacer.claimTick(HOUR)).isFalse();
        assertThat(body.getLongVolatile(OFFSET)).isEqualTo(winner);
    }

    @Test
    void anIntervalMustBePositiveAndTheErrorNamesIt() {
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofNanos(-1)}) {
            assertThatThrownBy(() -> pacer.claimTick(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("tick interval must be positive, got " + bad);
        }
        assertThat(body.getLongVolatile(OFFSET)).isZero();
    }
}
