package io.subetha.cxc.participant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.FanoutClaim;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handle that judges the participants is alive: its own record is beaten before it judges, so a
 * handle whose thread paused past the grace (a GC, a loaded machine) does not take back the jobs or
 * items it holds itself on its next operation and hand them out a second time, while nobody else
 * has judged it.
 */
class OwnRecordNotJudgedSilentTest {

    static final Duration GRACE = Duration.ofMillis(100);
    static final long PID = ProcessHandle.current().pid();

    @TempDir Path dir;

    @Test
    void aSchedulerHandlePausedPastTheGraceKeepsItsRunningJob() {
        try (BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        dir.resolve("jobs.cxc"),
                        new BackgroundScheduler.Settings<>(
                                8, FixedCodec.INT64, FixedCodec.INT64, GRACE),
                        CxcFileOptions.defaults())) {
            s.submit(1L);
            Job<Long> running = s.receive(PID).orElseThrow();
            pastTheGrace();

            Optional<Job<Long>> next = s.receive(PID); // scans: more than its interval has passed

            assertThat(next).isEmpty();
            assertThat(s.complete(running, 2L)).isTrue();
        }
    }

    @Test
    void aFanoutHandlePausedPastTheGraceKeepsItsClaim() {
        try (PriorityFanout<Long> f =
                PriorityFanout.TYPE.create(
                        dir.resolve("items.cxc"),
                        new PriorityFanout.Settings<>(8, FixedCodec.INT64, GRACE),
                        CxcFileOptions.defaults())) {
            f.submit(3, 1L);
            FanoutClaim<Long> claim = f.claimHighest(1);
            assertThat(claim.items()).containsExactly(1L);
            pastTheGrace();

            assertThat(f.claimHighest(1).items()).isEmpty(); // scans first
            assertThat(claim.ack()).isTrue();
        }
    }

    /** Lets three graces pass: the condition under test is time itself. */
    private static void pastTheGrace() {
        long from = System.nanoTime();
        await().pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10))
                .atMost(Duration.ofSeconds(10))
                .until(() -> System.nanoTime() - from > 3 * GRACE.toNanos());
    }
}
