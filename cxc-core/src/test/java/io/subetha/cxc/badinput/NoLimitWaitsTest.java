package io.subetha.cxc.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.region.SharedRegion;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ways a caller says "no limit" ({@code Duration.ofSeconds(Long.MAX_VALUE)}, {@code
 * ChronoUnit.FOREVER}) are long waits, not an {@link ArithmeticException} from {@link
 * Duration#toNanos()}, wherever a caller's wait becomes a deadline ({@code
 * io.subetha.cxc.wait.DeadlineTest} pins the conversion itself).
 */
class NoLimitWaitsTest {

    static final List<Duration> NO_LIMITS =
            List.of(Duration.ofSeconds(Long.MAX_VALUE), ChronoUnit.FOREVER.getDuration());

    @TempDir Path dir;

    @Test
    void aDrainTurnWaitedForWithoutLimitIsTaken() {
        try (EventStateLog<Long, Long> log =
                EventStateLog.TYPE.create(
                        dir.resolve("events.cxc"),
                        new EventStateLog.Settings<>(8, FixedCodec.INT64, FixedCodec.INT64, 0L))) {
            log.emit(5L);
            for (Duration forever : NO_LIMITS) {
                log.emit(1L);
                assertThat(log.drainAndFold((s, e) -> s + e, forever)).isPositive();
            }
            assertThat(log.readCurrent()).isEqualTo(7L);
        }
    }

    @Test
    void aRegionLockWaitedForWithoutLimitIsTaken() {
        Path path = dir.resolve("heap.cxc");
        SharedRegion.TYPE.create(path, new SharedRegion.Settings(8192)).close();
        for (Duration forever : NO_LIMITS) {
            try (SharedRegion region =
                    SharedRegion.open(
                            path, new SharedRegion.Settings(8192).withLockTimeout(forever))) {
                long handle =
                        region.allocate(1000); // above the cache's largest block: the lock's path
                region.free(handle);
                assertThat(region.lockTimeout()).isEqualTo(forever);
            }
        }
    }

    @Test
    void aFileOpenedWithoutAnInitialisationLimitOpens() {
        Path path = dir.resolve("election.cxc");
        SharedLeaderElection.TYPE.create(path, SharedLeaderElection.Settings.DEFAULTS).close();
        for (Duration forever : NO_LIMITS) {
            try (SharedLeaderElection election =
                    SharedLeaderElection.TYPE.open(
                            path,
                            SharedLeaderElection.Settings.DEFAULTS,
                            CxcFileOptions.defaults().withInitialisationTimeout(forever))) {
                assertThat(election.isClosed()).isFalse();
            }
        }
    }
}
