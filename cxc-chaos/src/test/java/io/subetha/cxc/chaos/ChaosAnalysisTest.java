package io.subetha.cxc.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.chaos.ChaosEvent.Kind;
import io.subetha.cxc.chaos.ChaosRecord.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The analysis catches each kind of broken run: the chaos test's figures can fail. */
class ChaosAnalysisTest {

    static final ChaosReport.Setup SETUP =
            new ChaosReport.Setup(
                    3,
                    1,
                    1,
                    Duration.ofMillis(50),
                    3,
                    Duration.ofMillis(10),
                    Duration.ofMillis(600));
    static final long MS = 1_000_000;

    final List<ChaosRecord> records = new ArrayList<>();

    void gained(long term, long pid, long atMs) {
        records.add(new ChaosRecord(Type.GAINED, term, pid, atMs * MS, atMs * MS, "", pid));
    }

    void write(long term, long pid, long fromMs, long toMs, String outcome) {
        records.add(new ChaosRecord(Type.WRITE, term, pid, fromMs * MS, toMs * MS, outcome, pid));
    }

    ChaosReport analyse(ChaosEvent... events) {
        return ChaosAnalysis.analyse(SETUP, List.of(events), records, 0, 0);
    }

    @Test
    void aCleanKillIsSafe() {
        gained(1, 100, 0);
        write(1, 100, 1, 2, "ACCEPTED");
        gained(2, 200, 130);
        write(2, 200, 131, 132, "ACCEPTED");

        ChaosReport report = analyse(new ChaosEvent(Kind.KILL, 100, 1, 100 * MS, 110 * MS, 0));

        assertThat(report.safe()).as(report.render()).isTrue();
        assertThat(report.failover().max()).isEqualTo(30 * MS);
        assertThat(report.electionShareByKind().get(Kind.KILL).max()).isEqualTo(20 * MS);
    }

    @Test
    void aTermClaimedByTwoPidsIsSplitBrain() {
        gained(1, 100, 0);
        gained(1, 200, 5);

        ChaosReport report = analyse();

        assertThat(report.splitBrainTerms()).containsExactly("term 1 claimed by [100, 200]");
        assertThat(report.safe()).isFalse();
    }

    @Test
    void aSlowElectionAfterDetectionIsAnExcessiveGap() {
        gained(1, 100, 0);
        gained(2, 200, 250); // 140 ms after the death was visible: limit is 2 ticks = 100 ms

        ChaosReport report = analyse(new ChaosEvent(Kind.KILL, 100, 1, 100 * MS, 110 * MS, 0));

        assertThat(report.excessiveGaps()).hasSize(1);
        assertThat(report.safe()).isFalse();
    }

    @Test
    void aGapLongOnlyWhileEverySurvivorStalledIsTheHostsNotTheElections() {
        gained(1, 100, 0);
        records.add(new ChaosRecord(Type.OBSERVED, 1, 100, 5 * MS, 5 * MS, "", 300));
        records.add(new ChaosRecord(Type.STALL, -1, 200, 120 * MS, 230 * MS, "", 200));
        records.add(new ChaosRecord(Type.STALL, -1, 300, 115 * MS, 200 * MS, "", 300));
        gained(2, 200, 250);
        records.add(new ChaosRecord(Type.OBSERVED, 2, 200, 260 * MS, 260 * MS, "", 300));
        records.add(new ChaosRecord(Type.OBSERVED, 1, 100, 1 * MS, 1 * MS, "", 200));

        // 140 ms after detection, but no survivor ran for 85 ms of it: 55 ms is the election's.
        ChaosReport report = analyse(new ChaosEvent(Kind.KILL, 100, 1, 100 * MS, 110 * MS, 0));

        assertThat(report.excessiveGaps()).isEmpty();
        assertThat(report.starvedGaps()).hasSize(1);
        assertThat(report.starvedGaps().get(0)).contains("stalled at least 85.0 ms");
        assertThat(report.safe()).isTrue();
    }

    @Test
    void oneSurvivorRunningFreelyMakesTheGapTheElections() {
        gained(1, 100, 0);
        records.add(new ChaosRecord(Type.OBSERVED, 1, 100, 5 * MS, 5 * MS, "", 300));
        records.add(new ChaosRecord(Type.STALL, -1, 200, 120 * MS, 230 * MS, "", 200));
        gained(2, 200, 250);
        records.add(new ChaosRecord(Type.OBSERVED, 2, 200, 260 * MS, 260 * MS, "", 300));
        records.add(new ChaosRecord(Type.OBSERVED, 1, 100, 1 * MS, 1 * MS, "", 200));

        ChaosReport report = analyse(new ChaosEvent(Kind.KILL, 100, 1, 100 * MS, 110 * MS, 0));

        assertThat(report.excessiveGaps()).hasSize(1);
        assertThat(report.safe()).isFalse();
    }

    @Test
    void withoutDetectionAFreezeIsJudgedByTheDesignExpectation() {
        gained(1, 100, 0);
        gained(2, 200, 100 + 499); // limit: 2 x (grace 3 + 2) x 50 ms = 500 ms

        assertThat(analyse(new ChaosEvent(Kind.PAUSE, 100, 1, 100 * MS, 0, 700 * MS)).safe())
                .isTrue();

        records.clear();
        gained(1, 100, 0);
        gained(2, 200, 100 + 501);
        assertThat(
                        analyse(new ChaosEvent(Kind.PAUSE, 100, 1, 100 * MS, 0, 700 * MS))
                                .excessiveGaps())
                .hasSize(1);
    }

    @Test
    void anEventWithoutSuccessorIsReported() {
        gained(1, 100, 0);

        ChaosReport report = analyse(new ChaosEvent(Kind.KILL, 100, 1, 100 * MS, 110 * MS, 0));

        assertThat(report.missingSuccessors()).hasSize(1);
        assertThat(report.safe()).isFalse();
    }

    @Test
    void aLowerTermAcceptedAfterAHigherOneReturnedBreaksLedgerOrder() {
        gained(1, 100, 0);
        gained(2, 200, 10);
        write(2, 200, 20, 21, "ACCEPTED");
        write(1, 100, 30, 31, "ACCEPTED"); // started after term 2's write returned

        ChaosReport report = analyse();

        assertThat(report.ledgerOrderViolations()).hasSize(1);
        assertThat(report.safe()).isFalse();
    }

    @Test
    void overlappingWritesMayBeOrderedEitherWay() {
        gained(1, 100, 0);
        gained(2, 200, 10);
        write(2, 200, 20, 40, "ACCEPTED");
        write(1, 100, 30, 31, "ACCEPTED"); // overlaps term 2's write: may precede it

        assertThat(analyse().ledgerOrderViolations()).isEmpty();
    }

    @Test
    void aPausedLeaderRefusedByTheLedgerIsReportedSo() {
        gained(1, 100, 0);
        gained(2, 200, 300);
        write(1, 100, 701, 702, "REJECTED_STALE_TERM");
        records.add(new ChaosRecord(Type.LOST, 1, 100, 703 * MS, 703 * MS, "200@2", 100));

        ChaosReport report =
                analyse(new ChaosEvent(Kind.PAUSE, 100, 1, 100 * MS, 280 * MS, 700 * MS));

        assertThat(report.pausesLearnedByLedger()).isEqualTo(1);
        assertThat(report.pausedStaleRejections()).isEqualTo(1);
        assertThat(report.pauseLearning().get(0)).contains("ledger refused its term-1 write");
    }

    @Test
    void logLinesRoundTrip() {
        ChaosRecord record =
                new ChaosRecord(Type.WRITE, 7, 123, 1000, 2000, "REJECTED_STALE_TERM", 123);
        assertThat(ChaosRecord.parse(record.format())).isEqualTo(record);
        ChaosEvent event = new ChaosEvent(Kind.PAUSE, 5, 6, 7, 8, 9);
        assertThat(ChaosEvent.parse(event.format())).isEqualTo(event);
    }
}
