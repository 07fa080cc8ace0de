package io.subetha.cxc.chaos;

import io.subetha.cxc.chaos.ChaosEvent.Kind;
import io.subetha.cxc.chaos.ChaosRecord.Type;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Computes a {@link ChaosReport} from the harness's events and every participant's log.
 *
 * <ul>
 *   <li><b>Split-brain terms</b>: every term named by any line (gained, observed, written) must
 *       belong to exactly one PID.
 *   <li><b>Failover</b> of an event: from the signal to the first {@code GAINED} of a higher term
 *       than the victim held, logged after the signal.
 *   <li><b>Leaderless gap</b>: the same interval, but for a graceful stop measured from the moment
 *       the victim stepped down (until then it still led). It is excessive beyond twice the
 *       expected failover of its kind: a kill or a stop is noticed by the next tick of any survivor
 *       (expected: one tick interval); a freeze only once the leader's heartbeat is more than
 *       {@code grace} epochs old, plus one tick for a claimant to notice (expected: {@code grace +
 *       2} tick intervals).
 *   <li><b>Ledger order</b>: no accepted write may carry a lower term than an accepted write that
 *       had already returned when it started (the ledger's linearisable order never goes back).
 *   <li><b>How a paused leader learned</b>: after SIGCONT, whichever came first in its log: a
 *       ledger rejection of its stale write, or its tick reporting the term lost.
 * </ul>
 */
public final class ChaosAnalysis {

    private ChaosAnalysis() {}

    /** Reads every {@code participant-*.log} under {@code logDir}. */
    public static List<ChaosRecord> readLogs(Path logDir) {
        List<ChaosRecord> records = new ArrayList<>();
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                if (!file.getFileName().toString().startsWith("participant-")) {
                    continue;
                }
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    // A SIGKILL can cut the last line short: it was never acted on, skip it.
                    if (!line.isBlank() && line.split(" ").length == 7) {
                        records.add(ChaosRecord.parse(line));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return records;
    }

    public static ChaosReport analyse(
            ChaosReport.Setup setup,
            List<ChaosEvent> events,
            List<ChaosRecord> records,
            long ledgerRejectedStale,
            long ledgerRejectedConflict) {
        long tick = setup.tick().toNanos();
        Map<Kind, Long> expected = new EnumMap<>(Kind.class);
        expected.put(Kind.KILL, tick);
        expected.put(Kind.STOP, tick);
        expected.put(Kind.PAUSE, (setup.graceEpochs() + 2) * tick);

        // --- split brain: one PID per term, whoever reports it
        Map<Long, Set<Long>> pidsByTerm = new TreeMap<>();
        for (ChaosRecord r : records) {
            boolean names =
                    r.type() == Type.GAINED
                            || (r.type() == Type.OBSERVED && r.pid() != 0)
                            || (r.type() == Type.WRITE && r.detail().equals("ACCEPTED"));
            if (names) {
                pidsByTerm.computeIfAbsent(r.term(), t -> new HashSet<>()).add(r.pid());
            }
        }
        List<String> splitBrainTerms = new ArrayList<>();
        pidsByTerm.forEach(
                (term, pids) -> {
                    if (pids.size() > 1) {
                        splitBrainTerms.add("term " + term + " claimed by " + pids);
                    }
                });

        // --- failover per event
        List<ChaosRecord> gains =
                records.stream()
                        .filter(r -> r.type() == Type.GAINED)
                        .sorted(Comparator.comparingLong(ChaosRecord::nanos))
                        .toList();
        Map<Kind, List<Long>> latencies = new EnumMap<>(Kind.class);
        List<Long> allLatencies = new ArrayList<>();
        List<String> excessiveGaps = new ArrayList<>();
        List<String> missingSuccessors = new ArrayList<>();
        for (ChaosEvent e : events) {
            ChaosRecord successor =
                    gains.stream()
                            .filter(g -> g.nanos() - e.nanos() > 0 && g.term() > e.victimTerm())
                            .findFirst()
                            .orElse(null);
            if (successor == null) {
                missingSuccessors.add(e.format());
                continue;
            }
            long latency = successor.nanos() - e.nanos();
            latencies.computeIfAbsent(e.kind(), k -> new ArrayList<>()).add(latency);
            allLatencies.add(latency);
            long vacated = e.nanos();
            if (e.kind() == Kind.STOP) {
                vacated =
                        records.stream()
                                .filter(r -> r.type() == Type.STEPDOWN && r.pid() == e.victimPid())
                                .mapToLong(ChaosRecord::nanos)
                                .findFirst()
                                .orElse(e.nanos());
            }
            long gap = successor.nanos() - vacated;
            if (gap > 2 * expected.get(e.kind())) {
                excessiveGaps.add(
                        e.kind()
                                + " of pid "
                                + e.victimPid()
                                + " (term "
                                + e.victimTerm()
                                + "): no leader for "
                                + millis(gap)
                                + " ms, limit "
                                + millis(2 * expected.get(e.kind()))
                                + " ms");
            }
        }

        // --- ledger order: by start, against the highest term of writes already returned
        List<ChaosRecord> accepted =
                records.stream()
                        .filter(r -> r.type() == Type.WRITE && r.detail().equals("ACCEPTED"))
                        .toList();
        List<ChaosRecord> byEnd =
                accepted.stream().sorted(Comparator.comparingLong(ChaosRecord::endNanos)).toList();
        List<ChaosRecord> byStart =
                accepted.stream().sorted(Comparator.comparingLong(ChaosRecord::nanos)).toList();
        List<String> ledgerOrderViolations = new ArrayList<>();
        long highestReturned = 0;
        int next = 0;
        for (ChaosRecord w : byStart) {
            while (next < byEnd.size() && byEnd.get(next).endNanos() - w.nanos() < 0) {
                highestReturned = Math.max(highestReturned, byEnd.get(next).term());
                next++;
            }
            if (w.term() < highestReturned) {
                ledgerOrderViolations.add(
                        "term " + w.term() + " by " + w.pid() + " after term " + highestReturned);
            }
        }
        long loggedStaleRejections =
                records.stream()
                        .filter(
                                r ->
                                        r.type() == Type.WRITE
                                                && r.detail().equals("REJECTED_STALE_TERM"))
                        .count();

        // --- how each paused leader learned it had lost
        List<String> pauseLearning = new ArrayList<>();
        int learnedByLedger = 0;
        int learnedByTick = 0;
        long pausedRejections = 0;
        for (ChaosEvent e : events) {
            if (e.kind() != Kind.PAUSE) {
                continue;
            }
            List<ChaosRecord> after =
                    records.stream()
                            .filter(r -> r.reporter() == e.victimPid())
                            .filter(r -> r.nanos() - e.resumedNanos() >= 0)
                            .sorted(Comparator.comparingLong(ChaosRecord::nanos))
                            .toList();
            long rejected =
                    after.stream()
                            .filter(
                                    r ->
                                            r.type() == Type.WRITE
                                                    && r.term() == e.victimTerm()
                                                    && !r.detail().equals("ACCEPTED"))
                            .count();
            pausedRejections += rejected;
            ChaosRecord lost =
                    after.stream()
                            .filter(r -> r.type() == Type.LOST && r.term() == e.victimTerm())
                            .findFirst()
                            .orElse(null);
            ChaosRecord firstRejection =
                    after.stream()
                            .filter(r -> r.type() == Type.WRITE && r.term() == e.victimTerm())
                            .filter(r -> !r.detail().equals("ACCEPTED"))
                            .findFirst()
                            .orElse(null);
            String how;
            if (firstRejection != null
                    && (lost == null || firstRejection.nanos() - lost.nanos() <= 0)) {
                learnedByLedger++;
                how =
                        "ledger refused its term-"
                                + e.victimTerm()
                                + " write "
                                + millis(firstRejection.endNanos() - e.resumedNanos())
                                + " ms after SIGCONT";
            } else if (lost != null) {
                learnedByTick++;
                how =
                        "its tick saw the term lost (now "
                                + lost.detail()
                                + ") "
                                + millis(lost.nanos() - e.resumedNanos())
                                + " ms after SIGCONT";
            } else {
                how = "never logged learning it had lost (killed before?)";
            }
            pauseLearning.add(
                    "pid "
                            + e.victimPid()
                            + " term "
                            + e.victimTerm()
                            + ": "
                            + how
                            + "; stale writes rejected: "
                            + rejected
                            + (lost != null
                                    ? "; tick reported lost "
                                            + millis(lost.nanos() - e.resumedNanos())
                                            + " ms after SIGCONT"
                                    : ""));
        }

        Map<Kind, ChaosReport.Percentiles> failoverByKind = new EnumMap<>(Kind.class);
        latencies.forEach(
                (kind, values) -> failoverByKind.put(kind, ChaosReport.Percentiles.of(values)));
        Map<Kind, Long> eventCounts = new EnumMap<>(Kind.class);
        events.forEach(e -> eventCounts.merge(e.kind(), 1L, Long::sum));
        return new ChaosReport(
                setup,
                events.size(),
                eventCounts,
                pidsByTerm.size(),
                ChaosReport.Percentiles.of(allLatencies),
                failoverByKind,
                expected,
                splitBrainTerms,
                excessiveGaps,
                missingSuccessors,
                accepted.size(),
                loggedStaleRejections,
                pausedRejections,
                ledgerRejectedStale,
                ledgerRejectedConflict,
                ledgerOrderViolations,
                learnedByLedger,
                learnedByTick,
                pauseLearning);
    }

    static String millis(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1e6);
    }

    static String millis(Duration d) {
        return millis(d.toNanos());
    }
}
