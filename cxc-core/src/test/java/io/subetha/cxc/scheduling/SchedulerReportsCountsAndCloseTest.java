package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the third pass's mutation run left unasserted: a report is empty only with nothing in it,
 * every op and every slot state is counted, and closing a handle whose record was taken over (or
 * that never took part, or twice) touches nothing.
 */
class SchedulerReportsCountsAndCloseTest {

    static final long PID = Pids.current();

    @TempDir Path dir;

    @Test
    void aReportIsEmptyOnlyWithNothingInIt() {
        assertThat(new ReclaimReport(List.of(), 0, 0).isEmpty()).isTrue();
        assertThat(new ReclaimReport(List.of(3L), 0, 0).isEmpty()).isFalse();
        assertThat(new ReclaimReport(List.of(), 1, 0).isEmpty()).isFalse();
        assertThat(new ReclaimReport(List.of(), 0, 1).isEmpty()).isFalse();
    }

    @Test
    void everyOpAndEverySlotStateIsCounted() {
        try (BackgroundScheduler<Long, Long> s =
                BackgroundScheduler.TYPE.create(
                        dir.resolve("j.cxc"),
                        new BackgroundScheduler.Settings<>(
                                4, FixedCodec.INT64, FixedCodec.INT64))) {
            s.submit(1L);
            s.submit(2L);
            s.submit(3L);
            Job<Long> first = s.receive(PID).orElseThrow();
            assertThat(s.counts()).isEqualTo(new BackgroundScheduler.Counts(2, 1, 0, 0, 0));
            s.complete(first, 10L);
            s.receive(PID).orElseThrow();
            assertThat(s.counts()).isEqualTo(new BackgroundScheduler.Counts(1, 1, 1, 0, 0));
            assertThat(s.describe())
                    .containsEntry("queued", 1L)
                    .containsEntry("running", 1L)
                    .containsEntry("done", 1L);
            assertThat(s.opCounts())
                    .containsEntry("submit", 3L)
                    .containsEntry("recv", 2L)
                    .containsEntry("complete", 1L);
        }
    }

    @Test
    void closingAHandleWhoseRecordWasTakenOverTouchesNothing() {
        Path path = dir.resolve("j.cxc");
        try (BackgroundScheduler<Long, Long> owner =
                BackgroundScheduler.TYPE.create(
                        path,
                        new BackgroundScheduler.Settings<>(
                                4, FixedCodec.INT64, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            owner.submit(1L); // record 0
            var worker =
                    BackgroundScheduler.open(
                            path,
                            new BackgroundScheduler.Settings<>(
                                    4, FixedCodec.INT64, FixedCodec.INT64));
            Job<Long> job = worker.receive(PID).orElseThrow(); // record 1
            int record = participantOffset(participant(job.word));
            long mine = OwnerRecord.ownerWord(raw, record);
            // Judged silent and taken over: another process now holds the record.
            long other = OwnerRecord.ownerWord(1, OwnerRecord.nextGeneration(mine));
            raw.setLongVolatile(record + OwnerRecord.OWNER_WORD_OFFSET, other);

            worker.close();
            worker.close(); // twice: nothing more

            assertThat(OwnerRecord.ownerWord(raw, record)).isEqualTo(other);
            assertThat(owner.counts().running()).isEqualTo(1);
            assertThat(owner.counts().reclaimed()).isZero();
            var never =
                    BackgroundScheduler.open(
                            path,
                            new BackgroundScheduler.Settings<>(
                                    4, FixedCodec.INT64, FixedCodec.INT64));
            never.close(); // never took part: no record to free
            assertThat(owner.counts().running()).isEqualTo(1);
        }
    }
}
