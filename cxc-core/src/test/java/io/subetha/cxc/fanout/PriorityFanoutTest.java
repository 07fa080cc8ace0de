package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.MAX_PAYLOAD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.PrimitiveView;
import io.subetha.cxc.testing.SizedCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fan-out in one process: priorities and FIFO order, a full level, claims held until acked or
 * released, a silent handle's claim returned after the grace, threads delivering every item once
 * and never a lower item first, closing a handle, and the bad inputs (arguments, settings, another
 * codec) refused naming the value.
 */
class PriorityFanoutTest {

    static final int CAPACITY = 4;
    static final Duration DAY = Duration.ofDays(1);

    @TempDir Path dir;

    PriorityFanout<Long> fanout(int capacity) {
        return PriorityFanout.TYPE.create(
                dir.resolve("fanout.cxc"),
                new PriorityFanout.Settings<>(capacity, FixedCodec.INT64));
    }

    @Test
    void higherLevelsDrainFirstAndEachLevelIsFifo() {
        try (PriorityFanout<Long> f = fanout(16)) {
            f.submit(1, 10L);
            f.submit(5, 50L);
            f.submit(1, 11L);
            f.submit(5, 51L);
            f.submit(7, 70L);
            assertThat(f.depth(5)).isEqualTo(2);
            assertThat(f.drainHighest(10)).containsExactly(70L);
            assertThat(f.drainHighest(10)).containsExactly(50L, 51L);
            assertThat(f.drainPriority(1, 1)).containsExactly(10L);
            assertThat(f.drainHighest(10)).containsExactly(11L);
            assertThat(f.drainHighest(10)).isEmpty();
            assertThat(f.depth(1)).isZero();
        }
    }

    @Test
    void aFullLevelIsAnAnswerAndTheRingWrapsAround() {
        try (PriorityFanout<Long> f = fanout(4)) {
            for (long lap = 0; lap < 5; lap++) {
                for (long i = 0; i < 4; i++) {
                    f.submit(3, lap * 4 + i);
                }
                assertThat(f.trySubmit(3, 99L)).isFalse();
                assertThatThrownBy(() -> f.submit(3, 99L))
                        .isInstanceOf(CxcCapacityException.class)
                        .hasMessageContaining("priority level 3")
                        .hasMessageContaining("4 items");
                assertThat(f.trySubmit(2, 1L)).isTrue(); // other levels are not full
                assertThat(f.drainPriority(3, 10))
                        .containsExactly(lap * 4, lap * 4 + 1, lap * 4 + 2, lap * 4 + 3);
                assertThat(f.drainPriority(2, 10)).containsExactly(1L);
            }
        }
    }

    @Test
    void claimsHoldTheirSlotsUntilAckedAndAReleasedClaimComesBackFirstInOrder() {
        try (PriorityFanout<Long> f = fanout(4)) {
            for (long i = 0; i < 4; i++) {
                f.submit(6, i);
            }
            FanoutClaim<Long> claim = f.claimHighest(2);
            assertThat(claim.items()).containsExactly(0L, 1L);
            assertThat(claim.priority()).isEqualTo(6);
            assertThat(f.trySubmit(6, 9L)).isFalse(); // claimed slots are still held
            assertThat(claim.release()).isEqualTo(2);
            FanoutClaim<Long> again = f.claimHighest(3);
            assertThat(again.items()).containsExactly(0L, 1L, 2L);
            assertThat(again.ack()).isTrue();
            FanoutClaim<Long> last = f.claimHighest(3);
            assertThat(last.items()).containsExactly(3L);
            assertThat(last.ack()).isTrue();
            assertThatThrownBy(last::ack)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already acknowledged");
            assertThat(f.trySubmit(6, 9L)).isTrue();
        }
    }

    @Test
    void aSilentHandlesClaimReturnsAfterTheGraceAndItsLateAckIsRefused() {
        Path path = dir.resolve("silent.cxc");
        PriorityFanout.Settings<Long> settings =
                new PriorityFanout.Settings<>(8, FixedCodec.INT64, Duration.ofMillis(200));
        try (PriorityFanout<Long> silent =
                        PriorityFanout.TYPE.create(path, settings, CxcFileOptions.defaults());
                PriorityFanout<Long> other =
                        PriorityFanout.TYPE.open(path, settings, CxcFileOptions.defaults())) {
            for (long i = 0; i < 5; i++) {
                silent.submit(4, i);
            }
            FanoutClaim<Long> claim = silent.claimHighest(3);
            assertThat(claim.items()).containsExactly(0L, 1L, 2L);
            other.submit(4, 5L);
            await().atMost(Duration.ofSeconds(30)).until(() -> other.scan().returnedClaims() > 0);
            // The returned items come first, in their order, then the level's later ones.
            FanoutClaim<Long> again = other.claimHighest(10);
            assertThat(again.items()).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
            assertThat(claim.ack()).isFalse();
            assertThat(again.ack()).isTrue();
            assertThat(other.drainHighest(10)).isEmpty();
        }
    }

    @Test
    void threadsSubmittingAndDrainingDeliverEveryItemExactlyOnce() throws Exception {
        int producers = 3;
        int perProducer = 20_000;
        try (PriorityFanout<Long> f = fanout(64)) {
            Set<Long> seen = ConcurrentHashMap.newKeySet();
            AtomicInteger duplicates = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                long producer = p;
                threads.add(
                        new Thread(
                                () -> {
                                    for (long s = 0; s < perProducer; s++) {
                                        long item = FanoutChild.item(producer, s);
                                        while (!f.trySubmit(FanoutChild.priorityOf(item), item)) {
                                            Thread.yield();
                                        }
                                    }
                                    done.incrementAndGet();
                                }));
            }
            for (int c = 0; c < 2; c++) {
                threads.add(
                        new Thread(
                                () -> {
                                    while (true) {
                                        boolean finished = done.get() == producers;
                                        List<Long> items = f.drainHighest(32);
                                        if (items.isEmpty() && finished) {
                                            return;
                                        }
                                        for (long item : items) {
                                            if (!seen.add(item)) {
                                                duplicates.incrementAndGet();
                                            }
                                        }
                                    }
                                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(60_000);
                assertThat(t.isAlive()).as("thread finished within 60 s").isFalse();
            }
            assertThat(duplicates.get()).isZero();
            assertThat(seen).hasSize(producers * perProducer);
        }
    }

    @Test
    void aDrainStartedAfterAHigherItemWasCommittedReturnsNoLowerItemBeforeIt() throws Exception {
        try (PriorityFanout<Long> f = fanout(256)) {
            // The producer commits high item 2s, publishes it, then commits low item 2s+1.
            java.util.concurrent.atomic.AtomicLong committedHigh =
                    new java.util.concurrent.atomic.AtomicLong(-1);
            Thread producer =
                    new Thread(
                            () -> {
                                for (long s = 0; s < 20_000; s++) {
                                    while (!f.trySubmit(7, s * 2)) {
                                        Thread.yield();
                                    }
                                    committedHigh.set(s * 2);
                                    while (!f.trySubmit(0, s * 2 + 1)) {
                                        Thread.yield();
                                    }
                                }
                            });
            producer.start();
            long delivered = -1;
            int received = 0;
            while (received < 40_000) {
                long committedBefore = committedHigh.get();
                List<Long> items = f.drainHighest(8);
                for (long item : items) {
                    received++;
                    if (item % 2 == 0) {
                        delivered = Math.max(delivered, item);
                    } else {
                        assertThat(delivered)
                                .as("high items delivered when low item %d came", item)
                                .isGreaterThanOrEqualTo(committedBefore);
                    }
                }
            }
            producer.join(60_000);
        }
    }

    @Test
    void badArgumentsNameTheArgumentTheValueAndTheLimit() {
        try (PriorityFanout<Long> f = fanout(4)) {
            assertThatThrownBy(() -> f.submit(8, 1L))
                    .hasMessageContaining("priority must be 0..7")
                    .hasMessageContaining("got 8");
            assertThatThrownBy(() -> f.submit(-1, 1L)).hasMessageContaining("got -1");
            assertThatThrownBy(() -> f.drainPriority(9, 1)).hasMessageContaining("got 9");
            assertThatThrownBy(() -> f.drainHighest(0)).hasMessageContaining("max must be 1");
            assertThatThrownBy(() -> f.depth(100)).hasMessageContaining("got 100");
        }
        assertThatThrownBy(
                        () ->
                                PriorityFanout.TYPE.create(
                                        dir.resolve("zero.cxc"),
                                        new PriorityFanout.Settings<>(0, FixedCodec.INT64)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacityPerPriority must be 1..");
    }

    @Test
    void anotherCodecIsRefusedOnOpenAndAnObserverViewReadsButCannotTake() {
        Path path = dir.resolve("fanout.cxc");
        fanout(4).close();
        assertThatThrownBy(
                        () ->
                                PriorityFanout.open(
                                        path, new PriorityFanout.Settings<>(4, FixedCodec.INT32)))
                .isInstanceOf(CxcFormatException.class);
        try (PrimitiveView view =
                PriorityFanout.TYPE.observe(path, CxcFileOptions.defaults().asReadOnly())) {
            assertThat(view.describe()).containsEntry("capacityPerPriority", 4);
        }
    }

    @Test
    void closingAHandleReturnsItsClaimsAndFreesItsRecord() {
        Path path = dir.resolve("fanout.cxc");
        try (PriorityFanout<Long> f = fanout(4)) {
            f.submit(2, 1L);
            PriorityFanout<Long> other =
                    PriorityFanout.open(path, new PriorityFanout.Settings<>(4, FixedCodec.INT64));
            assertThat(other.claimHighest(4).items()).containsExactly(1L);
            assertThat(f.describe()).containsEntry("participants", 2);
            other.close();
            assertThat(f.describe()).containsEntry("participants", 1);
            assertThat(f.drainHighest(4)).containsExactly(1L);
            Set<Long> none = new HashSet<>(f.drainHighest(4));
            assertThat(none).isEmpty();
        }
    }

    @Test
    void settingsCodecsMaxesAndNullItemsAreCheckedNamingTheValue() {
        new PriorityFanout.Settings<>(1, new SizedCodec(0), DAY);
        new PriorityFanout.Settings<>(1, new SizedCodec(MAX_PAYLOAD), DAY);
        new PriorityFanout.Settings<>(1, FixedCodec.INT64, Duration.ofNanos(1));
        for (int size : new int[] {-1, MAX_PAYLOAD + 1}) {
            assertThatThrownBy(() -> new PriorityFanout.Settings<>(1, new SizedCodec(size), DAY))
                    .isInstanceOf(CxcSettingsException.class)
                    .hasMessageContaining("at most " + MAX_PAYLOAD + " bytes, got " + size)
                    .extracting(e -> ((CxcSettingsException) e).setting())
                    .isEqualTo("codec");
        }
        for (Duration grace :
                new Duration[] {Duration.ofNanos(-1), Duration.ZERO, DAY.plusNanos(1)}) {
            assertThatThrownBy(() -> new PriorityFanout.Settings<>(1, FixedCodec.INT64, grace))
                    .isInstanceOf(CxcSettingsException.class)
                    .hasMessageContaining("got " + grace)
                    .extracting(e -> ((CxcSettingsException) e).setting())
                    .isEqualTo("grace");
        }
        try (PriorityFanout<Long> fanout = fanout(CAPACITY)) {
            assertThatThrownBy(() -> fanout.trySubmit(0, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("item must not be null");
            assertThatThrownBy(() -> fanout.drainPriority(0, 0))
                    .hasMessage("max must be 1 or more, got 0");
            assertThatThrownBy(() -> fanout.claimHighest(0))
                    .hasMessage("max must be 1 or more, got 0");
        }

        Path simple = dir.resolve("simple.cxc");
        try (PriorityFanout<Long> created =
                        PriorityFanout.openOrCreate(
                                simple, new PriorityFanout.Settings<>(CAPACITY, FixedCodec.INT64));
                PriorityFanout<Long> opened =
                        PriorityFanout.openOrCreate(
                                simple,
                                new PriorityFanout.Settings<>(CAPACITY, FixedCodec.INT64))) {
            created.submit(2, 6L);
            FanoutClaim<Long> one = opened.claimHighest(1);
            assertThat(one.items()).containsExactly(6L);
            assertThat(one.ack()).isTrue();
            FanoutClaim<Long> empty = opened.claimHighest(1);
            assertThat(empty.isEmpty()).isTrue();
            assertThat(empty.priority()).isEqualTo(-1);
        }
    }

    @Test
    void aScanReportChangedAnythingIfAnyOneFigureIsAboveZero() {
        assertThat(new PriorityFanout.ScanReport(0, 0, 0, 0).changedAnything()).isFalse();
        int[][] reports = {
            {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1},
            {1, 1, 0, 0}, {0, 1, 1, 0}, {0, 0, 1, 1}, {1, 2, 1, 3}
        };
        for (int[] r : reports) {
            assertThat(new PriorityFanout.ScanReport(r[0], r[1], r[2], r[3]).changedAnything())
                    .as("%s", java.util.Arrays.toString(r))
                    .isTrue();
        }
    }
}
