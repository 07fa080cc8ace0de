package io.subetha.cxc.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.graph.SharedTopologyMap.Link;
import io.subetha.cxc.graph.SharedTopologyMap.Mode;
import io.subetha.cxc.graph.SharedTopologyMap.Recommendation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rule on scripted traffic whose right answer is obvious. */
class SharedTopologyMapTest {

    @TempDir Path dir;

    SharedTopologyMap map() {
        return SharedTopologyMap.TYPE.create(
                dir.resolve("t.cxc"), new SharedTopologyMap.Settings(256));
    }

    @Test
    void oneHotDestinationIsFanInForItsSenderAndForItself() {
        try (SharedTopologyMap map = map()) {
            for (int i = 0; i < 100; i++) {
                map.record(1, 7, 10); // hot
                map.record(1, 2 + i % 3, 1);
                map.record(3, 7, 5);
                map.record(4, 7, 5);
            }
            Recommendation sender = map.recommend(1);
            assertThat(sender.mode()).isEqualTo(Mode.FAN_IN);
            assertThat(sender.topDestination()).isEqualTo(7);
            assertThat(sender.topLoad()).isEqualTo(1000);
            assertThat(sender.outLoad()).isEqualTo(1100);
            assertThat(sender.reason()).contains("destination 7 takes 1000 of 1100");
            Recommendation hot = map.recommend(7);
            assertThat(hot.mode()).isEqualTo(Mode.FAN_IN);
            assertThat(hot.sources()).isEqualTo(3);
            assertThat(hot.inLoad()).isEqualTo(2000);
            assertThat(map.fanIn(7))
                    .extracting(Link::source, Link::load)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(1, 1000L),
                            org.assertj.core.groups.Tuple.tuple(3, 500L),
                            org.assertj.core.groups.Tuple.tuple(4, 500L));
        }
    }

    @Test
    void loadSpreadEvenlyIsFanOut() {
        try (SharedTopologyMap map = map()) {
            for (int i = 0; i < 400; i++) {
                map.record(1, 10 + i % 4, 3);
            }
            Recommendation r = map.recommend(1);
            assertThat(r.mode()).isEqualTo(Mode.FAN_OUT);
            assertThat(r.destinations()).isEqualTo(4);
            assertThat(r.outLoad()).isEqualTo(1200);
            assertThat(map.fanOut(1)).extracting(Link::destination).containsExactly(10, 11, 12, 13);
            assertThat(map.fanOut(1)).allMatch(l -> l.samples() == 100);
            // Two destinations exactly even: no majority, still fan-out.
            map.record(2, 1, 5);
            map.record(2, 3, 5);
            assertThat(map.recommend(2).mode()).isEqualTo(Mode.FAN_OUT);
            // No observations at all.
            assertThat(map.recommend(99).mode()).isEqualTo(Mode.FAN_OUT);
            assertThat(map.recommend(99).reason()).isEqualTo("no hot spot observed");
        }
    }

    @Test
    void oldObservationsHalveEachEpochSoTheRecommendationFollowsTheTraffic() {
        try (SharedTopologyMap map = map()) {
            map.record(1, 7, 1000); // a hot destination in epoch 0
            assertThat(map.recommend(1).mode()).isEqualTo(Mode.FAN_IN);
            map.advanceEpoch();
            map.advanceEpoch();
            map.advanceEpoch();
            assertThat(map.fanOut(1)).containsExactly(new Link(1, 7, 125, 1));
            // Now spread traffic: 4 destinations at 100 each against 7's decayed 125.
            for (int d = 0; d < 4; d++) {
                map.record(1, 20 + d, 100);
            }
            Recommendation r = map.recommend(1);
            assertThat(r.mode()).isEqualTo(Mode.FAN_OUT);
            assertThat(r.outLoad()).isEqualTo(525);
            assertThat(r.topDestination()).isEqualTo(7);
            assertThat(r.epoch()).isEqualTo(3);
            // A record folds the old load down to the current epoch first: 125 + 1.
            map.record(1, 7, 1);
            assertThat(map.fanOut(1).get(0)).isEqualTo(new Link(1, 7, 126, 2));
            for (int e = 0; e < 40; e++) {
                map.advanceEpoch();
            }
            assertThat(map.fanOut(1)).isEmpty();
            assertThat(map.recommend(1).mode()).isEqualTo(Mode.FAN_OUT);
        }
    }

    /**
     * Two processes' handles each move the epoch on their own timer: through advanceEpochTo with an
     * epoch from one clock, the epoch moves once per period, not once per caller.
     */
    @Test
    void handlesAdvancingToAnEpochFromOneClockDecayOncePerPeriod() {
        try (SharedTopologyMap one = map();
                SharedTopologyMap two =
                        SharedTopologyMap.open(
                                dir.resolve("t.cxc"), new SharedTopologyMap.Settings(256))) {
            one.record(1, 7, 1024);
            for (long period = 1; period <= 3; period++) {
                assertThat(one.advanceEpochTo(period)).isEqualTo(period);
                assertThat(two.advanceEpochTo(period)).isEqualTo(period); // already there
            }
            assertThat(two.advanceEpochTo(2)).isEqualTo(3); // never backwards
            assertThat(one.epoch()).isEqualTo(3);
            assertThat(two.fanOut(1)).containsExactly(new Link(1, 7, 128, 1));
            assertThat(one.advanceEpochTo(10)).isEqualTo(10); // a jump: 7 halvings at once
            assertThat(one.fanOut(1)).containsExactly(new Link(1, 7, 1, 1));
            assertThatThrownBy(() -> one.advanceEpochTo(-1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("epoch -1");
        }
    }

    @Test
    void theSameCallsGiveTheSameAnswers() {
        List<Recommendation> first = new ArrayList<>();
        List<Recommendation> second = new ArrayList<>();
        for (List<Recommendation> out : List.of(first, second)) {
            try (SharedTopologyMap map =
                    SharedTopologyMap.TYPE.create(
                            dir.resolve("d" + out.hashCode() + out.size() + first.size() + ".cxc"),
                            new SharedTopologyMap.Settings(64))) {
                java.util.Random random = new java.util.Random(3);
                for (int i = 0; i < 2000; i++) {
                    map.record(random.nextInt(5), random.nextInt(5), random.nextInt(50));
                    if (i % 300 == 0) {
                        map.advanceEpoch();
                    }
                }
                for (int n = 0; n < 5; n++) {
                    out.add(map.recommend(n));
                }
            }
        }
        assertThat(second).isEqualTo(first);
    }

    @Test
    void aFullTableIsACapacityExceptionAndBadInputIsNamed() {
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(
                        dir.resolve("t.cxc"), new SharedTopologyMap.Settings(2))) {
            map.record(1, 2, 1);
            map.record(2, 1, 1);
            assertThatThrownBy(() -> map.record(3, 4, 1))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("capacity 2 links")
                    .hasMessageContaining("3 -> 4");
            map.record(1, 2, 1); // known links still record
            assertThat(map.fanOut(1)).containsExactly(new Link(1, 2, 2, 2));
            assertThatThrownBy(() -> map.record(1, 2, -5)).hasMessageContaining("load -5");
            assertThatThrownBy(() -> map.record(-1, 2, 5)).hasMessageContaining("source -1");
            map.record(1, 2, Long.MAX_VALUE);
            assertThat(map.fanOut(1).get(0).load()).isEqualTo(SharedTopologyMapDescriptor.MAX_LOAD);
        }
    }

    @Test
    void threadsRecordingAtOnceLoseNoLoad() throws Exception {
        try (SharedTopologyMap map = map()) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(new Thread(() -> GraphChild.script(map, 20_000)));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            long total = 0;
            for (int s = 0; s < 4; s++) {
                total += map.fanOut(s).stream().mapToLong(Link::load).sum();
            }
            assertThat(total).isEqualTo(4 * scriptLoad(20_000));
            assertThat(map.linkCount()).isEqualTo(20);
        }
    }

    static long scriptLoad(int count) {
        long sum = 0;
        for (int i = 0; i < count; i++) {
            sum += 1 + i % 3;
        }
        return sum;
    }
}
