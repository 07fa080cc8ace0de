package io.subetha.cxc.chaos;

import io.subetha.cxc.chaos.ChaosEvent.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one chaos run. {@link #safe()} holds when no term had two leaders, no gap without
 * a leader exceeded twice its expected failover, every event found a successor, and the ledger
 * never accepted a write out of term order nor saw two writers under one term.
 *
 * @param setup how the run was configured
 * @param handovers events injected into leaders
 * @param eventCounts events by kind
 * @param termsSeen distinct election terms named in the logs
 * @param termsInFailovers the terms the failovers took: for each event, those gained from the
 *     signal until a tick after the successor's gain
 * @param multiTermFailovers failovers that took more than one term
 * @param failover event to the successor's first beat, all kinds
 * @param failoverByKind the same, per kind
 * @param detectionByKind signal to the fault being detectable (the host's and clock's share)
 * @param electionShareByKind detectable to the successor's first beat (the election's share;
 *     expected one tick, limit two)
 * @param expectedFailover per kind: the design expectation from the signal, used for a gap when the
 *     fault was never seen detectable
 * @param splitBrainTerms terms named with more than one PID (must be empty)
 * @param excessiveGaps gaps without a leader beyond the limit, after deducting the time no survivor
 *     was scheduled (must be empty)
 * @param starvedGaps gaps beyond the limit only because no survivor was scheduled (the host was
 *     starved: every survivor's loop logged a stall)
 * @param missingSuccessors events after which no successor ever beat (must be empty)
 * @param acceptedWrites ledger writes accepted, from the logs
 * @param loggedStaleRejections ledger writes refused as stale, from the logs
 * @param pausedStaleRejections of those, writes of paused leaders after SIGCONT; the others come
 *     from ex-leaders preempted by a lower PID that wrote once more before their next tick
 * @param ledgerRejectedStale the ledger's own count of stale refusals, all processes
 * @param ledgerRejectedConflict the ledger's own count of term conflicts (must be 0)
 * @param ledgerOrderViolations accepted writes with a lower term than one already returned (must be
 *     empty)
 * @param pausesLearnedByLedger paused leaders whose first sign of losing was a ledger refusal
 * @param pausesLearnedByTick paused leaders whose first sign was their tick
 * @param pauseLearning one line per paused leader
 */
public record ChaosReport(
        Setup setup,
        int handovers,
        Map<Kind, Long> eventCounts,
        int termsSeen,
        long termsInFailovers,
        int multiTermFailovers,
        Percentiles failover,
        Map<Kind, Percentiles> failoverByKind,
        Map<Kind, Percentiles> detectionByKind,
        Map<Kind, Percentiles> electionShareByKind,
        Map<Kind, Long> expectedFailover,
        List<String> splitBrainTerms,
        List<String> excessiveGaps,
        List<String> starvedGaps,
        List<String> missingSuccessors,
        long acceptedWrites,
        long loggedStaleRejections,
        long pausedStaleRejections,
        long ledgerRejectedStale,
        long ledgerRejectedConflict,
        List<String> ledgerOrderViolations,
        int pausesLearnedByLedger,
        int pausesLearnedByTick,
        List<String> pauseLearning) {

    /** How a run was configured. */
    public record Setup(
            int participants,
            int handovers,
            long seed,
            Duration tick,
            long graceEpochs,
            Duration work,
            Duration pause) {}

    /** Latency percentiles in nanoseconds (nearest rank). */
    public record Percentiles(int count, long p50, long p99, long max) {
        static Percentiles of(List<Long> values) {
            if (values.isEmpty()) {
                return new Percentiles(0, 0, 0, 0);
            }
            List<Long> sorted = new ArrayList<>(values);
            sorted.sort(null);
            return new Percentiles(
                    sorted.size(),
                    rank(sorted, 0.50),
                    rank(sorted, 0.99),
                    sorted.get(sorted.size() - 1));
        }

        private static long rank(List<Long> sorted, double quantile) {
            int index = (int) Math.ceil(quantile * sorted.size()) - 1;
            return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
        }

        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "p50 %s ms, p99 %s ms, max %s ms (n=%d)",
                    ChaosAnalysis.millis(p50),
                    ChaosAnalysis.millis(p99),
                    ChaosAnalysis.millis(max),
                    count);
        }
    }

    public boolean safe() {
        return splitBrainTerms.isEmpty()
                && excessiveGaps.isEmpty()
                && missingSuccessors.isEmpty()
                && ledgerOrderViolations.isEmpty()
                && ledgerRejectedConflict == 0;
    }

    /** The election's expected share of a failover of {@code kind}, once detectable. */
    private Duration share(Kind kind) {
        return kind == Kind.REPLACE ? setup.tick().multipliedBy(3) : setup.tick();
    }

    public String render() {
        StringBuilder s = new StringBuilder();
        s.append(
                String.format(
                        Locale.ROOT,
                        "chaos run: %d participants, %d handovers, seed %d, tick %d ms, grace %d"
                                + " epochs, work every %d ms, pauses %d ms%n",
                        setup.participants(),
                        setup.handovers(),
                        setup.seed(),
                        setup.tick().toMillis(),
                        setup.graceEpochs(),
                        setup.work().toMillis(),
                        setup.pause().toMillis()));
        s.append("handovers done:            ").append(handovers).append(' ').append(eventCounts);
        s.append('\n');
        s.append("terms seen:                ")
                .append(termsSeen)
                .append(
                        String.format(
                                Locale.ROOT,
                                " (%.3f per handover)",
                                handovers == 0 ? 0.0 : (double) termsSeen / handovers))
                .append('\n');
        s.append("terms per failover:        ")
                .append(
                        String.format(
                                Locale.ROOT,
                                "%.3f (%d terms; %d failovers took more than one)",
                                handovers == 0 ? 0.0 : (double) termsInFailovers / handovers,
                                termsInFailovers,
                                multiTermFailovers))
                .append('\n');
        s.append("failover (all):            ").append(failover).append('\n');
        failoverByKind.forEach(
                (kind, p) ->
                        s.append(String.format(Locale.ROOT, "failover %-17s", kind + ":"))
                                .append(p)
                                .append('\n'));
        detectionByKind.forEach(
                (kind, p) ->
                        s.append(String.format(Locale.ROOT, "  detectable %-14s", kind + ":"))
                                .append(p)
                                .append('\n'));
        electionShareByKind.forEach(
                (kind, p) ->
                        s.append(String.format(Locale.ROOT, "  election's share %-8s", kind + ":"))
                                .append(p)
                                .append("  [expected ")
                                .append(ChaosAnalysis.millis(share(kind)))
                                .append(" ms, limit ")
                                .append(ChaosAnalysis.millis(share(kind).multipliedBy(2)))
                                .append(" ms]\n"));
        s.append("split-brain terms:         ").append(splitBrainTerms.size()).append('\n');
        s.append("gaps > 2x expected:        ")
                .append(excessiveGaps.size())
                .append(" (plus ")
                .append(starvedGaps.size())
                .append(" beyond it only while no survivor was scheduled)\n");
        s.append("events without successor:  ").append(missingSuccessors.size()).append('\n');
        s.append("ledger writes accepted:    ").append(acceptedWrites).append('\n');
        s.append("ledger stale rejections:   ")
                .append(ledgerRejectedStale)
                .append(" (ledger's count; ")
                .append(loggedStaleRejections)
                .append(" logged: ")
                .append(pausedStaleRejections)
                .append(" from paused leaders after SIGCONT, ")
                .append(loggedStaleRejections - pausedStaleRejections)
                .append(" from preempted leaders before their next tick)\n");
        s.append("ledger term conflicts:     ").append(ledgerRejectedConflict).append('\n');
        s.append("ledger order violations:   ").append(ledgerOrderViolations.size()).append('\n');
        s.append("paused leaders learned by: ledger refusal first ")
                .append(pausesLearnedByLedger)
                .append(", own tick first ")
                .append(pausesLearnedByTick)
                .append('\n');
        appendAll(s, "split brain", splitBrainTerms);
        appendAll(s, "excessive gap", excessiveGaps);
        appendAll(s, "starved gap", starvedGaps);
        appendAll(s, "no successor", missingSuccessors);
        appendAll(s, "ledger order", ledgerOrderViolations);
        appendAll(s, "paused", pauseLearning);
        s.append(safe() ? "SAFE\n" : "UNSAFE\n");
        return s.toString();
    }

    private static void appendAll(StringBuilder s, String label, List<String> lines) {
        lines.forEach(line -> s.append("  ").append(label).append(": ").append(line).append('\n'));
    }
}
