package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * What a taker does at each state it can meet at a level's head, planted in the file: a head still
 * being written with nothing committed behind it (go lower) and with an item committed behind it
 * (return nothing, not a lower item), a head another taker won but did not move past (help it), a
 * slot of the previous lap (not yet written); returned items lowest position first, and the hint
 * left high by a crash (a look behind the head, never an item); a table of live participants (a
 * capacity error); and the depth and description derived from the words. A look behind the head
 * takes neither a live claim nor the next lap's item; a claim that met a head being written keeps
 * the level of what it took; a submit helps the tail past a slot a killed submitter reserved; and a
 * handle whose look found nothing still takes an item returned afterwards ahead of later ones.
 */
class FanoutTakeStepsTest {

    static final int CAPACITY = 4;
    static final int LEVEL = 3;
    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long PID = ProcessHandle.current().pid();

    @TempDir Path dir;
    Path path;
    PriorityFanout<Long> fanout;
    AtomicBuffer raw;
    final List<PriorityFanout<Long>> others = new ArrayList<>();

    @BeforeEach
    void open() {
        path = dir.resolve("f.cxc");
        fanout =
                PriorityFanout.TYPE.create(
                        path,
                        new PriorityFanout.Settings<>(
                                CAPACITY, FixedCodec.INT64, Duration.ofDays(1)),
                        CxcFileOptions.defaults());
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        fanout.close();
        others.forEach(PriorityFanout::close);
    }

    /** Another handle on the file, closed after the test. */
    PriorityFanout<Long> another() {
        PriorityFanout<Long> h =
                PriorityFanout.TYPE.open(
                        path,
                        new PriorityFanout.Settings<>(
                                CAPACITY, FixedCodec.INT64, Duration.ofDays(1)),
                        CxcFileOptions.defaults());
        others.add(h);
        return h;
    }

    long hint(int priority) {
        return raw.getLongVolatile(levelOffset(priority) + RETURNED_OFFSET);
    }

    static int slot(int priority, long position) {
        return SLOTS_OFFSET + (priority * CAPACITY + (int) (position % CAPACITY)) * slotStride(8);
    }

    /** A slot word naming this handle's participant (record 0, the first free, once registered). */
    long mine(long lap, int state) {
        long key = OwnerRecord.key(OwnerRecord.ownerWord(raw, participantOffset(0)));
        return pack(lap, state, 0, key);
    }

    @Test
    void aHeadBeingWrittenWithNothingCommittedBehindItLetsTheTakerGoLower() {
        fanout.submit(0, 1L); // registers this handle; its slot word names it
        fanout.submit(0, 2L);
        raw.setLongVolatile(slot(5, 0), mine(0, WRITING));
        raw.setLongVolatile(levelOffset(5) + TAIL_OFFSET, 1);
        assertThat(fanout.drainHighest(1)).containsExactly(1L);
        FanoutClaim<Long> claim = fanout.claimHighest(1);
        assertThat(claim.priority()).isZero();
        assertThat(claim.items()).containsExactly(2L);
        claim.ack();
        assertThat(fanout.depth(5)).isEqualTo(1);
    }

    @Test
    void aHeadBeingWrittenWithAnItemCommittedBehindItHoldsTheLowerLevels() {
        fanout.submit(0, 1L);
        raw.setLongVolatile(slot(5, 0), mine(0, WRITING));
        raw.setLongVolatile(levelOffset(5) + TAIL_OFFSET, 1);
        fanout.submit(5, 50L); // committed behind the head being written
        assertThat(raw.getLongVolatile(levelOffset(5) + TAIL_OFFSET)).isEqualTo(2);
        assertThat(fanout.drainHighest(4)).isEmpty();
        FanoutClaim<Long> claim = fanout.claimHighest(4);
        assertThat(claim.isEmpty()).isTrue();
        assertThat(claim.priority()).isEqualTo(-1);
        assertThat(fanout.drainPriority(0, 4)).containsExactly(1L); // asked for by name: taken
        // The write completes: both come out in order.
        FixedCodec.INT64.write(raw, slot(5, 0) + PAYLOAD_OFFSET, 49L);
        raw.setLongVolatile(slot(5, 0), mine(0, FULL));
        assertThat(fanout.drainHighest(4)).containsExactly(49L, 50L);
    }

    @Test
    void aHeadWonByAnotherTakerWhoDidNotMovePastItIsHelpedAndSkipped() {
        fanout.submit(3, 1L);
        fanout.submit(3, 2L);
        raw.setLongVolatile(slot(3, 0), mine(0, CLAIMED));
        assertThat(fanout.drainHighest(4)).containsExactly(2L);
        assertThat(raw.getLongVolatile(levelOffset(3) + HEAD_OFFSET)).isEqualTo(2);
    }

    @Test
    void aReservationItsTakerDoesNotCompleteIsUndoneNotPassedOver() {
        fanout.submit(4, 3L);
        fanout.submit(4, 4L);
        // A taker reserved position 0 and stopped before deciding whether its take stands.
        raw.setLongVolatile(slot(4, 0), mine(0, TAKING));
        assertThat(fanout.drainPriority(4, 4)).containsExactly(3L, 4L);
        assertThat(raw.getLongVolatile(levelOffset(4) + HEAD_OFFSET)).isEqualTo(2);
        assertThat(raw.getLongVolatile(slot(4, 0))).isEqualTo(empty(1));
    }

    @Test
    void aHeadSlotStillHoldingThePreviousLapIsNotYetWritten() {
        for (long i = 0; i < CAPACITY; i++) {
            fanout.submit(2, i);
        }
        FanoutClaim<Long> first = fanout.claimHighest(1); // position 0, held
        assertThat(first.items()).containsExactly(0L);
        assertThat(fanout.drainHighest(CAPACITY)).containsExactly(1L, 2L, 3L);
        // Lap 1 begins at position 4 (slot 0), whose lap-0 claim is still held: the level is
        // full, and nothing is taken from it.
        assertThat(fanout.trySubmit(2, 9L)).isFalse();
        assertThat(fanout.drainHighest(CAPACITY)).isEmpty();
        first.ack();
        assertThat(fanout.trySubmit(2, 9L)).isTrue();
        assertThat(fanout.drainHighest(CAPACITY)).containsExactly(9L);
        assertThat(raw.getLongVolatile(slot(2, 0))).isEqualTo(empty(2));
    }

    @Test
    void aReturnedItemsHintLeftHighByACrashCostsALookNotAnItem() {
        raw.setLongVolatile(levelOffset(6) + RETURNED_OFFSET, 3);
        fanout.submit(6, 1L);
        fanout.submit(6, 2L);
        assertThat(fanout.drainHighest(4)).containsExactly(1L, 2L);
        assertThat(raw.getLongVolatile(levelOffset(6) + RETURNED_OFFSET)).isEqualTo(3);
        assertThat(fanout.depth(6)).isZero(); // the returned items are counted, not the hint
        fanout.scan();
        fanout.submit(6, 3L);
        assertThat(fanout.claimHighest(4).items()).containsExactly(3L);
    }

    @Test
    void returnedItemsAreTakenLowestPositionFirstAndTheHintLowered() {
        for (long i = 1; i <= 3; i++) {
            fanout.submit(1, i);
        }
        FanoutClaim<Long> claim = fanout.claimHighest(3);
        fanout.submit(1, 4L);
        assertThat(claim.release()).isEqualTo(3);
        assertThatThrownBy(claim::release)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "cannot release this claim of 3 items: it was already acknowledged or"
                                + " released");
        assertThat(fanout.depth(1)).isEqualTo(4);
        assertThat(fanout.drainHighest(2)).containsExactly(1L, 2L);
        assertThat(raw.getLongVolatile(levelOffset(1) + RETURNED_OFFSET)).isEqualTo(1);
        assertThat(fanout.drainHighest(2)).containsExactly(3L, 4L);
        assertThat(raw.getLongVolatile(levelOffset(1) + RETURNED_OFFSET)).isZero();
        assertThat(fanout.depth(1)).isZero();
    }

    @Test
    void everyParticipantRecordHeldByALiveHandleIsACapacityErrorAndADeadOnesIsFreedFirst() {
        try (PriorityFanout<Long> other =
                PriorityFanout.open(
                        path, new PriorityFanout.Settings<>(CAPACITY, FixedCodec.INT64))) {
            for (int r = 0; r < MAX_PARTICIPANTS; r++) {
                int record = participantOffset(r);
                raw.setLongVolatile(record + OwnerRecord.HEARTBEAT_OFFSET, System.nanoTime());
                raw.setLongVolatile(
                        record + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.ownerWord(PID, 1));
            }
            assertThatThrownBy(() -> other.submit(0, 1L))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessage(
                            path
                                    + " has no free participant record: all 128 are held by live"
                                    + " handles; close handles you no longer use");
            assertThat(other.describe()).containsEntry("participants", MAX_PARTICIPANTS);
            raw.setLongVolatile(
                    participantOffset(77) + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(DEAD_PID, 1));
            other.submit(0, 1L);
            assertThat(participant(raw.getLongVolatile(slot(0, 0)))).isEqualTo(77);
            assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(raw, participantOffset(77))))
                    .isEqualTo(PID);
            assertThat(OwnerRecord.key(OwnerRecord.ownerWord(raw, participantOffset(77))))
                    .isEqualTo(2);
            for (int r = 0; r < MAX_PARTICIPANTS; r++) {
                raw.setLongVolatile(participantOffset(r) + OwnerRecord.OWNER_WORD_OFFSET, 0);
            }
        }
    }

    @Test
    void depthAndDescribeComeFromTheLevelWords() {
        fanout.submit(7, 1L);
        fanout.submit(7, 2L);
        fanout.submit(0, 3L);
        assertThat(fanout.depth(7)).isEqualTo(2);
        raw.setLongVolatile(levelOffset(7) + RETURNED_OFFSET, -5);
        assertThat(fanout.depth(7)).isEqualTo(2);
        raw.setLongVolatile(levelOffset(7) + RETURNED_OFFSET, 0);
        raw.setLongVolatile(levelOffset(3) + HEAD_OFFSET, 9); // head past tail: none, not -9
        assertThat(fanout.depth(3)).isZero();
        raw.setLongVolatile(levelOffset(3) + HEAD_OFFSET, 0);
        assertThat(fanout.describe())
                .containsEntry("capacityPerPriority", CAPACITY)
                .containsEntry("itemBytes", 8)
                .containsEntry("depth", 3L)
                .containsEntry("depthByPriority", List.of(1L, 0L, 0L, 0L, 0L, 0L, 0L, 2L))
                .containsEntry("participants", 1)
                .containsEntry("graceMillis", Duration.ofDays(1).toMillis());
        assertThat(fanout.grace()).isEqualTo(Duration.ofDays(1));
        assertThat(fanout.capacityPerPriority()).isEqualTo(CAPACITY);
        assertThat(fanout.opCounters().get(PriorityFanout.Op.SUBMIT)).isEqualTo(3);
        fanout.drainPriority(7, 1);
        fanout.drainHighest(1);
        fanout.claimHighest(1).ack();
        fanout.scan();
        assertThat(fanout.opCounters().get(PriorityFanout.Op.DRAIN_PRIORITY)).isEqualTo(1);
        assertThat(fanout.opCounters().get(PriorityFanout.Op.DRAIN_HIGHEST)).isEqualTo(1);
        assertThat(fanout.opCounters().get(PriorityFanout.Op.CLAIM)).isEqualTo(1);
        assertThat(fanout.opCounters().get(PriorityFanout.Op.ACK)).isEqualTo(1);
        assertThat(fanout.opCounters().get(PriorityFanout.Op.SCAN)).isGreaterThanOrEqualTo(1);
        assertThat(fanout.depth(7)).isZero();
        assertThat(fanout.depth(0)).isZero();
    }

    @Test
    void theSlotWordPacksLapStateParticipantAndGeneration() {
        long word = pack(0x1_2345_6789L, ABANDONED, 127, (1L << 22) + 5);
        assertThat(lapTag(word)).isEqualTo(0x2345_6789L);
        assertThat(state(word)).isEqualTo(ABANDONED);
        assertThat(participant(word)).isEqualTo(127);
        assertThat(generation(word)).isEqualTo(5);
        assertThat(generationTag((1L << 22) + 5)).isEqualTo(5);
        assertThat(empty(0x1_0000_0002L)).isEqualTo(2);
        assertThat(slotStride(1)).isEqualTo(24);
        assertThat(slotStride(9)).isEqualTo(32);
        assertThat(slotStride(0)).isEqualTo(24);
        assertThat(STATE_NAMES[CLAIMED]).isEqualTo("CLAIMED");
    }

    @Test
    void aLookBehindTheHeadTakesNeitherALiveClaimNorTheNextLapsItem() {
        PriorityFanout<Long> live = another();
        fanout.submit(LEVEL, 1L);
        fanout.submit(LEVEL, 2L);
        assertThat(fanout.drainHighest(1)).containsExactly(1L);
        FanoutClaim<Long> claim = live.claimHighest(1);
        assertThat(claim.items()).containsExactly(2L);
        fanout.submit(LEVEL, 3L);
        fanout.submit(LEVEL, 4L);
        fanout.submit(LEVEL, 5L); // position 4: slot 0 again, lap 1, behind the head by slot
        raw.setLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET, 1); // left high by a crash

        assertThat(fanout.drainHighest(1)).containsExactly(3L);

        assertThat(state(raw.getLongVolatile(slot(LEVEL, 1)))).isEqualTo(CLAIMED);
        assertThat(hint(LEVEL)).isEqualTo(1);
        assertThat(claim.ack()).isTrue();
        assertThat(fanout.drainHighest(5)).containsExactly(4L, 5L);
    }

    @Test
    void aClaimThatMetAHeadBeingWrittenKeepsTheLevelOfWhatItTook() {
        fanout.submit(LEVEL, 1L);
        fanout.submit(LEVEL, 2L);
        fanout.submit(LEVEL, 3L);
        // Position 1 back to WRITING: a writer stopped mid-payload, position 2 committed behind it.
        long written = raw.getLongVolatile(slot(LEVEL, 1));
        raw.setLongVolatile(slot(LEVEL, 1), pack(0, WRITING, 9, 1));

        FanoutClaim<Long> claim = fanout.claimHighest(3);

        assertThat(claim.items()).containsExactly(1L);
        assertThat(claim.priority()).isEqualTo(LEVEL);
        assertThat(claim.isEmpty()).isFalse();
        assertThat(claim.ack()).isTrue();
        raw.setLongVolatile(slot(LEVEL, 1), written);
        assertThat(fanout.drainHighest(5)).containsExactly(2L, 3L);
    }

    @Test
    void aSubmitHelpsTheTailPastASlotReservedByASubmitterKilledBeforeMovingIt() {
        raw.setLongVolatile(slot(LEVEL, 0), pack(0, WRITING, 9, 1));

        fanout.submit(LEVEL, 4L);

        assertThat(raw.getLongVolatile(levelOffset(LEVEL) + TAIL_OFFSET)).isEqualTo(2);
        assertThat(state(raw.getLongVolatile(slot(LEVEL, 1)))).isEqualTo(FULL);
        raw.setLongVolatile(slot(LEVEL, 0), pack(0, ABANDONED, 0, 0));
        assertThat(fanout.drainHighest(5)).containsExactly(4L);
    }

    /**
     * A handle whose look behind the head found nothing (the returned-items hint left high, as a
     * crash leaves it) still takes an item another handle returns afterwards ahead of the level's
     * later items: it looks again once the hint moves, not only after its own next scan.
     */
    @Nested
    class AfterAnEmptyLookBehindTheHead {

        static final int CAPACITY = 8;
        static final int LEVEL = 2;

        @TempDir Path dir;
        Path path;
        final List<PriorityFanout<Long>> handles = new ArrayList<>();
        AtomicBuffer raw;

        @BeforeEach
        void open() {
            path = dir.resolve("fanout.cxc");
            handle();
            raw = RawBody.of(path);
        }

        @AfterEach
        void close() {
            handles.forEach(PriorityFanout::close);
        }

        PriorityFanout<Long> handle() {
            PriorityFanout<Long> h =
                    PriorityFanout.TYPE.openOrCreate(
                            path,
                            new PriorityFanout.Settings<>(
                                    CAPACITY, FixedCodec.INT64, Duration.ofDays(1)),
                            CxcFileOptions.defaults());
            handles.add(h);
            return h;
        }

        long hint() {
            return raw.getLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET);
        }

        int slot(long position) {
            return SLOTS_OFFSET + (LEVEL * CAPACITY + (int) (position % CAPACITY)) * slotStride(8);
        }

        @Test
        void anItemAnotherHandleReleasesAfterAnEmptyLookIsTakenAheadOfLaterItems() {
            PriorityFanout<Long> taker = handles.get(0);
            PriorityFanout<Long> other = handle();
            raw.setLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET, 1); // left high by a crash
            assertThat(taker.drainHighest(1)).isEmpty(); // its look behind the head finds nothing
            taker.submit(LEVEL, 10L);
            FanoutClaim<Long> claim = other.claimHighest(1);
            assertThat(claim.items()).containsExactly(10L);
            assertThat(claim.release()).isEqualTo(1);
            assertThat(hint()).isEqualTo(2);
            taker.submit(LEVEL, 11L);

            assertThat(taker.drainHighest(1)).containsExactly(10L);

            assertThat(hint()).isEqualTo(1);
            assertThat(taker.drainHighest(1)).containsExactly(11L);
        }

        @Test
        void aHandleWhoseLookFoundNothingTakesLaterItemsAtTheHeadWhileTheHintStaysPut() {
            PriorityFanout<Long> taker = handles.get(0);
            raw.setLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET, 1);
            assertThat(taker.drainHighest(1)).isEmpty();
            taker.submit(LEVEL, 20L);
            taker.submit(LEVEL, 21L);

            assertThat(taker.drainHighest(2)).containsExactly(20L, 21L);

            assertThat(hint())
                    .isEqualTo(1); // the crash's residue: no take behind the head lowered it
        }

        @Test
        void aReturnTheEmptyLookRacedIsTakenAfterTheHandlesNextScan() {
            PriorityFanout<Long> taker = handles.get(0);
            PriorityFanout<Long> other = handle();
            taker.submit(LEVEL, 30L);
            FanoutClaim<Long> claim = other.claimHighest(1);
            assertThat(claim.items()).containsExactly(30L);
            raw.setLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET, 1); // the return's raise ...
            assertThat(taker.drainHighest(1)).isEmpty(); // ... read by a look that found nothing
            long claimed = raw.getLongVolatile(slot(0));
            raw.setLongVolatile(slot(0), pack(0, FULL, 0, 0)); // ... then its CAS: the hint unmoved
            taker.submit(LEVEL, 31L);
            assertThat(claimed).isNotEqualTo(raw.getLongVolatile(slot(0)));

            assertThat(taker.drainHighest(1)).containsExactly(31L);
            taker.scan();
            assertThat(taker.drainHighest(1)).containsExactly(30L);
            assertThat(hint()).isZero();
        }
    }
}
