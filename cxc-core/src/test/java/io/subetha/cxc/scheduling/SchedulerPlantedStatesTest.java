package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slot and record states planted in the file word by word, and what submit, receive, complete and
 * collect make of each: a head held by a submitter still writing, slots the head steps over, a
 * requeue hint left high, refused jobs and results, a lap tag wrapping at 2^24, every participant
 * record held, and the heartbeat cadence (a beat at most every grace / 8).
 */
class SchedulerPlantedStatesTest {

    static final long PID = Pids.current();
    static final int STRIDE = slotStride(8, 8);

    @TempDir Path dir;

    BackgroundScheduler<Long, Long> scheduler(Path path, int capacity, Duration grace) {
        return BackgroundScheduler.TYPE.create(
                path,
                new BackgroundScheduler.Settings<>(
                        capacity, FixedCodec.INT64, FixedCodec.INT64, grace),
                CxcFileOptions.defaults());
    }

    static int slot(long id, int capacity) {
        return SLOTS_OFFSET + (int) (id % capacity) * STRIDE;
    }

    @Test
    void aHeadStillBeingWrittenIsNoJobYetAndSlotsThatAreNoJobAreSteppedOver() {
        Path path = dir.resolve("jobs.cxc");
        try (var s = scheduler(path, 4, Duration.ofDays(1))) {
            AtomicBuffer raw = RawBody.of(path);
            // Job 0's submitter claimed the slot and is still writing it.
            raw.setLongVolatile(slot(0, 4), pack(0, WRITING, 0, 1, 0));
            raw.setLongVolatile(TAIL_OFFSET, 1);
            assertThat(s.receive(PID)).isEmpty();
            assertThat(s.counts().queued()).isEqualTo(1);
            assertThat(raw.getLongVolatile(HEAD_OFFSET)).isZero();

            // Its write given up (ABANDONED), and job 1 queued behind it: the head steps over.
            raw.setLongVolatile(slot(0, 4), pack(0, ABANDONED, 0, 0, 0));
            assertThat(s.submit(11L)).isEqualTo(1);
            Job<Long> job = s.receive(PID).orElseThrow();
            assertThat(job.id()).isEqualTo(1);
            assertThat(job.payload()).isEqualTo(11L);
            assertThat(job.toString()).isEqualTo("job 1 (attempt 1): 11");
            assertThat(raw.getLongVolatile(HEAD_OFFSET)).isEqualTo(2);
            assertThat(s.counts().running()).isEqualTo(1);
            assertThat(s.counts().queued()).isZero();
            assertThat(s.receive(PID)).isEmpty();
        }
    }

    @Test
    void aRequeueHintLeftHighByACrashDoesNotHideTheQueue() {
        Path path = dir.resolve("jobs.cxc");
        try (var s = scheduler(path, 4, Duration.ofDays(1))) {
            AtomicBuffer raw = RawBody.of(path);
            raw.setLongVolatile(REQUEUED_HINT_OFFSET, 1);
            s.submit(1L);
            s.submit(2L);
            assertThat(s.receive(PID).orElseThrow().payload()).isEqualTo(1L);
            assertThat(s.receive(PID).orElseThrow().payload()).isEqualTo(2L);
            assertThat(raw.getLongVolatile(REQUEUED_HINT_OFFSET)).isEqualTo(1);
            assertThat(s.watchdogScan().isEmpty()).isTrue();
        }
    }

    @Test
    void aRequeuedJobIsReceivedBeforeTheQueueAndTheHintFallsBack() {
        Path path = dir.resolve("jobs.cxc");
        try (var s = scheduler(path, 4, Duration.ofDays(1))) {
            AtomicBuffer raw = RawBody.of(path);
            s.submit(1L);
            s.submit(2L);
            s.submit(3L);
            Job<Long> first = s.receive(PID).orElseThrow();
            Job<Long> second = s.receive(PID).orElseThrow();
            // Both put back by a watchdog (attempt kept), the hint raised for each.
            raw.setLongVolatile(slot(0, 4), pack(0, QUEUED, 0, 0, 1));
            raw.setLongVolatile(slot(1, 4), pack(0, QUEUED, 0, 0, 1));
            raw.setLongVolatile(REQUEUED_HINT_OFFSET, 2);
            Job<Long> again = s.receive(PID).orElseThrow();
            assertThat(again.id()).isEqualTo(first.id());
            assertThat(again.attempt()).isEqualTo(2);
            assertThat(s.receive(PID).orElseThrow().id()).isEqualTo(second.id());
            assertThat(raw.getLongVolatile(REQUEUED_HINT_OFFSET)).isZero();
            assertThat(s.receive(PID).orElseThrow().payload()).isEqualTo(3L);
            assertThat(s.complete(first, 5L)).isFalse(); // the first attempt is fenced off
            assertThat(s.complete(again, 6L)).isTrue();
            assertThat(s.collector().result(0)).contains(6L);
            assertThat(s.collector().result(4)).isEmpty(); // the next lap's job 4: not done
            assertThat(s.collector().result(1)).isEmpty(); // running
        }
    }

    @Test
    void aRefusedJobOrResultLeavesTheSchedulerUsable() {
        Path path = dir.resolve("s.cxc");
        var codec = FixedCodec.string(2);
        try (BackgroundScheduler<String, String> s =
                BackgroundScheduler.TYPE.create(
                        path, new BackgroundScheduler.Settings<>(2, codec, codec))) {
            assertThatThrownBy(() -> s.submit("abc")).isInstanceOf(IllegalArgumentException.class);
            assertThat(state(RawBody.of(path).getLongVolatile(SLOTS_OFFSET))).isEqualTo(ABANDONED);
            assertThatThrownBy(() -> s.submit(null)).hasMessage("job must not be null");
            assertThat(s.submit("ok")).isEqualTo(1);
            Job<String> job = s.receive(PID).orElseThrow();
            assertThat(job.id()).isEqualTo(1);
            assertThatThrownBy(() -> s.complete(job, "xyz"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(s.counts().running()).isEqualTo(1);
            assertThatThrownBy(() -> s.complete(job, null)).hasMessage("result must not be null");
            assertThat(s.complete(job, "yz")).isTrue();
            // The abandoned slot is the next lap's: stepped over by the submit after a collect.
            assertThat(s.collector().poll(5)).extracting(JobResult::result).containsExactly("yz");
            assertThat(s.submit("a")).isEqualTo(2);
            assertThat(s.submit("b")).isEqualTo(3);
            assertThat(s.trySubmit("c")).isEqualTo(-1);
            assertThat(s.describe()).containsEntry("queued", 2L).containsEntry("collected", 1L);
        }
    }

    @Test
    void collectingReturnsAtMostMaxInCompletionOrder() {
        try (var s = scheduler(dir.resolve("jobs.cxc"), 4, Duration.ofDays(1))) {
            for (long j = 0; j < 3; j++) {
                s.submit(j);
            }
            Job<Long> a = s.receive(PID).orElseThrow();
            Job<Long> b = s.receive(PID).orElseThrow();
            Job<Long> c = s.receive(PID).orElseThrow();
            s.complete(c, 30L);
            s.complete(a, 10L);
            s.complete(b, 20L);
            List<JobResult<Long>> two = s.collector().poll(2);
            assertThat(two).extracting(JobResult::jobId).containsExactly(2L, 0L);
            assertThat(two).extracting(JobResult::completion).containsExactly(0L, 1L);
            assertThat(s.collector().poll(1)).extracting(JobResult::result).containsExactly(20L);
            assertThat(s.counts().collected()).isEqualTo(3);
            assertThat(s.opCounts()).containsEntry("collect", 2L).containsEntry("complete", 3L);
        }
    }

    @Test
    void jobIdsGoOnAcrossTheWrapOfTheLapTag() {
        Path path = dir.resolve("wrap.cxc");
        try (var s = scheduler(path, 1, Duration.ofDays(1))) {
            AtomicBuffer raw = RawBody.of(path);
            long last = (1L << 24) - 1; // the last lap whose tag is not 0 again
            raw.setLongVolatile(TAIL_OFFSET, last);
            raw.setLongVolatile(HEAD_OFFSET, last);
            raw.setLongVolatile(SLOTS_OFFSET, pack(last, FREE, 0, 0, 0));
            for (long id = last; id <= last + 1; id++) {
                assertThat(s.submit(id)).isEqualTo(id);
                Job<Long> job = s.receive(PID).orElseThrow();
                assertThat(job.id()).isEqualTo(id);
                assertThat(s.complete(job, id * 2)).isTrue();
                assertThat(s.collector().result(id)).contains(id * 2);
                List<JobResult<Long>> results = s.collector().poll(1);
                assertThat(results).extracting(JobResult::jobId).containsExactly(id);
                assertThat(results).extracting(JobResult::result).containsExactly(id * 2);
            }
            assertThat(lapOf(raw.getLongVolatile(SLOTS_OFFSET))).isEqualTo(1);
        }
    }

    @Test
    void everyParticipantRecordHeldByALiveProcessIsACapacityErrorNamingThem() {
        Path path = dir.resolve("jobs.cxc");
        try (var s = scheduler(path, 2, Duration.ofDays(1))) {
            AtomicBuffer raw = RawBody.of(path);
            for (int r = 0; r < MAX_PARTICIPANTS; r++) {
                // Init never dies: held by a live process, never freed by a scan.
                raw.setLongVolatile(
                        participantOffset(r) + OwnerRecord.OWNER_WORD_OFFSET,
                        OwnerRecord.ownerWord(1, 1));
            }
            assertThatThrownBy(() -> s.submit(1L))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining(
                            "has no free participant record: all 64 are held by live handles");
            // One freed: the handle claims it.
            raw.setLongVolatile(
                    participantOffset(63) + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(0, 1));
            assertThat(s.submit(1L)).isZero();
            assertThat(OwnerRecord.ownerWord(raw, participantOffset(63)))
                    .isEqualTo(OwnerRecord.ownerWord(PID, 2));
        }
    }

    @Test
    void aHandleBeatsAtMostEveryGraceOverEightAndOnAskingAtOnce() {
        Path quick = dir.resolve("quick.cxc");
        try (var s = scheduler(quick, 4, Duration.ofNanos(1))) {
            AtomicBuffer raw = RawBody.of(quick);
            s.submit(1L); // claims record 0
            int record = participantOffset(0);
            long planted = OwnerRecord.heartbeat(raw, record) - 1;
            raw.setLongVolatile(record + OwnerRecord.HEARTBEAT_OFFSET, planted);
            s.submit(2L);
            assertThat(OwnerRecord.heartbeat(raw, record)).isGreaterThan(planted);
        }
        Path slow = dir.resolve("slow.cxc");
        try (var s = scheduler(slow, 4, Duration.ofDays(1))) {
            AtomicBuffer raw = RawBody.of(slow);
            s.submit(1L);
            int record = participantOffset(0);
            long planted = OwnerRecord.heartbeat(raw, record) - 1;
            raw.setLongVolatile(record + OwnerRecord.HEARTBEAT_OFFSET, planted);
            s.submit(2L);
            Job<Long> job = s.receive(PID).orElseThrow();
            s.complete(job, 1L);
            assertThat(OwnerRecord.heartbeat(raw, record)).isEqualTo(planted); // due in hours
            s.heartbeat();
            assertThat(OwnerRecord.heartbeat(raw, record)).isGreaterThan(planted);
        }
    }

    @Test
    void closingAWorkerCountsItsRequeuedJobsAndFreesItsRecord() {
        Path path = dir.resolve("jobs.cxc");
        try (var owner = scheduler(path, 4, Duration.ofDays(1))) {
            try (var worker =
                    BackgroundScheduler.open(
                            path,
                            new BackgroundScheduler.Settings<>(
                                    4, FixedCodec.INT64, FixedCodec.INT64))) {
                owner.submit(1L);
                owner.submit(2L);
                worker.receive(PID).orElseThrow();
                worker.receive(PID).orElseThrow();
            }
            assertThat(owner.counts().queued()).isEqualTo(2);
            assertThat(owner.counts().reclaimed()).isEqualTo(2);
            assertThat(owner.receive(PID).orElseThrow().attempt()).isEqualTo(2);
            AtomicBuffer raw = RawBody.of(path);
            assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, participantOffset(1))))
                    .isEqualTo(OwnerRecord.NO_OWNER);
            assertThatThrownBy(() -> owner.receive(0)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
