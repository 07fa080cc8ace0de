package io.subetha.cxc.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.JobEntry.State;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator lists of a scheduler: every job in the ring, oldest first, queued, running on
 * which PID and at which attempt, or done and not collected; collected ones are gone, also after
 * the ring wrapped; the listing counts no op.
 */
class SchedulerJobListingTest {

    private static final long PID = ProcessHandle.current().pid();

    @TempDir Path dir;

    @Test
    void queuedRunningAndDoneJobsAreListedOldestFirstAndCollectedOnesAreNot() {
        Path file = dir.resolve("jobs.cxc");
        BackgroundScheduler.Settings<Long, Long> settings =
                new BackgroundScheduler.Settings<>(4, FixedCodec.INT64, FixedCodec.INT64);
        try (BackgroundScheduler<Long, Long> s = BackgroundScheduler.TYPE.create(file, settings);
                BackgroundScheduler<Long, Long> observer =
                        BackgroundScheduler.open(file, settings)) {
            assertThat(observer.jobs()).isEmpty();
            // Wrap the ring once, so ids and slots differ.
            for (int i = 0; i < 3; i++) {
                s.submit(0L);
                s.complete(s.receive(PID).orElseThrow(), 0L);
            }
            assertThat(s.collector().take(10)).hasSize(3);

            long done = s.submit(1L);
            long running = s.submit(2L);
            long queued = s.submit(3L);
            s.complete(s.receive(PID).orElseThrow(), 1L);
            s.receive(PID).orElseThrow();
            Map<String, Long> before = observer.opCounts();

            assertThat(observer.jobs())
                    .containsExactly(
                            new JobEntry(done, State.DONE, 0, 1),
                            new JobEntry(running, State.RUNNING, PID, 1),
                            new JobEntry(queued, State.QUEUED, 0, 0));
            assertThat(observer.opCounts()).isEqualTo(before);

            s.collector().take(10);
            assertThat(observer.jobs()).extracting(JobEntry::id).containsExactly(running, queued);
        }
    }
}
