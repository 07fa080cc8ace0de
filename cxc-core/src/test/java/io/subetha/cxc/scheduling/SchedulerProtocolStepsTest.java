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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slot and record states planted in the file word by word, and what submit, receive, complete and
 * collect make of each: a head held by a submitter still writing, slots the head steps over, a
 * requeue hint left high, refused jobs and results, a lap tag wrapping at 2^24, every participant
 * record held, and the heartbeat cadence (a beat at most every grace / 8); at the head and tail of
 * a ring with laps behind it, the head stepped over a dead submitter's slot by the next lap's
 * submit, a tail reservation helped, a receive meeting a lap of running jobs, what a look behind
 * the head must not take, the word a completer holds while it writes; and a worker whose look
 * behind the head found nothing still receiving a job re-queued afterwards ahead of later jobs.
 */
class SchedulerProtocolStepsTest {

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
            assertThat(s.collector().take(5)).extracting(JobResult::result).containsExactly("yz");
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
            List<JobResult<Long>> two = s.collector().take(2);
            assertThat(two).extracting(JobResult::jobId).containsExactly(2L, 0L);
            assertThat(two).extracting(JobResult::completion).containsExactly(0L, 1L);
            assertThat(s.collector().take(1)).extracting(JobResult::result).containsExactly(20L);
            assertThat(s.counts().collected()).isEqualTo(3);
            assertThat(s.opCounts()).containsEntry("collect", 2L).containsEntry("complete", 3L);
        }
    }

    @Test
    void onlyAReceiveThatReturnsAJobCountsAsAReceive() {
        try (var s = scheduler(dir.resolve("jobs.cxc"), 4, Duration.ofDays(1))) {
            for (int i = 0; i < 5; i++) {
                assertThat(s.receive(PID)).isEmpty(); // an idle worker's polls
            }
            s.submit(1L);
            s.receive(PID).orElseThrow();
            assertThat(s.opCounts()).containsEntry("recv", 1L);
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
                List<JobResult<Long>> results = s.collector().take(1);
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

    /** A ring of four slots, laps run through it, its words planted. */
    @Nested
    class AtTheHeadAndTail {

        static final long DEAD_PID = Pids.MAX_PID - 1;
        static final long PID = Pids.current();
        static final int CAPACITY = 4;
        static final int STRIDE = slotStride(8, 8);

        @TempDir Path dir;
        Path path;
        final List<BackgroundScheduler<Long, Long>> handles = new ArrayList<>();
        AtomicBuffer raw;

        @BeforeEach
        void open() {
            path = dir.resolve("jobs.cxc");
            handle(Duration.ofDays(1));
            raw = RawBody.of(path);
        }

        @AfterEach
        void close() {
            handles.forEach(BackgroundScheduler::close);
        }

        BackgroundScheduler<Long, Long> handle(Duration grace) {
            BackgroundScheduler<Long, Long> s =
                    handles.isEmpty()
                            ? BackgroundScheduler.TYPE.create(
                                    path,
                                    new BackgroundScheduler.Settings<>(
                                            CAPACITY, FixedCodec.INT64, FixedCodec.INT64, grace),
                                    CxcFileOptions.defaults())
                            : BackgroundScheduler.open(
                                    path,
                                    new BackgroundScheduler.Settings<>(
                                            CAPACITY, FixedCodec.INT64, FixedCodec.INT64));
            handles.add(s);
            return s;
        }

        BackgroundScheduler<Long, Long> handle() {
            return handle(Duration.ofDays(1));
        }

        static int slot(long id) {
            return SLOTS_OFFSET + (int) (id % CAPACITY) * STRIDE;
        }

        int recordOf(Job<Long> job) {
            return participantOffset(participant(job.word));
        }

        void kill(int record) {
            long word = OwnerRecord.ownerWord(raw, record);
            raw.setLongVolatile(
                    record + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(DEAD_PID, OwnerRecord.key(word)));
        }

        /** Runs a whole lap through: ids 0..3 submitted, received, completed and collected. */
        void oneLap(BackgroundScheduler<Long, Long> s) {
            for (long i = 0; i < CAPACITY; i++) {
                s.submit(i);
                s.complete(s.receive(PID).orElseThrow(), i);
            }
            assertThat(s.collector().take(CAPACITY)).hasSize(CAPACITY);
        }

        @Test
        @Timeout(60)
        void theNextLapsSubmitStepsTheHeadOverADeadSubmittersSlotNoReceiveSteppedOver() {
            BackgroundScheduler<Long, Long> s = handles.get(0);
            // Position 0 abandoned by a scan (its submitter died mid-write); nothing received
            // since.
            raw.setLongVolatile(slot(0), pack(0, ABANDONED, 0, 0, 0));
            raw.setLongVolatile(TAIL_OFFSET, 1);
            assertThat(s.submit(1L)).isEqualTo(1);
            assertThat(s.submit(2L)).isEqualTo(2);
            assertThat(s.submit(3L)).isEqualTo(3);

            assertThat(s.submit(4L)).isEqualTo(4);

            assertThat(raw.getLongVolatile(HEAD_OFFSET)).isEqualTo(1);
            List<Long> received = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                received.add(s.receive(PID).orElseThrow().payload());
            }
            assertThat(received).containsExactly(1L, 2L, 3L, 4L);
        }

        @Test
        @Timeout(60)
        void aSubmitHelpsTheTailPastASlotReservedByASubmitterKilledBeforeMovingIt() {
            BackgroundScheduler<Long, Long> s = handles.get(0);
            raw.setLongVolatile(slot(0), pack(0, WRITING, 9, 1, 0));

            assertThat(s.submit(5L)).isEqualTo(1);

            assertThat(raw.getLongVolatile(TAIL_OFFSET)).isEqualTo(2);
            assertThat(state(raw.getLongVolatile(slot(1)))).isEqualTo(QUEUED);
        }

        @Test
        @Timeout(60)
        void aReceiveMeetingALapOfRunningJobsAnswersNothingYet() {
            BackgroundScheduler<Long, Long> s = handles.get(0);
            for (long i = 0; i < CAPACITY; i++) {
                s.submit(i);
                assertThat(s.receive(PID).orElseThrow().id()).isEqualTo(i);
            }

            assertThat(s.receive(PID)).isEmpty();
            assertThat(s.trySubmit(9L)).isEqualTo(-1);
        }

        @Test
        void aLookBehindTheHeadTakesNeitherALiveWorkersJobNorTheNextLapsJob() {
            BackgroundScheduler<Long, Long> s = handles.get(0);
            BackgroundScheduler<Long, Long> live = handle();
            s.submit(0L);
            s.complete(s.receive(PID).orElseThrow(), 0L);
            assertThat(s.collector().take(1)).hasSize(1); // slot 0 free for lap 1
            s.submit(1L);
            Job<Long> running = live.receive(PID).orElseThrow(); // id 1, behind the head
            s.submit(2L);
            s.submit(3L);
            s.submit(4L); // id 4: slot 0, lap 1, behind the head by slot
            raw.setLongVolatile(REQUEUED_HINT_OFFSET, 1); // left high by a crash

            Job<Long> next = s.receive(PID).orElseThrow();

            assertThat(next.id()).isEqualTo(2);
            assertThat(raw.getLongVolatile(slot(1))).isEqualTo(running.word);
            assertThat(live.complete(running, 1L)).isTrue();
            assertThat(s.receive(PID).orElseThrow().id()).isEqualTo(3);
            assertThat(s.receive(PID).orElseThrow().id()).isEqualTo(4);
        }

        @Test
        void aCompleterHoldsItsJobsOwnWordMarkedCompletingWhileItWritesTheResult() {
            Path watched = dir.resolve("watched.cxc");
            long[] seen = new long[1];
            AtomicBuffer[] watchedRaw = new AtomicBuffer[1];
            FixedCodec<Long> watching =
                    new FixedCodec<>() {
                        @Override
                        public int size() {
                            return 8;
                        }

                        @Override
                        public void write(AtomicBuffer buffer, int offset, Long value) {
                            if (watchedRaw[0] != null) {
                                seen[0] = watchedRaw[0].getLongVolatile(slot(0));
                            }
                            buffer.setLongPlain(offset, value);
                        }

                        @Override
                        public Long read(AtomicBuffer buffer, int offset) {
                            return buffer.getLongPlain(offset);
                        }

                        @Override
                        public long fingerprint() {
                            return 0x57A7C4L;
                        }

                        @Override
                        public String describe() {
                            return "watching";
                        }
                    };
            try (BackgroundScheduler<Long, Long> s =
                    BackgroundScheduler.TYPE.create(
                            watched,
                            new BackgroundScheduler.Settings<>(
                                    CAPACITY, FixedCodec.INT64, watching, Duration.ofDays(1)),
                            CxcFileOptions.defaults())) {
                watchedRaw[0] = RawBody.of(watched);
                s.submit(1L);
                Job<Long> job = s.receive(PID).orElseThrow();

                assertThat(s.complete(job, 2L)).isTrue();

                long expected = (job.word & ~(7L << 24)) | ((long) COMPLETING << 24);
                assertThat(state(seen[0])).isEqualTo(COMPLETING);
                assertThat(seen[0]).isEqualTo(expected);
                assertThat(participant(seen[0])).isEqualTo(participant(job.word));
                assertThat(generation(seen[0])).isEqualTo(generation(job.word));
                assertThat(attempt(seen[0])).isEqualTo(attempt(job.word));
                assertThat(state(watchedRaw[0].getLongVolatile(slot(0)))).isEqualTo(DONE);
            }
        }
    }

    /**
     * A worker whose look behind the head found nothing (the re-queued-jobs hint left high, as a
     * crash leaves it) still receives a job another handle's watchdog re-queues afterwards ahead of
     * later jobs: it looks again once the hint moves, not only after its own next scan.
     */
    @Nested
    class AfterAnEmptyLookBehindTheHead {

        static final long DEAD_PID = Pids.MAX_PID - 1;
        static final long PID = Pids.current();
        static final int CAPACITY = 8;

        @TempDir Path dir;
        Path path;
        final List<BackgroundScheduler<Long, Long>> handles = new ArrayList<>();
        AtomicBuffer raw;

        @BeforeEach
        void open() {
            path = dir.resolve("jobs.cxc");
            handles.add(
                    BackgroundScheduler.TYPE.create(
                            path,
                            new BackgroundScheduler.Settings<>(
                                    CAPACITY,
                                    FixedCodec.INT64,
                                    FixedCodec.INT64,
                                    Duration.ofDays(1)),
                            CxcFileOptions.defaults()));
            raw = RawBody.of(path);
        }

        @AfterEach
        void close() {
            handles.forEach(BackgroundScheduler::close);
        }

        BackgroundScheduler<Long, Long> handle() {
            BackgroundScheduler<Long, Long> s =
                    BackgroundScheduler.open(
                            path,
                            new BackgroundScheduler.Settings<>(
                                    CAPACITY, FixedCodec.INT64, FixedCodec.INT64));
            handles.add(s);
            return s;
        }

        void kill(Job<Long> job) {
            int record = participantOffset(participant(job.word));
            long word = OwnerRecord.ownerWord(raw, record);
            raw.setLongVolatile(
                    record + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(DEAD_PID, OwnerRecord.key(word)));
        }

        @Test
        void aJobAnotherHandleRequeuesAfterAnEmptyLookIsReceivedAheadOfLaterJobs() {
            BackgroundScheduler<Long, Long> worker = handles.get(0);
            BackgroundScheduler<Long, Long> doomed = handle();
            BackgroundScheduler<Long, Long> watchdog = handle();
            raw.setLongVolatile(REQUEUED_HINT_OFFSET, 1); // left high by a crash
            assertThat(worker.receive(PID)).isEmpty(); // its look behind the head finds nothing
            worker.submit(40L); // id 0
            Job<Long> lost = doomed.receive(PID).orElseThrow();
            kill(lost);
            assertThat(watchdog.watchdogScan().requeuedJobIds()).containsExactly(0L);
            assertThat(raw.getLongVolatile(REQUEUED_HINT_OFFSET)).isEqualTo(2);
            worker.submit(41L); // id 1

            Job<Long> next = worker.receive(PID).orElseThrow();

            assertThat(next.id()).isZero();
            assertThat(next.attempt()).isEqualTo(2);
            assertThat(next.payload()).isEqualTo(40L);
            assertThat(worker.receive(PID).orElseThrow().id()).isEqualTo(1);
        }

        @Test
        void aWorkerWhoseLookFoundNothingReceivesAtTheHeadWhileTheHintStaysPut() {
            BackgroundScheduler<Long, Long> worker = handles.get(0);
            raw.setLongVolatile(REQUEUED_HINT_OFFSET, 1);
            assertThat(worker.receive(PID)).isEmpty();
            worker.submit(50L);
            worker.submit(51L);

            assertThat(worker.receive(PID).orElseThrow().payload()).isEqualTo(50L);
            assertThat(worker.receive(PID).orElseThrow().payload()).isEqualTo(51L);

            assertThat(raw.getLongVolatile(REQUEUED_HINT_OFFSET)).isEqualTo(1);
        }
    }
}
