package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A closed handle takes part no more: what would claim it a participant record again is refused, so
 * no record is left held by a handle nobody will close, and a worker pool on it ends.
 */
class SchedulerClosedHandleTest {

    static final long PID = Pids.current();

    @TempDir Path dir;

    @Test
    void aClosedHandleRefusesToSubmitOrReceiveAndHoldsNoRecord() {
        Path path = dir.resolve("jobs.cxc");
        BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                8, FixedCodec.INT64, FixedCodec.INT64, Duration.ofDays(1)),
                        CxcFileOptions.defaults());
        try (BackgroundScheduler<Long, Long> other =
                BackgroundScheduler.open(
                        path,
                        new BackgroundScheduler.Settings<>(
                                8, FixedCodec.INT64, FixedCodec.INT64))) {
            s.submit(1L);
            Job<Long> job = s.receive(PID).orElseThrow();
            s.close();
            AtomicBuffer raw = RawBody.of(path);
            assertThat(heldRecords(raw)).isZero();

            assertThatThrownBy(() -> s.receive(PID))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(path.toString())
                    .hasMessageContaining("is closed")
                    .hasMessageContaining("open a new one");
            assertThatThrownBy(() -> s.submit(2L)).isInstanceOf(IllegalStateException.class);

            assertThat(heldRecords(raw)).isZero();
            Job<Long> again = other.receive(PID).orElseThrow(); // close re-queued it
            assertThat(again.id()).isEqualTo(job.id());
            assertThat(again.attempt()).isEqualTo(2);
        }
    }

    static int heldRecords(AtomicBuffer raw) {
        int held = 0;
        for (int r = 0; r < MAX_PARTICIPANTS; r++) {
            if (OwnerRecord.pid(OwnerRecord.ownerWord(raw, participantOffset(r))) != 0) {
                held++;
            }
        }
        return held;
    }
}
