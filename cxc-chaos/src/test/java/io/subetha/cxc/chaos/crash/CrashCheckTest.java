package io.subetha.cxc.chaos.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The check catches each family's broken promise: the crash run's verdict can fail. */
class CrashCheckTest {

    static final long MS = 1_000_000;
    static final long LEASE = 300 * MS;

    final List<HistoryLine> lines = new ArrayList<>();
    final List<Fault> faults = new ArrayList<>();
    final List<EventTrail.Entry> trail = new ArrayList<>();
    FileFacts facts = clean();

    static FileFacts clean() {
        return new FileFacts(
                0, 0, 0, 0, 0, 0, 0, Fold.EMPTY, false, 0, 0, 0, 0, 4096, 0, 0, 1, 4096);
    }

    void line(long ms, int worker, Family family, String op, Object... fields) {
        List<String> f = new ArrayList<>();
        for (Object o : fields) {
            f.add(String.valueOf(o));
        }
        lines.add(new HistoryLine(ms * MS, worker, family, op, f));
    }

    List<Findings.Violation> check(Family family) {
        Findings findings =
                CrashCheck.check(
                        new Evidence(
                                new Histories(lines, 0),
                                faults,
                                EventTrail.of(trail, false),
                                facts));
        return findings.violations(family);
    }

    // ------------------------------------------------------------------------- scheduler

    void submitted(int worker, long id, long payload) {
        line(1, worker, Family.SCHEDULER, "submit-begin", payload);
        line(2, worker, Family.SCHEDULER, "submitted", id, payload);
    }

    @Test
    void aJobRecordedByTwoAttemptsIsCaught() {
        submitted(1, 0, 11);
        line(3, 2, Family.SCHEDULER, "completed", 0, 1, true);
        line(4, 3, Family.SCHEDULER, "completed", 0, 2, true);
        line(5, 3, Family.SCHEDULER, "collected", 0, 2, SchedulerLoad.resultOf(11));

        assertThat(check(Family.SCHEDULER)).anyMatch(v -> v.what().contains("recorded twice"));
    }

    @Test
    void anAcknowledgedJobNeverCollectedIsCaughtUnlessACollectorDiedInsideAPoll() {
        submitted(1, 0, 11);
        line(3, 2, Family.SCHEDULER, "completed", 0, 1, true);

        assertThat(check(Family.SCHEDULER)).anyMatch(v -> v.what().contains("never delivered"));

        line(4, 3, Family.SCHEDULER, "collect-begin");
        assertThat(check(Family.SCHEDULER)).isEmpty();
    }

    @Test
    void aResultCollectedTwiceOrWithAnotherJobsPayloadIsCaught() {
        submitted(1, 0, 11);
        submitted(1, 1, 12);
        line(5, 2, Family.SCHEDULER, "collected", 0, 1, SchedulerLoad.resultOf(11));
        line(6, 3, Family.SCHEDULER, "collected", 0, 1, SchedulerLoad.resultOf(11));
        line(7, 3, Family.SCHEDULER, "collected", 1, 1, SchedulerLoad.resultOf(11));

        assertThat(check(Family.SCHEDULER))
                .anyMatch(v -> v.what().contains("collected twice"))
                .anyMatch(v -> v.what().contains("submitted with payload 12"));
    }

    // ---------------------------------------------------------------------------- fan-out

    @Test
    void anItemAcknowledgedTwiceOrLostIsCaught() {
        line(1, 1, Family.FANOUT, "submit-begin", 0, 7);
        line(2, 1, Family.FANOUT, "submitted", 0, 7);
        line(1, 1, Family.FANOUT, "submit-begin", 0, 8);
        line(2, 1, Family.FANOUT, "submitted", 0, 8);
        line(3, 2, Family.FANOUT, "acked", 7, true);
        line(4, 3, Family.FANOUT, "acked", 7, true);

        assertThat(check(Family.FANOUT))
                .anyMatch(v -> v.what().contains("item 7 acknowledged twice"))
                .anyMatch(v -> v.what().contains("item 8 was submitted and never acknowledged"));
    }

    @Test
    void anItemWhoseAckerDiedInsideTheAckIsNotLost() {
        line(1, 1, Family.FANOUT, "submit-begin", 0, 8);
        line(2, 1, Family.FANOUT, "submitted", 0, 8);
        line(3, 2, Family.FANOUT, "claimed", 0, 8);
        line(4, 2, Family.FANOUT, "ack-begin", 8);

        assertThat(check(Family.FANOUT)).isEmpty();
    }

    // -------------------------------------------------------------------------- event log

    void emitted(int worker, long event, long sequence) {
        line(1, worker, Family.EVENTS, "emit-begin", event);
        line(2, worker, Family.EVENTS, "emitted", event);
        trail.add(new EventTrail.Entry(sequence, event));
    }

    void settle() {
        Fold all = Fold.EMPTY;
        for (EventTrail.Entry e : trail) {
            all = all.with(e.event());
        }
        facts = withEvents(trail.size(), trail.size(), 0, all);
    }

    FileFacts withEvents(long emitted, long folded, long gaps, Fold state) {
        FileFacts c = clean();
        return new FileFacts(
                0,
                0,
                0,
                0,
                emitted,
                folded,
                gaps,
                state,
                false,
                0,
                0,
                0,
                0,
                c.regionCapacity(),
                0,
                0,
                1,
                c.regionLargestFree());
    }

    @Test
    void aStateThatIsNotTheFoldOfAPrefixIsCaught() {
        long a = Load.id(1, 1);
        long b = Load.id(1, 2);
        emitted(1, a, 0);
        emitted(1, b, 1);
        settle();
        Fold twice = Fold.EMPTY.with(a).with(a); // a folded twice, count 2
        line(3, 2, Family.EVENTS, "drained", 2, twice.count(), twice.hash());

        assertThat(check(Family.EVENTS))
                .anyMatch(v -> v.what().contains("not the fold of the log's first 2"));
    }

    @Test
    void aMissingAcknowledgedEventAndAGapWithoutADyingEmitterAreCaught() {
        long a = Load.id(1, 1);
        emitted(1, a, 0);
        line(3, 1, Family.EVENTS, "emit-begin", Load.id(1, 2));
        line(4, 1, Family.EVENTS, "emitted", Load.id(1, 2));
        settle();
        facts = withEvents(2, 2, 1, facts.eventState());

        assertThat(check(Family.EVENTS))
                .anyMatch(v -> v.what().contains("acknowledged and is missing"))
                .anyMatch(v -> v.what().contains("1 gaps, but only 0 emitters died"));
    }

    @Test
    void aProducersEventsOutOfProgramOrderAreCaught() {
        emitted(1, Load.id(1, 2), 0);
        emitted(1, Load.id(1, 1), 1);
        settle();

        assertThat(check(Family.EVENTS)).anyMatch(v -> v.what().contains("after its later event"));
    }

    // ------------------------------------------------------------------------------ lease

    void acquired(int worker, long token, long atMs) {
        line(atMs, worker, Family.LEASE, "acquire-begin");
        lines.add(
                new HistoryLine(
                        atMs * MS + 1,
                        worker,
                        Family.LEASE,
                        "acquired",
                        List.of(
                                Long.toString(token),
                                Long.toString(atMs * MS),
                                Long.toString(LEASE))));
    }

    @Test
    void aLeaseTakenWhileSurelyHeldIsCaught() {
        acquired(1, 1, 10);
        acquired(2, 2, 100); // 100 ms in, the 300 ms lease neither released nor its holder killed
        line(200, 1, Family.LEASE, "release-begin", 1);

        assertThat(check(Family.LEASE)).anyMatch(v -> v.what().contains("acquired"));
    }

    @Test
    void aLeaseTakenAfterItsHolderWasKilledOrItExpiredIsFine() {
        acquired(1, 1, 10);
        faults.add(new Fault(Fault.Kind.KILL, 1, 99, 50 * MS));
        acquired(2, 2, 60);
        acquired(3, 3, 400); // worker 2's lease expired at 360 ms

        assertThat(check(Family.LEASE)).isEmpty();
    }

    @Test
    void aTokenTwiceOrGoingBackwardsIsCaught() {
        acquired(1, 5, 10);
        line(11, 1, Family.LEASE, "release-begin", 5);
        acquired(2, 5, 20);
        line(21, 2, Family.LEASE, "release-begin", 5);
        acquired(3, 4, 30);

        assertThat(check(Family.LEASE))
                .anyMatch(v -> v.what().contains("token 5 acquired by worker 1 and by worker 2"))
                .anyMatch(v -> v.what().contains("token 4 acquired after token 5"));
    }

    @Test
    void theLedgerAcceptingALowerTokenAfterAHigherOneIsCaught() {
        line(10, 1, Family.LEASE, "write-begin", 3);
        line(11, 1, Family.LEASE, "wrote", 3, "ACCEPTED");
        line(20, 2, Family.LEASE, "write-begin", 2);
        line(21, 2, Family.LEASE, "wrote", 2, "ACCEPTED");
        line(30, 2, Family.LEASE, "write-begin", 1);
        line(31, 2, Family.LEASE, "wrote", 1, "REJECTED_STALE_TERM");
        FileFacts c = clean();
        facts =
                new FileFacts(
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        Fold.EMPTY,
                        false,
                        3,
                        2,
                        1,
                        0,
                        c.regionCapacity(),
                        0,
                        0,
                        1,
                        c.regionLargestFree());

        assertThat(check(Family.LEASE))
                .anyMatch(
                        v ->
                                v.what()
                                        .contains(
                                                "accepted token 2 (worker 2) after it had accepted token 3"))
                .noneMatch(v -> v.what().contains("as stale"));
    }

    // ----------------------------------------------------------------------------- region

    @Test
    void blocksHeldAtOnceThatOverlapAreCaught() {
        line(10, 1, Family.REGION, "allocated", (7L << 32) | 320, 100);
        line(20, 2, Family.REGION, "allocated", (9L << 32) | 400, 100); // inside 320 + 24 + 100
        line(30, 1, Family.REGION, "free-begin", (7L << 32) | 320);

        assertThat(check(Family.REGION)).anyMatch(v -> v.what().contains("overlaps"));
    }

    @Test
    void aBlockReusedAfterItsHolderWasKilledIsFineAndALeakIsCaught() {
        line(10, 1, Family.REGION, "allocated", (7L << 32) | 320, 100);
        faults.add(new Fault(Fault.Kind.KILL, 1, 99, 15 * MS));
        line(20, 2, Family.REGION, "allocated", (9L << 32) | 320, 100);

        assertThat(check(Family.REGION)).isEmpty();

        // After recovery one 144-byte block is still used: a leak.
        facts =
                new FileFacts(
                        0, 0, 0, 0, 0, 0, 0, Fold.EMPTY, false, 0, 0, 0, 0, 4096, 1, 144, 1, 3952);
        assertThat(check(Family.REGION))
                .anyMatch(v -> v.what().contains("1 blocks (144 bytes) still used"));
    }

    // ---------------------------------------------------------------------------- all

    @Test
    void anUnexpectedExceptionIsAViolation() {
        line(1, 1, Family.REGION, "error", "java.lang.IllegalStateException", "boom");

        assertThat(check(Family.REGION))
                .anyMatch(v -> v.what().contains("IllegalStateException: boom"));
    }

    @Test
    void aTornLastLineIsDroppedAndCounted(@TempDir Path dir) throws IOException {
        try (History history = History.open(dir, 1)) {
            history.log(Family.LEASE, "acquire-begin");
        }
        Files.writeString(
                History.file(dir, 1), "123 1 L acq", java.nio.file.StandardOpenOption.APPEND);

        Histories read = Histories.read(dir);

        assertThat(read.lines()).hasSize(1);
        assertThat(read.tornLines()).isEqualTo(1);
    }
}
