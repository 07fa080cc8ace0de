package io.subetha.cxc.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class OpCountersTest {

    @Test
    void countsByOpKindAndName() {
        OpCounters counters = new OpCounters(List.of("claim", "beat"));
        counters.increment(1);
        counters.increment(1);
        counters.increment(2);

        assertThat(counters.get(1)).isEqualTo(2);
        assertThat(counters.get("beat")).isEqualTo(1);
        assertThat(counters.snapshot())
                .containsExactly(java.util.Map.entry("claim", 2L), java.util.Map.entry("beat", 1L));
        assertThatThrownBy(() -> counters.get("nope"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[claim, beat]");
    }

    @Test
    void exactUnderManyThreadsIncludingMoreThreadsThanCells() throws Exception {
        OpCounters counters = new OpCounters(List.of("a", "b"));
        int threads = 48; // more than the 32 cells: some threads share a home cell
        int perThread = 50_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker =
                    new Thread(
                            () -> {
                                try {
                                    start.await();
                                } catch (InterruptedException e) {
                                    return;
                                }
                                for (int i = 0; i < perThread; i++) {
                                    counters.increment(1 + (i & 1));
                                }
                            });
            worker.start();
            workers.add(worker);
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        assertThat(counters.get(1)).isEqualTo((long) threads * perThread / 2);
        assertThat(counters.get(2)).isEqualTo((long) threads * perThread / 2);
    }

    @Test
    void countsOfDeadThreadsAreKeptWhenTheirCellIsTakenOver() throws Exception {
        OpCounters counters = new OpCounters(List.of("a"));
        for (int round = 0; round < 100; round++) {
            Thread worker =
                    new Thread(
                            () -> {
                                for (int i = 0; i < 10; i++) {
                                    counters.increment(1);
                                }
                            });
            worker.start();
            worker.join();
        }
        assertThat(counters.get(1)).isEqualTo(1000);
    }

    @Test
    void aReaderNeverSeesACountGoDown() throws Exception {
        OpCounters counters = new OpCounters(List.of("a"));
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            Thread writer =
                    new Thread(
                            () -> {
                                while (running.get()) {
                                    counters.increment(1);
                                }
                            });
            writer.start();
            writers.add(writer);
        }
        long previous = 0;
        try {
            for (int i = 0; i < 200_000; i++) {
                long now = counters.get(1);
                assertThat(now).isGreaterThanOrEqualTo(previous);
                previous = now;
            }
        } finally {
            running.set(false);
            for (Thread writer : writers) {
                writer.join();
            }
        }
        assertThat(previous).isPositive();
    }
}
