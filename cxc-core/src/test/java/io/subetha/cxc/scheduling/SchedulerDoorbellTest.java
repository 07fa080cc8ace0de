package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.DEFAULT_TIMETABLE_ENTRIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.wake.DoorbellDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker waits for a job asleep on the scheduler's doorbell: a rerun and a stopping pool ring it,
 * a retry's backoff ending wakes it, a wait ends at its timeout withdrawn, a close returns it; the
 * layout carries the doorbell region after the timetable.
 */
class SchedulerDoorbellTest {

    static final Duration STEP = Duration.ofSeconds(60);
    static final long PID = ProcessHandle.current().pid();

    @TempDir Path dir;
    Path path;
    BackgroundScheduler<Long, Long> s;

    @BeforeEach
    void create() {
        path = dir.resolve("jobs.cxc");
        s = BackgroundScheduler.TYPE.create(path, settings(RetryPolicy.DEFAULT));
    }

    static BackgroundScheduler.Settings<Long, Long> settings(RetryPolicy retry) {
        return new BackgroundScheduler.Settings<>(16, FixedCodec.INT64, FixedCodec.INT64)
                .withRetry(retry);
    }

    @AfterEach
    void close() {
        s.close();
    }

    int sleepingWorkers() {
        return (Integer) s.describe().get("sleepingWorkers");
    }

    CompletableFuture<Optional<Job<Long>>> asleep(BackgroundScheduler<Long, Long> on) {
        CompletableFuture<Optional<Job<Long>>> waiting =
                CompletableFuture.supplyAsync(() -> on.receive(PID, Duration.ofHours(1)));
        await().atMost(STEP).until(() -> sleepingWorkers() == 1);
        return waiting;
    }

    @Test
    void aSleepingWorkerIsWokenByASubmitOfAnotherHandle() {
        CompletableFuture<Optional<Job<Long>>> waiting = asleep(s);
        try (BackgroundScheduler<Long, Long> other =
                BackgroundScheduler.open(path, settings(RetryPolicy.DEFAULT))) {
            other.submit(3L);
        }
        assertThat(waiting).succeedsWithin(STEP).satisfies(job -> assertThat(job).isPresent());
        assertThat(waiting.join().orElseThrow().payload()).isEqualTo(3L);
    }

    @Test
    void aRerunWakesASleepingWorker() {
        BackgroundScheduler<Long, Long> once =
                BackgroundScheduler.open(path, settings(RetryPolicy.fixed(1, Duration.ZERO)));
        try (once) {
            long id = once.submit(4L);
            assertThat(once.fail(once.receive(PID).orElseThrow(), new IllegalStateException()))
                    .isEqualTo(FailOutcome.FAILED);
            CompletableFuture<Optional<Job<Long>>> waiting = asleep(s);

            assertThat(s.rerun(id)).isTrue();

            assertThat(waiting).succeedsWithin(STEP);
            assertThat(waiting.join().orElseThrow().id()).isEqualTo(id);
        }
    }

    @Test
    void aSleepingWorkerWakesWhenARetrysBackoffEnds() {
        BackgroundScheduler<Long, Long> retrying =
                BackgroundScheduler.open(
                        path, settings(RetryPolicy.fixed(3, Duration.ofMillis(300))));
        try (retrying) {
            long id = retrying.submit(5L);
            assertThat(retrying.fail(retrying.receive(PID).orElseThrow(), new Exception()))
                    .isEqualTo(FailOutcome.RETRYING);

            Optional<Job<Long>> again = s.receive(PID, STEP);

            assertThat(again).isPresent();
            assertThat(again.get().id()).isEqualTo(id);
            assertThat(again.get().attempt()).isEqualTo(2);
        }
    }

    @Test
    void aWaitEndsAtItsTimeoutWithdrawn() {
        assertThat(s.receive(PID, Duration.ofMillis(50))).isEmpty();
        assertThat(sleepingWorkers()).isZero();
        assertThatThrownBy(() -> s.receive(PID + 1, Duration.ofMillis(50)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a worker receives jobs only for itself");
    }

    @Test
    void aStoppingPoolGivesUpItsWaitOnceWoken() {
        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Optional<Job<Long>>> waiting =
                CompletableFuture.supplyAsync(() -> s.receive(PID, Duration.ofHours(1), stop::get));
        await().atMost(STEP).until(() -> sleepingWorkers() == 1);

        stop.set(true);
        s.wakeWorkers();

        assertThat(waiting).succeedsWithin(STEP).isEqualTo(Optional.empty());
    }

    @Test
    void aCloseReturnsItsSleepingWorkers() {
        BackgroundScheduler<Long, Long> closing =
                BackgroundScheduler.open(path, settings(RetryPolicy.DEFAULT));
        CompletableFuture<Optional<Job<Long>>> waiting = asleep(closing);

        closing.close();

        assertThat(waiting).succeedsWithin(STEP).isEqualTo(Optional.empty());
        assertThatThrownBy(() -> closing.receive(PID, STEP))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theDoorbellRegionFollowsTheTimetable() {
        int stride = BackgroundSchedulerDescriptor.slotStride(8, 8);
        int entriesEnd =
                BackgroundSchedulerDescriptor.timetableOffset(16, stride)
                        + DEFAULT_TIMETABLE_ENTRIES * stride;
        int doorbell =
                BackgroundSchedulerDescriptor.doorbellOffset(16, DEFAULT_TIMETABLE_ENTRIES, stride);
        assertThat(BackgroundSchedulerDescriptor.LAYOUT_VERSION).isEqualTo(5);
        assertThat(doorbell % 64).isZero();
        assertThat(doorbell).isBetween(entriesEnd, entriesEnd + 63);
        assertThat(
                        BackgroundSchedulerDescriptor.BODY_LAYOUT.bodyLength(
                                16 + DEFAULT_TIMETABLE_ENTRIES, stride))
                .isBetween(
                        (long) doorbell + DoorbellDescriptor.LENGTH,
                        doorbell + 127L + DoorbellDescriptor.LENGTH);
    }

    @Test
    void aFileOfTheLayoutBeforeTheDoorbellIsRefusedWithWhatToDo() throws Exception {
        s.close();
        try (FileChannel channel =
                FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer header =
                    ByteBuffer.allocate(HeaderDescriptor.HEADER_LENGTH)
                            .order(ByteOrder.LITTLE_ENDIAN);
            channel.read(header, 0);
            header.putInt(HeaderDescriptor.LAYOUT_VERSION_OFFSET, 3);
            header.putInt(HeaderDescriptor.CHECKSUM_OFFSET, FileHeader.checksumOf(header));
            channel.write(header.position(0), 0);
        }
        assertThatThrownBy(() -> BackgroundScheduler.open(path, settings(RetryPolicy.DEFAULT)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("layout version 3, but this CXC reads version 5")
                .hasMessageContaining("older CXC release")
                .hasMessageContaining("delete it");
    }
}
