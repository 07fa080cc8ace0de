package io.subetha.cxc.liveness;

import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.OWNER_WORD_OFFSET;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.STATE_CLAIMING;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.STATE_FREE;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.WORK_ID_OFFSET;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.entryOffset;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.packClaimWord;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.packOwnerWord;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.state;
import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.tag;
import static io.subetha.cxc.liveness.HeartbeatTableTest.DEAD_PID;
import static io.subetha.cxc.liveness.HeartbeatTableTest.ME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watchdog's moves at their exact steps: an assigner held between its claim CAS and its work id
 * ({@link Point#ENTRY_CLAIMED}), an entry written under a held claim, a pool filled by a reclaim,
 * where a slot's work lands, a claim whose PID equals the slot's generation, calls naming a slot
 * outside the table (refused before they are counted), and each CAS of assign, complete and scan
 * lost to another handle between its read and its CAS ({@link Point#WATCHDOG_ENTRY_JUDGED}).
 */
class WatchdogClaimStepsTest {

    @TempDir Path dir;

    private HeartbeatTable table(int capacity) {
        return HeartbeatTable.TYPE.create(
                dir.resolve("heartbeat.cxc"), new HeartbeatTable.Settings(capacity));
    }

    private FailoverWatchdog watchdog(HeartbeatTable table, int workPerSlot) {
        return FailoverWatchdog.openOrCreate(
                dir.resolve("watchdog.cxc"), table, workPerSlot, CxcFileOptions.defaults());
    }

    /** Registers {@code pid} in free slot {@code slot} under generation {@code generation}. */
    private static int registerUnderGeneration(
            HeartbeatTable table, int slot, long pid, long generation) {
        // A freed owner word keeps its key, and the next claim installs key + 1.
        RawBody.of(table.file())
                .setLongVolatile(
                        HeartbeatTableDescriptor.slotOffset(slot)
                                + HeartbeatTableDescriptor.OWNER_WORD_OFFSET,
                        OwnerRecord.ownerWord(OwnerRecord.NO_OWNER, generation - 1));
        int registered = table.register(pid);
        assertThat(registered).isEqualTo(slot);
        assertThat(table.snapshot(slot).orElseThrow().generation()).isEqualTo((int) generation);
        return registered;
    }

    private static StepGate<Void> assignHeld(FailoverWatchdog watchdog, int slot, long workId) {
        return StepGate.holdAt(
                Point.ENTRY_CLAIMED,
                () -> {
                    watchdog.assign(slot, workId);
                    return null;
                });
    }

    @Test
    void aSlotOutsideTheTableIsRefusedBeforeTheCallIsCounted() {
        try (HeartbeatTable table = table(3);
                FailoverWatchdog watchdog = watchdog(table, 4)) {
            for (int slot : new int[] {-1, 3}) {
                assertThatThrownBy(() -> watchdog.assign(slot, 1))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("slot " + slot + " is outside 0..2");
                assertThatThrownBy(() -> watchdog.complete(slot, 1))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("slot " + slot + " is outside 0..2");
                assertThatThrownBy(() -> watchdog.workOf(slot))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("slot " + slot + " is outside 0..2");
            }
            assertThat(watchdog.opCounts())
                    .containsEntry("assign", 0L)
                    .containsEntry("complete", 0L)
                    .containsEntry("read", 0L);
        }
    }

    @Test
    void aClaimingEntryStillHoldingACompletedIdDoesNotMakeThatIdOwned() {
        try (HeartbeatTable table = table(1);
                FailoverWatchdog watchdog = watchdog(table, 4)) {
            int slot = table.register(ME);
            watchdog.assign(slot, 9);
            assertThat(watchdog.complete(slot, 9)).isTrue();

            // The freed entry keeps 9 in its work-id field; the held assigner claims it again.
            try (StepGate<Void> held = assignHeld(watchdog, slot, 5)) {
                AtomicBuffer raw = RawBody.of(watchdog.file());
                assertThat(state(raw.getLongVolatile(entryOffset(0) + OWNER_WORD_OFFSET)))
                        .isEqualTo(STATE_CLAIMING);
                assertThat(raw.getLongVolatile(entryOffset(0) + WORK_ID_OFFSET)).isEqualTo(9L);

                watchdog.assign(slot, 9);
                held.release();
            }

            assertThat(watchdog.workOf(slot)).containsExactlyInAnyOrder(5L, 9L);
        }
    }

    @Test
    void aHeldClaimDoesNotCountAgainstTheSlotsBoundEvenWhenThePidEqualsTheGeneration() {
        try (HeartbeatTable table = table(2);
                FailoverWatchdog watchdog = watchdog(table, 1)) {
            // The claim word carries the assigner's PID where an owned word carries the
            // generation: make them equal, so only the state tells the claim apart.
            int slot = registerUnderGeneration(table, 0, ME, ME);
            try (StepGate<Void> held = assignHeld(watchdog, slot, 1)) {
                watchdog.assign(slot, 2);
                held.release();
            }

            assertThat(watchdog.workOf(slot)).containsExactlyInAnyOrder(1L, 2L);
        }
    }

    @Test
    void aCompletionLeavesAHeldClaimAloneEvenWhenThePidEqualsTheGenerationAndTheIdMatches() {
        try (HeartbeatTable table = table(1);
                FailoverWatchdog watchdog = watchdog(table, 2)) {
            int slot = registerUnderGeneration(table, 0, ME, ME);
            watchdog.assign(slot, 9);
            assertThat(watchdog.complete(slot, 9)).isTrue();
            // Entry 0 is claimed again, its work-id field still 9 and its claim word naming the
            // slot and, where an owned word has the generation, this PID: only the state differs.
            try (StepGate<Void> held = assignHeld(watchdog, slot, 5)) {
                assertThat(watchdog.complete(slot, 9)).isFalse();
                held.release();
            }
            assertThat(watchdog.workOf(slot)).containsExactly(5L);
        }
    }

    @Test
    void anEntryWrittenUnderAHeldClaimFailsTheAssignNamingTheForeignWriter() {
        try (HeartbeatTable table = table(1);
                FailoverWatchdog watchdog = watchdog(table, 2)) {
            int slot = table.register(ME);
            AtomicBuffer raw = RawBody.of(watchdog.file());
            long foreign;
            try (StepGate<Void> held = assignHeld(watchdog, slot, 7)) {
                long claim = raw.getLongVolatile(entryOffset(0) + OWNER_WORD_OFFSET);
                assertThat(claim).isEqualTo(packClaimWord(tag(claim), slot, ME));
                foreign = packOwnerWord(tag(claim), STATE_FREE, 0, 0);
                raw.setLongVolatile(entryOffset(0) + OWNER_WORD_OFFSET, foreign);

                assertThatThrownBy(held::release)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("entry 0 of")
                        .hasMessageContaining("changed while this process held its claim");
            }
            assertThat(raw.getLongVolatile(entryOffset(0) + OWNER_WORD_OFFSET)).isEqualTo(foreign);
            assertThat(watchdog.workOf(slot)).isEmpty();
        }
    }

    @Test
    void aPoolFilledByAReclaimRefusesASlotUnderItsBoundNamingThePool() {
        try (HeartbeatTable table = table(2);
                FailoverWatchdog watchdog = watchdog(table, 1)) {
            int live = table.register(ME);
            int dead = table.register(DEAD_PID);
            watchdog.assign(live, 1);
            watchdog.assign(dead, 2);
            assertThat(watchdog.scan().moves())
                    .containsExactly(new ReclaimReport.WorkMove(2, dead, DEAD_PID, live, ME));
            // Both entries are the survivor's now; the dead slot's new holder owns nothing.
            assertThat(table.register(ME)).isEqualTo(dead);
            assertThat(watchdog.workOf(dead)).isEmpty();

            assertThatThrownBy(() -> watchdog.assign(dead, 3))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("has no free work entry: all 2 (2 slots × 1)");
            assertThat(watchdog.workOf(live)).containsExactlyInAnyOrder(1L, 2L);
        }
    }

    @Test
    void eachSlotsWorkStartsInItsOwnRegionOfThePool() {
        try (HeartbeatTable table = table(3);
                FailoverWatchdog watchdog = watchdog(table, 4)) {
            table.register(ME);
            table.register(ME);
            int last = table.register(ME);
            watchdog.assign(last, 100);
            watchdog.assign(0, 200);

            AtomicBuffer raw = RawBody.of(watchdog.file());
            assertThat(raw.getLongVolatile(entryOffset(last * 4) + WORK_ID_OFFSET)).isEqualTo(100L);
            assertThat(raw.getLongVolatile(entryOffset(0) + WORK_ID_OFFSET)).isEqualTo(200L);
            assertThat(watchdog.assignments())
                    .extracting(WorkAssignment::workId)
                    .containsExactly(200L, 100L);
        }
    }

    @Test
    void aDeadAssignersClaimOnALiveSlotOfItsPidsGenerationIsFreedAndIsNoLoad() {
        try (HeartbeatTable table = table(3);
                FailoverWatchdog watchdog = watchdog(table, 2)) {
            int dead = table.register(DEAD_PID);
            // A live slot whose generation equals the dead assigner's PID, holding its claim:
            // the claim word then reads like work the live slot owns, but for its state.
            int claimed = registerUnderGeneration(table, 1, ME, DEAD_PID);
            int other = table.register(ME);
            watchdog.assign(dead, 42);
            AtomicBuffer raw = RawBody.of(watchdog.file());
            int entry = claimed * 2;
            raw.setLongVolatile(
                    entryOffset(entry) + OWNER_WORD_OFFSET, packClaimWord(1, claimed, DEAD_PID));

            ReclaimReport report = watchdog.scan();

            assertThat(report.abandonedClaims()).isEqualTo(1);
            assertThat(state(raw.getLongVolatile(entryOffset(entry) + OWNER_WORD_OFFSET)))
                    .isEqualTo(STATE_FREE);
            // The claim was no load on its slot: the tie goes to the lower of the two live slots.
            assertThat(report.moves())
                    .containsExactly(new ReclaimReport.WorkMove(42, dead, DEAD_PID, claimed, ME));
            assertThat(watchdog.workOf(other)).isEmpty();
            assertThat(watchdog.assignments())
                    .containsExactly(
                            new WorkAssignment(
                                    42,
                                    claimed,
                                    table.snapshot(claimed).orElseThrow().generation()));
            assertThat(List.of(claimed, other)).containsExactly(1, 2);
        }
    }

    @Test
    void anAssignerWhoseClaimLosesTheEntryGoesOnToTheNextFreeOne() {
        try (HeartbeatTable table = table(1);
                FailoverWatchdog watchdog = watchdog(table, 2)) {
            int slot = table.register(ME);
            try (StepGate<Void> held =
                    StepGate.holdAt(
                            Point.WATCHDOG_ENTRY_JUDGED,
                            () -> {
                                watchdog.assign(slot, 1);
                                return null;
                            })) {
                // The held assigner judged entry 0 free; another handle claims it first.
                watchdog.assign(slot, 2);
                held.release();
            }

            AtomicBuffer raw = RawBody.of(watchdog.file());
            assertThat(raw.getLongVolatile(entryOffset(0) + WORK_ID_OFFSET)).isEqualTo(2L);
            assertThat(raw.getLongVolatile(entryOffset(1) + WORK_ID_OFFSET)).isEqualTo(1L);
            assertThat(watchdog.workOf(slot)).containsExactly(2L, 1L);
        }
    }

    @Test
    void aCompletionWhoseCasLosesToAnotherCompletionIsFalse() {
        try (HeartbeatTable table = table(1);
                FailoverWatchdog watchdog = watchdog(table, 2)) {
            int slot = table.register(ME);
            watchdog.assign(slot, 1);
            try (StepGate<Boolean> held =
                    StepGate.holdAt(
                            Point.WATCHDOG_ENTRY_JUDGED, () -> watchdog.complete(slot, 1))) {
                assertThat(watchdog.complete(slot, 1)).isTrue();
                assertThat(held.release()).isFalse();
            }
            assertThat(watchdog.ownerOf(1)).isEmpty();
        }
    }

    @Test
    void aScanWhoseFreeingOfAnAbandonedClaimLosesCountsNoClaim() {
        try (HeartbeatTable table = table(1);
                FailoverWatchdog watchdog = watchdog(table, 2)) {
            int live = table.register(ME);
            AtomicBuffer raw = RawBody.of(watchdog.file());
            raw.setLongVolatile(
                    entryOffset(0) + OWNER_WORD_OFFSET, packClaimWord(1, live, DEAD_PID));
            try (StepGate<ReclaimReport> held =
                    StepGate.holdAt(Point.WATCHDOG_ENTRY_JUDGED, () -> watchdog.scan())) {
                assertThat(watchdog.scan().abandonedClaims()).isEqualTo(1);
                assertThat(held.release().abandonedClaims()).isZero();
            }
            assertThat(state(raw.getLongVolatile(entryOffset(0) + OWNER_WORD_OFFSET)))
                    .isEqualTo(STATE_FREE);
        }
    }

    @Test
    void aScanWhoseMoveLosesToAnotherScannerReportsNoMove() {
        try (HeartbeatTable table = table(2);
                FailoverWatchdog watchdog = watchdog(table, 2)) {
            int dead = table.register(DEAD_PID);
            int live = table.register(ME);
            watchdog.assign(dead, 7);
            try (StepGate<ReclaimReport> held =
                    StepGate.holdAt(Point.WATCHDOG_ENTRY_JUDGED, () -> watchdog.scan())) {
                assertThat(watchdog.scan().moves())
                        .containsExactly(new ReclaimReport.WorkMove(7, dead, DEAD_PID, live, ME));
                assertThat(held.release().moves()).isEmpty();
            }
            assertThat(watchdog.workOf(live)).containsExactly(7L);
            assertThat(watchdog.assignments()).hasSize(1);
        }
    }
}
