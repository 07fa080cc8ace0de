package io.subetha.cxc.eventlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.codec.FixedCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventStateLogTest {

    @TempDir Path dir;

    EventStateLog<Long, Long> sumLog(int capacity) {
        return EventStateLog.TYPE.create(
                dir.resolve("sum.cxc"),
                new EventStateLog.Settings<>(capacity, FixedCodec.INT64, FixedCodec.INT64, 0L));
    }

    @Test
    void emittedEventsAreFoldedInOrderIntoTheState() {
        try (var log = sumLog(8)) {
            for (long i = 1; i <= 5; i++) {
                log.emit(i);
            }
            assertThat(log.emittedCount()).isEqualTo(5);
            assertThat(log.foldedCount()).isZero();
            assertThat(log.readCurrent()).isZero();
            List<Long> seen = new ArrayList<>();
            assertThat(
                            log.drainAndFold(
                                    (s, e) -> {
                                        seen.add(e);
                                        return s + e;
                                    }))
                    .isEqualTo(5);
            assertThat(seen).containsExactly(1L, 2L, 3L, 4L, 5L);
            assertThat(log.readCurrent()).isEqualTo(15);
            assertThat(log.foldedCount()).isEqualTo(5);
            assertThat(log.drainAndFold(Long::sum)).isZero();
            assertThat(log.describe())
                    .containsEntry("emitted", 5L)
                    .containsEntry("folded", 5L)
                    .containsEntry("pending", 0L);
            assertThat(log.opCounts()).containsKeys("emit", "drain_fold", "read_current");
        }
    }

    @Test
    void fullIsAnAnswerNamingTheCapacityAndDrainingMakesRoomAcrossLaps() {
        try (var log = sumLog(4)) {
            long expected = 0;
            for (int lap = 0; lap < 5; lap++) {
                for (long i = 0; i < 4; i++) {
                    log.emit(i);
                    expected += i;
                }
                assertThat(log.tryEmit(9L)).isFalse();
                assertThatThrownBy(() -> log.emit(9L))
                        .isInstanceOf(CxcCapacityException.class)
                        .hasMessageContaining("4 events (its capacity)");
                assertThat(log.drainAndFold(Long::sum)).isEqualTo(4);
            }
            assertThat(log.readCurrent()).isEqualTo(expected);
        }
    }

    @Test
    void setStateReplacesTheStateAndKeepsThePosition() {
        try (var log = sumLog(4)) {
            log.emit(3L);
            log.drainAndFold(Long::sum);
            log.setState(100L);
            log.emit(1L);
            log.drainAndFold(Long::sum);
            assertThat(log.readCurrent()).isEqualTo(101);
            assertThat(log.foldedCount()).isEqualTo(2);
        }
    }

    @Test
    void aFoldThatThrowsPublishesNothing() {
        try (var log = sumLog(4)) {
            log.emit(1L);
            log.emit(2L);
            assertThatThrownBy(
                            () ->
                                    log.drainAndFold(
                                            (s, e) -> {
                                                if (e == 2) {
                                                    throw new IllegalStateException("boom");
                                                }
                                                return s + e;
                                            }))
                    .hasMessage("boom");
            assertThat(log.foldedCount()).isZero();
            assertThat(log.drainerPid()).isZero();
            assertThat(log.drainAndFold(Long::sum)).isEqualTo(2);
            assertThat(log.readCurrent()).isEqualTo(3);
        }
    }

    @Test
    void anEventTheCodecRefusesBecomesAGapAndTheLogGoesOn() {
        var codec = FixedCodec.string(4);
        try (EventStateLog<String, Long> log =
                EventStateLog.TYPE.create(
                        dir.resolve("s.cxc"),
                        new EventStateLog.Settings<>(4, codec, FixedCodec.INT64, 0L))) {
            log.emit("ab");
            assertThatThrownBy(() -> log.emit("too long"))
                    .isInstanceOf(IllegalArgumentException.class);
            log.emit("cde");
            assertThat(log.drainAndFold((s, e) -> s + e.length())).isEqualTo(2);
            assertThat(log.readCurrent()).isEqualTo(5);
            assertThat(log.gapCount()).isZero(); // marked by the emitter, not a dead reservation
            List<String> followed = new ArrayList<>();
            assertThat(log.reader(0).poll(followed::add)).isEqualTo(2);
            assertThat(followed).containsExactly("ab", "cde");
        }
    }

    @Test
    void readersFollowWithoutConsumingAndAreToldWhenTheyFellTooFarBehind() {
        try (var log = sumLog(4)) {
            EventLogReader<Long> early = log.reader();
            EventLogReader<Long> late = log.reader(0);
            List<Long> seen = new ArrayList<>();
            log.emit(1L);
            log.emit(2L);
            assertThat(early.poll(seen::add)).isEqualTo(2);
            assertThat(early.poll(seen::add)).isZero();
            assertThat(early.position()).isEqualTo(2);
            log.drainAndFold(Long::sum);
            log.emit(3L);
            log.emit(4L);
            assertThat(early.poll(seen::add, 1)).isEqualTo(1);
            assertThat(early.poll(seen::add, 5)).isEqualTo(1);
            log.drainAndFold(Long::sum);
            for (long i = 5; i <= 7; i++) {
                log.emit(i);
            }
            assertThat(seen).containsExactly(1L, 2L, 3L, 4L);
            assertThatThrownBy(() -> late.poll(seen::add))
                    .isInstanceOfSatisfying(
                            EventsOverwrittenException.class,
                            e -> {
                                assertThat(e.wanted()).isZero();
                                assertThat(e.firstAvailable()).isEqualTo(4);
                            })
                    .hasMessageContaining("seek(4)");
            late.seek(4);
            List<Long> rest = new ArrayList<>();
            assertThat(late.poll(rest::add)).isEqualTo(3);
            assertThat(rest).containsExactly(5L, 6L, 7L);
            assertThat(log.reader(100).poll(rest::add)).isZero();
        }
    }

    @Test
    void openChecksTheCodecsAndOpenOrCreateOpensTheSameLog() {
        Path path = dir.resolve("typed.cxc");
        try (EventStateLog<Long, Integer> created =
                EventStateLog.TYPE.create(
                        path,
                        new EventStateLog.Settings<>(16, FixedCodec.INT64, FixedCodec.INT32, 7))) {
            created.emit(5L);
        }
        try (var opened =
                EventStateLog.open(
                        path,
                        new EventStateLog.Settings<>(16, FixedCodec.INT64, FixedCodec.INT32, 0))) {
            assertThat(opened.capacity()).isEqualTo(16);
            assertThat(opened.drainAndFold((s, e) -> s + e.intValue())).isEqualTo(1);
            assertThat(opened.readCurrent()).isEqualTo(12);
        }
        try (var again =
                EventStateLog.openOrCreate(
                        path,
                        new EventStateLog.Settings<>(16, FixedCodec.INT64, FixedCodec.INT32, 0))) {
            assertThat(again.createdFile()).isFalse();
            assertThat(again.readCurrent()).isEqualTo(12);
        }
        assertThatThrownBy(
                        () ->
                                EventStateLog.open(
                                        path,
                                        new EventStateLog.Settings<>(
                                                16, FixedCodec.INT32, FixedCodec.INT32, 0)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("fingerprint");
    }

    @Test
    void badSettingsNameTheSettingAndItsLimit() {
        Path path = dir.resolve("bad.cxc");
        assertThatThrownBy(
                        () ->
                                EventStateLog.TYPE.create(
                                        path,
                                        new EventStateLog.Settings<>(
                                                0, FixedCodec.INT64, FixedCodec.INT64, 0L)))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("capacity"))
                .hasMessageContaining("1..1048576")
                .hasMessageContaining("got 0");
        assertThatThrownBy(
                        () ->
                                EventStateLog.TYPE.create(
                                        path,
                                        new EventStateLog.Settings<>(
                                                4, FixedCodec.bytes(70_000), FixedCodec.INT64, 0L)))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("events"))
                .hasMessageContaining("65536");
        assertThat(Files.exists(path)).isFalse();
        try (var log = sumLog(4)) {
            assertThatThrownBy(() -> log.emit(null)).hasMessageContaining("event must not be null");
            assertThatThrownBy(() -> log.reader(-1)).hasMessageContaining("fromSequence");
        }
    }

    @Test
    void anObserversViewWithoutCodecsDescribesButRefusesToFold() {
        Path path = dir.resolve("sum.cxc");
        sumLog(4).close();
        try (var view =
                EventStateLog.TYPE.observe(path, io.subetha.cxc.mmf.CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("capacity", 4);
        }
    }

    @Test
    void aSecondDrainerWaitsForTheFirstWithABoundThatNamesIt() throws Exception {
        try (var log = sumLog(4)) {
            log.emit(1L);
            CountDownLatch inFold = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<Integer> first =
                        pool.submit(
                                () ->
                                        log.drainAndFold(
                                                (s, e) -> {
                                                    inFold.countDown();
                                                    await(release);
                                                    return s + e;
                                                }));
                assertThat(inFold.await(30, TimeUnit.SECONDS)).isTrue();
                assertThatThrownBy(() -> log.drainAndFold(Long::sum, Duration.ofMillis(50)))
                        .isInstanceOf(CxcTimeoutException.class)
                        .hasMessageContaining("held by live PID " + ProcessHandle.current().pid());
                release.countDown();
                assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(1);
            } finally {
                release.countDown();
                pool.shutdownNow();
            }
            assertThat(log.readCurrent()).isEqualTo(1);
        }
    }

    @Test
    void concurrentEmittersAndDrainersInOneProcessFoldEveryEventOnce() throws Exception {
        int producers = 3;
        long each = 10_000;
        try (EventStateLog<Tally.Event, Tally> log =
                EventStateLog.TYPE.create(
                        dir.resolve("mt.cxc"),
                        new EventStateLog.Settings<>(
                                256, Tally.Event.CODEC, Tally.CODEC, Tally.EMPTY))) {
            ExecutorService pool = Executors.newFixedThreadPool(producers + 1);
            try {
                List<Future<?>> emitters = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    int producer = p;
                    emitters.add(
                            pool.submit(
                                    () -> {
                                        for (long n = 1; n <= each; n++) {
                                            while (!log.tryEmit(Tally.Event.of(producer, n))) {
                                                Thread.onSpinWait();
                                            }
                                        }
                                    }));
                }
                Future<?> drainer =
                        pool.submit(
                                () -> {
                                    while (log.foldedCount() < producers * each) {
                                        log.drainAndFold(Tally::fold);
                                    }
                                });
                for (Future<?> f : emitters) {
                    f.get(60, TimeUnit.SECONDS);
                }
                drainer.get(60, TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
            }
            Tally tally = log.readCurrent();
            assertThat(tally.violations()).isZero();
            for (int p = 0; p < producers; p++) {
                assertThat(tally.count(p)).isEqualTo(each);
                assertThat(tally.last(p)).isEqualTo(each);
            }
        }
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
