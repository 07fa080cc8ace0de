package io.subetha.cxc.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * How ops are numbered (1..15, no two on one code, gaps allowed, sorted by code whatever the
 * declaration order, each constant carrying its own code) and what a thread whose home cell a live
 * thread owns counts into: every count stays exact.
 */
class OpNumberingAndCellsTest {

    /** Declared out of code order, with a gap at 2. */
    enum Gapped implements OpKind {
        THIRD(3),
        FIRST(1);

        private final int code;

        Gapped(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    enum Clashing implements OpKind {
        ONE,
        OTHER;

        @Override
        public int code() {
            return 1;
        }
    }

    enum Zero implements OpKind {
        NONE;

        @Override
        public int code() {
            return 0;
        }
    }

    @Test
    void opsAreSortedByCodeWithTheirGapsAndNamedInLowerCase() {
        OpCounters counters = OpCounters.of(Gapped.class);
        assertThat(counters.ops())
                .containsExactly(new OpCounters.Op(1, "first"), new OpCounters.Op(3, "third"));
        assertThat(Gapped.THIRD.code()).isEqualTo(3);
        assertThat(Gapped.THIRD.opName()).isEqualTo("third");

        counters.increment(Gapped.THIRD);
        assertThat(counters.get(Gapped.THIRD)).isEqualTo(1);
        assertThat(counters.get(3)).isEqualTo(1);
        assertThat(counters.get("third")).isEqualTo(1);
        assertThat(counters.snapshot())
                .containsExactly(Map.entry("first", 0L), Map.entry("third", 1L));
        for (int op : new int[] {0, 2, 4}) {
            assertThatThrownBy(() -> counters.get(op))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("op kind " + op + " is not counted here");
        }
    }

    @Test
    void codesLieIn1To15AndNoTwoOpsShareOne() {
        List<String> fifteen = new ArrayList<>(Collections.nCopies(15, "op"));
        for (int i = 0; i < 15; i++) {
            fifteen.set(i, "op" + (i + 1));
        }
        OpCounters full = new OpCounters(fifteen);
        full.increment(15);
        assertThat(full.get(15)).isEqualTo(1);
        List<String> sixteen = new ArrayList<>(fifteen);
        sixteen.add("op16");
        assertThatThrownBy(() -> new OpCounters(sixteen))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("op op16 has code 16, outside 1..15");
        assertThatThrownBy(() -> OpCounters.of(Zero.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has code 0, outside 1..15");
        assertThatThrownBy(() -> OpCounters.of(Clashing.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ops one and other share code 1");
    }

    @Test
    void aThreadWhoseHomeCellALiveThreadOwnsStillCountsExactly() throws Exception {
        OpCounters counters = new OpCounters(List.of("op"));
        CountDownLatch counted = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Runnable owner =
                () -> {
                    for (int i = 0; i < 3; i++) {
                        counters.increment(1);
                    }
                    counted.countDown();
                    try {
                        finish.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                };
        // Two threads whose ids share a home cell (ids equal modulo the 32 cells).
        List<Thread> made = new ArrayList<>();
        Thread first = new Thread(owner);
        made.add(first);
        Thread second = null;
        while (second == null) {
            Thread t = new Thread(() -> counters.increment(1));
            if ((t.getId() - first.getId()) % 32 == 0) {
                second = t;
            }
        }
        first.start();
        counted.await();
        second.start(); // its home cell is the living first thread's: it counts in the shared array
        second.join();
        assertThat(counters.get(1)).isEqualTo(4);

        finish.countDown();
        first.join();
        counters.increment(1);
        assertThat(counters.get(1)).isEqualTo(5);
    }

    @Test
    void anObservedPrimitivesCountsAreItsCountersSnapshot() {
        OpCounters counters = new OpCounters(List.of("read", "write"));
        counters.increment(2);
        ObservedPrimitive observed =
                new ObservedPrimitive() {
                    @Override
                    public String name() {
                        return "p";
                    }

                    @Override
                    public String kind() {
                        return "test";
                    }

                    @Override
                    public Path file() {
                        return Path.of("p.cxc");
                    }

                    @Override
                    public OpCounters opCounters() {
                        return counters;
                    }

                    @Override
                    public Map<String, Object> describe() {
                        return Map.of();
                    }

                    @Override
                    public boolean isClosed() {
                        return false;
                    }
                };
        assertThat(observed.opCounts())
                .containsExactly(Map.entry("read", 0L), Map.entry("write", 1L));
    }
}
