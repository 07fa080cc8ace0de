package io.subetha.cxc.graph;

import static io.subetha.cxc.graph.SharedTopologyMapDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.graph.SharedTopologyMap.Link;
import io.subetha.cxc.graph.SharedTopologyMap.Mode;
import io.subetha.cxc.graph.SharedTopologyMap.Recommendation;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topology map's words as another process reads them: where a link's key lands (the hash every
 * process must agree on, probing past the table's end), what its weight word holds after each
 * record (epoch and decayed load), a weight planted from a later epoch than the recorder read, the
 * epoch field's wrap-around, the rule's edges and texts, and each op counted once.
 */
class TopologySlotAndWeightWordsTest {

    @TempDir Path dir;

    /** The splitmix64 finaliser, written out here: the file's hash is part of its format. */
    static long splitmix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    static int home(int source, int destination, int capacity) {
        return (int) Long.remainderUnsigned(splitmix(key(source, destination)), capacity);
    }

    static int slot(int index) {
        return SLOTS_OFFSET + index * SLOT_LENGTH;
    }

    /** Destinations from source 1 whose key hashes to {@code index}, lowest first. */
    static List<Integer> destinationsHomedAt(int index, int capacity, int count) {
        List<Integer> found = new ArrayList<>();
        for (int d = 0; found.size() < count; d++) {
            if (home(1, d, capacity) == index) {
                found.add(d);
            }
        }
        return found;
    }

    @Test
    void aLinkIsClaimedAtItsHashedSlotAndProbesOnPastTheTablesEnd() {
        Path path = dir.resolve("t.cxc");
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(path, new SharedTopologyMap.Settings(8))) {
            AtomicBuffer raw = RawBody.of(path);
            List<Integer> last = destinationsHomedAt(7, 8, 3);
            map.record(1, last.get(0), 5);
            map.record(1, last.get(1), 6);
            map.record(1, last.get(2), 7);
            assertThat(raw.getLongVolatile(slot(7) + KEY_OFFSET)).isEqualTo(key(1, last.get(0)));
            assertThat(raw.getLongVolatile(slot(0) + KEY_OFFSET)).isEqualTo(key(1, last.get(1)));
            assertThat(raw.getLongVolatile(slot(1) + KEY_OFFSET)).isEqualTo(key(1, last.get(2)));
            for (int i = 2; i < 7; i++) {
                assertThat(raw.getLongVolatile(slot(i) + KEY_OFFSET)).isZero();
            }
            // Found again past the end: the same slot, its weight and samples added to.
            map.record(1, last.get(2), 3);
            assertThat(raw.getLongVolatile(slot(1) + WEIGHT_OFFSET)).isEqualTo(10);
            assertThat(raw.getLongVolatile(slot(1) + SAMPLES_OFFSET)).isEqualTo(2);
            assertThat(map.linkCount()).isEqualTo(3);
            // A key the map holds at another slot than its home is found there, not claimed twice.
            int first = destinationsHomedAt(0, 8, 1).get(0);
            map.record(1, first, 1);
            assertThat(raw.getLongVolatile(slot(2) + KEY_OFFSET)).isEqualTo(key(1, first));
            assertThat(map.linkCount()).isEqualTo(4);
        }
    }

    @Test
    void theKeyKeepsTheWholeRangeOfNodeIds() {
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(
                        dir.resolve("t.cxc"), new SharedTopologyMap.Settings(4))) {
            int max = Integer.MAX_VALUE;
            map.record(max, max, 9);
            map.record(0, max, 4);
            map.record(max, 0, 2);
            assertThat(map.fanOut(max))
                    .containsExactly(new Link(max, max, 9, 1), new Link(max, 0, 2, 1));
            assertThat(map.fanIn(max))
                    .containsExactly(new Link(max, max, 9, 1), new Link(0, max, 4, 1));
            assertThat(source(key(max, 3))).isEqualTo(max);
            assertThat(destination(key(max, 3))).isEqualTo(3);
            assertThat(key(0, 0)).isEqualTo(USED);
        }
    }

    @Test
    void eachRecordFoldsTheOldLoadDownToTheEpochItReadAndWritesBothInOneWord() {
        Path path = dir.resolve("t.cxc");
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(path, new SharedTopologyMap.Settings(4))) {
            AtomicBuffer raw = RawBody.of(path);
            int at = slot(home(1, 2, 4));
            map.record(1, 2, 40);
            assertThat(raw.getLongVolatile(at + WEIGHT_OFFSET)).isEqualTo(weight(0, 40));
            assertThat(map.advanceEpoch()).isEqualTo(1);
            assertThat(map.advanceEpoch()).isEqualTo(2);
            assertThat(raw.getLongVolatile(EPOCH_OFFSET)).isEqualTo(2);
            map.record(1, 2, 3);
            assertThat(raw.getLongVolatile(at + WEIGHT_OFFSET)).isEqualTo(weight(2, 13));
            assertThat(raw.getLongVolatile(at + SAMPLES_OFFSET)).isEqualTo(2);
            assertThat(weight(2, 13)).isEqualTo((2L << LOAD_BITS) | 13);
            assertThat(epochOf(weight(2, 13))).isEqualTo(2);
            assertThat(loadOf(weight(2, 13))).isEqualTo(13);
            assertThat(weight(EPOCH_MASK + 3, MAX_LOAD + 5))
                    .isEqualTo((2L << LOAD_BITS) | MAX_LOAD);
        }
    }

    /**
     * A recorder that read the epoch before another process advanced it and recorded: the weight it
     * meets is from a later epoch than its own. Its load is decayed up to the weight's epoch, which
     * stays; readers at the older epoch see the load undecayed.
     */
    @Test
    void aWeightFromALaterEpochKeepsItsEpochAndTakesTheLoadDecayedToIt() {
        Path path = dir.resolve("t.cxc");
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(path, new SharedTopologyMap.Settings(4))) {
            AtomicBuffer raw = RawBody.of(path);
            int at = slot(home(1, 2, 4));
            map.record(1, 2, 0); // claims the slot
            map.advanceEpochTo(2);
            raw.setLongVolatile(at + WEIGHT_OFFSET, weight(4, 100));
            map.record(1, 2, 40);
            assertThat(raw.getLongVolatile(at + WEIGHT_OFFSET)).isEqualTo(weight(4, 110));
            assertThat(map.fanOut(1)).containsExactly(new Link(1, 2, 110, 2));
        }
    }

    @Test
    void loadsSaturateAtTheFieldsMaximum() {
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(
                        dir.resolve("t.cxc"), new SharedTopologyMap.Settings(4))) {
            map.record(1, 2, MAX_LOAD - 1);
            map.record(1, 2, 1);
            assertThat(map.fanOut(1).get(0).load()).isEqualTo(MAX_LOAD);
            map.record(1, 2, 1);
            assertThat(map.fanOut(1).get(0).load()).isEqualTo(MAX_LOAD);
            map.record(3, 4, MAX_LOAD + 1);
            assertThat(map.fanOut(3).get(0).load()).isEqualTo(MAX_LOAD);
            map.record(3, 4, Long.MAX_VALUE);
            assertThat(map.fanOut(3).get(0).load()).isEqualTo(MAX_LOAD);
        }
    }

    @Test
    void epochsCountInTheFieldsWrapAround() {
        long half = 1L << (EPOCH_BITS - 1);
        assertThat(epochsSince(0, EPOCH_MASK)).isEqualTo(1);
        assertThat(epochsSince(5, 7)).isEqualTo(-2);
        assertThat(epochsSince(half - 1, 0)).isEqualTo(half - 1);
        assertThat(epochsSince(half, 0)).isEqualTo(-half);
        assertThat(epochsSince(EPOCH_MASK + 1 + 9, 4)).isEqualTo(5);
        assertThat(decayed(96, 0)).isEqualTo(96);
        assertThat(decayed(96, -3)).isEqualTo(96);
        assertThat(decayed(96, 5)).isEqualTo(3);
        assertThat(decayed(Long.MAX_VALUE, 62)).isEqualTo(1);
        assertThat(decayed(Long.MAX_VALUE, 63)).isZero();
        assertThat(decayed(Long.MAX_VALUE, 64)).isZero();
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(
                        dir.resolve("t.cxc"), new SharedTopologyMap.Settings(4))) {
            map.advanceEpochTo(EPOCH_MASK);
            map.record(1, 2, 64);
            map.advanceEpochTo(EPOCH_MASK + 3); // the field wrapped: 3 epochs, not -2^24 + 3
            assertThat(map.fanOut(1)).containsExactly(new Link(1, 2, 8, 1));
            map.record(1, 2, 1);
            assertThat(map.fanOut(1)).containsExactly(new Link(1, 2, 9, 2));
        }
    }

    @Test
    void advancingToAnEpochMovesOnlyForwardAndSaysWhereItIs() {
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(
                        dir.resolve("t.cxc"), new SharedTopologyMap.Settings(4))) {
            assertThat(map.advanceEpochTo(0)).isZero();
            assertThat(map.advanceEpochTo(5)).isEqualTo(5);
            assertThat(map.advanceEpochTo(5)).isEqualTo(5);
            assertThat(map.advanceEpochTo(4)).isEqualTo(5);
            assertThat(map.advanceEpoch()).isEqualTo(6);
            assertThat(map.epoch()).isEqualTo(6);
            assertThat(map.opCounters().get(SharedTopologyMap.Op.ADVANCE_EPOCH)).isEqualTo(5);
        }
    }

    @Test
    void theRulesEdgesAndTheFiguresThatDecidedThem() {
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(
                        dir.resolve("t.cxc"), new SharedTopologyMap.Settings(16))) {
            map.advanceEpochTo(3);
            // Receives from one source only: no evidence, fan-out.
            map.record(5, 9, 8);
            Recommendation one = map.recommend(9);
            assertThat(one)
                    .isEqualTo(
                            new Recommendation(
                                    9, Mode.FAN_OUT, 0, 0, -1, 0, 8, 1, 3, "no hot spot observed"));
            map.record(6, 9, 4);
            assertThat(map.recommend(9))
                    .isEqualTo(
                            new Recommendation(
                                    9,
                                    Mode.FAN_IN,
                                    0,
                                    0,
                                    -1,
                                    0,
                                    12,
                                    2,
                                    3,
                                    "sends nothing, receives from 2 sources"));
            // A sender whose top link is just under half: spread; just over: a hot destination.
            map.record(1, 3, 5);
            map.record(1, 4, 3);
            map.record(1, 2, 3);
            assertThat(map.recommend(1))
                    .isEqualTo(
                            new Recommendation(
                                    1,
                                    Mode.FAN_OUT,
                                    11,
                                    3,
                                    3,
                                    5,
                                    0,
                                    0,
                                    3,
                                    "load spread over 3 destinations, the heaviest takes 5 of 11"));
            map.record(1, 3, 1); // 6 of 12: half is no majority
            assertThat(map.recommend(1).mode()).isEqualTo(Mode.FAN_OUT);
            map.record(1, 3, 1);
            Recommendation hot = map.recommend(1);
            assertThat(hot.mode()).isEqualTo(Mode.FAN_IN);
            assertThat(hot.reason()).isEqualTo("destination 3 takes 7 of 13, a majority");
            // A sender that also receives: its sending decides, its receiving is reported.
            map.record(7, 1, 2);
            map.record(8, 1, 2);
            Recommendation both = map.recommend(1);
            assertThat(both.mode()).isEqualTo(Mode.FAN_IN);
            assertThat(both.inLoad()).isEqualTo(4);
            assertThat(both.sources()).isEqualTo(2);
            assertThat(both.destinations()).isEqualTo(3);
        }
    }

    @Test
    void readersListOnlyLinksWithLoadLeftHeaviestFirstTiesByLowestId() {
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(
                        dir.resolve("t.cxc"), new SharedTopologyMap.Settings(16))) {
            map.record(1, 9, 4);
            map.record(1, 2, 4);
            map.record(1, 5, 7);
            map.record(1, 6, 0); // held, never loaded
            map.record(3, 5, 4);
            map.record(0, 5, 4);
            assertThat(map.fanOut(1)).extracting(Link::destination).containsExactly(5, 2, 9);
            assertThat(map.fanIn(5)).extracting(Link::source).containsExactly(1, 0, 3);
            assertThat(map.fanIn(6)).isEmpty();
            assertThat(map.linkCount()).isEqualTo(6);
            assertThat(map.fanOut(2)).isEmpty();
            assertThat(map.fanIn(1)).isEmpty();
        }
    }

    @Test
    void eachOpIsCountedOnceAndDescribeSaysLinksCapacityAndEpoch() {
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(
                        dir.resolve("t.cxc"), new SharedTopologyMap.Settings(16))) {
            map.record(1, 2, 1);
            map.record(1, 3, 1);
            map.fanOut(1);
            map.fanIn(2);
            map.fanIn(2);
            map.recommend(1);
            map.advanceEpoch();
            assertThat(map.opCounters().get(SharedTopologyMap.Op.RECORD)).isEqualTo(2);
            assertThat(map.opCounters().get(SharedTopologyMap.Op.FAN_OUT)).isEqualTo(1);
            assertThat(map.opCounters().get(SharedTopologyMap.Op.FAN_IN)).isEqualTo(2);
            assertThat(map.opCounters().get(SharedTopologyMap.Op.RECOMMEND)).isEqualTo(1);
            assertThat(map.opCounters().get(SharedTopologyMap.Op.ADVANCE_EPOCH)).isEqualTo(1);
            assertThat(map.describe())
                    .containsEntry("links", 2)
                    .containsEntry("capacity", 16)
                    .containsEntry("epoch", 1L);
            assertThat(map.capacity()).isEqualTo(16);
        }
    }

    @Test
    void badArgumentsAndSettingsAreNamedWithTheirLimits() {
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(
                        dir.resolve("t.cxc"), new SharedTopologyMap.Settings(4))) {
            assertThatThrownBy(() -> map.record(1, -2, 5))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("destination -2 is negative; node ids and loads are 0 or more");
            assertThatThrownBy(() -> map.record(-1, -2, -3))
                    .hasMessage("load -3 is negative; node ids and loads are 0 or more");
            assertThatThrownBy(() -> map.record(-1, -2, 3))
                    .hasMessage("source -1 is negative; node ids and loads are 0 or more");
            assertThat(map.opCounters().get(SharedTopologyMap.Op.RECORD)).isZero();
            assertThat(map.linkCount()).isZero();
        }
        assertThatThrownBy(() -> new SharedTopologyMap.Settings(0))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity 0 is outside 1.." + MAX_CAPACITY + " links");
        assertThatThrownBy(() -> new SharedTopologyMap.Settings(MAX_CAPACITY + 1))
                .hasMessageContaining("capacity " + (MAX_CAPACITY + 1) + " is outside");
        assertThat(new SharedTopologyMap.Settings(1).capacity()).isEqualTo(1);
        assertThat(new SharedTopologyMap.Settings(MAX_CAPACITY).capacity()).isEqualTo(MAX_CAPACITY);
        assertThat(bodyLength(1, SLOT_LENGTH)).isEqualTo(128);
        assertThat(bodyLength(2, SLOT_LENGTH)).isEqualTo(128);
        assertThat(bodyLength(3, SLOT_LENGTH)).isEqualTo(192);
        assertThat(bodyLength(MAX_CAPACITY, SLOT_LENGTH))
                .isEqualTo(SLOTS_OFFSET + (long) MAX_CAPACITY * SLOT_LENGTH);
        assertThatThrownBy(() -> bodyLength(0, SLOT_LENGTH))
                .hasMessage("capacity 0 is outside 1.." + MAX_CAPACITY + " links");
        assertThatThrownBy(() -> bodyLength(MAX_CAPACITY + 1, SLOT_LENGTH))
                .hasMessageContaining("is outside 1..");
        assertThatThrownBy(() -> bodyLength(1, SLOT_LENGTH + 1))
                .hasMessage("slot size 33, must be 32");
    }

    @Test
    void everyOpenerFindsTheSameLinks() {
        Path path = dir.resolve("t.cxc");
        try (SharedTopologyMap created =
                SharedTopologyMap.openOrCreate(path, new SharedTopologyMap.Settings(8))) {
            created.record(1, 2, 3);
            assertThat(created.createdFile()).isTrue();
            try (SharedTopologyMap opened =
                            SharedTopologyMap.open(path, new SharedTopologyMap.Settings(8));
                    SharedTopologyMap again =
                            SharedTopologyMap.openOrCreate(
                                    path, new SharedTopologyMap.Settings(8))) {
                assertThat(opened.fanOut(1)).containsExactly(new Link(1, 2, 3, 1));
                assertThat(again.createdFile()).isFalse();
                assertThat(again.fanIn(2)).containsExactly(new Link(1, 2, 3, 1));
            }
        }
    }
}
