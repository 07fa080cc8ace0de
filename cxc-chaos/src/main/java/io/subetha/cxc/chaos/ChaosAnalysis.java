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
import java.util.HashMap;
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
 *   <li><b>Terms per failover</b>: the distinct terms gained from the signal until one tick after
 *       the successor's gain (an interim leader preempted at its next tick counts; a lower PID that
 *       starts or thaws later, preempting under {@code lowest-pid}, does not).
 *   <li><b>Detection</b> of an event: from the signal to the moment the fault became visible to the
 *       election by its own rules ({@link ChaosEvent#detectableNanos()}): the operating system
 *       showing the victim dead (SIGKILL, SIGTERM), the victim's step-down (SIGTERM), or its
 *       heartbeat lagging more than {@code grace} epochs (SIGSTOP). This part belongs to the host
 *       and the clock, not to the election: a dying JVM needs CPU time to finish dying.
 *   <li><b>Leaderless gap beyond twice the expected failover</b>: once a fault is detectable, the
 *       election's expected share is one tick interval (the next tick of any survivor claims), so a
 *       gap is excessive when the successor's first beat comes more than two tick intervals after
 *       detection (for a replaced file, three: see {@link Kind#REPLACE}). If the harness never saw
 *       the fault become detectable, the design expectation from the signal is used instead: one
 *       tick for a kill or stop, {@code grace + 2} ticks for a freeze (the heartbeat must lag
 *       {@code grace + 1} epochs, then one tick to claim), and the gap is excessive beyond twice
 *       that.
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
        // The next tick's path check, opening and checking the new file (a cold path: tens of ms
        // on a loaded host), then a participant that re-joins before the lowest one lets it claim
        // first for up to the defer limit, a tick: three ticks in all.
        expected.put(Kind.REPLACE, tick * 3);
        Map<Kind, List<Long>> detections = new EnumMap<>(Kind.class);
        Map<Kind, List<Long>> electionShares = new EnumMap<>(Kind.class);

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
        List<String> starvedGaps = new ArrayList<>();
        List<String> missingSuccessors = new ArrayList<>();
        Map<Long, long[]> lifetimes = new HashMap<>(); // reporter -> first, last record
        Map<Long, List<ChaosRecord>> stallsByReporter = new HashMap<>();
        for (ChaosRecord r : records) {
            long[] life =
                    lifetimes.computeIfAbsent(
                            r.reporter(), k -> new long[] {r.nanos(), r.endNanos()});
            life[0] = Math.min(life[0], r.nanos());
            life[1] = Math.max(life[1], r.endNanos());
            if (r.type() == Type.STALL) {
                stallsByReporter.computeIfAbsent(r.reporter(), k -> new ArrayList<>()).add(r);
            }
        }
        long termsInFailovers = 0;
        int multiTermFailovers = 0;
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
            // The terms one failover took: the successor's, and any claimed from the fault until a
            // tick after it (an interim leader preempted by the lowest live PID at its next tick,
            // the pattern one handover per failover removes). Later preemptions (a thawed or newly
            // started lower PID with lowest-pid) are not part of the failover.
            long window = successor.nanos() + tick;
            long failoverTerms =
                    gains.stream()
                            .filter(g -> g.nanos() - e.nanos() > 0 && g.nanos() - window <= 0)
                            .filter(g -> g.term() > e.victimTerm())
                            .mapToLong(ChaosRecord::term)
                            .distinct()
                            .count();
            termsInFailovers += failoverTerms;
            if (failoverTerms > 1) {
                multiTermFailovers++;
            }
            latencies.computeIfAbsent(e.kind(), k -> new ArrayList<>()).add(latency);
            allLatencies.add(latency);
            long detectable = e.detectableNanos();
            if (e.kind() == Kind.STOP) {
                long stepDown =
                        records.stream()
                                .filter(r -> r.type() == Type.STEPDOWN && r.pid() == e.victimPid())
                                .mapToLong(ChaosRecord::nanos)
                                .findFirst()
                                .orElse(0);
                if (stepDown != 0 && (detectable == 0 || stepDown - detectable < 0)) {
                    detectable = stepDown;
                }
            }
            long limit;
            long from;
            if (detectable != 0) {
                detections
                        .computeIfAbsent(e.kind(), k -> new ArrayList<>())
                        .add(Math.max(0, detectable - e.nanos()));
                electionShares
                        .computeIfAbsent(e.kind(), k -> new ArrayList<>())
                        .add(Math.max(0, successor.nanos() - detectable));
                from = detectable;
                // A replaced file is the one fault whose election share is more than a tick.
                limit = 2 * (e.kind() == Kind.REPLACE ? expected.get(Kind.REPLACE) : tick);
            } else {
                from = e.nanos();
                limit = 2 * expected.get(e.kind());
            }
            long gap = successor.nanos() - from;
            if (gap > limit) {
                long unscheduled =
                        unscheduled(
                                lifetimes,
                                stallsByReporter,
                                e.victimPid(),
                                from,
                                successor.nanos());
                String line =
                        e.kind()
                                + " of pid "
                                + e.victimPid()
                                + " (term "
                                + e.victimTerm()
                                + "): successor beat "
                                + millis(gap)
                                + " ms after "
                                + (detectable != 0 ? "the fault was detectable" : "the signal")
                                + ", limit "
                                + millis(limit)
                                + " ms; every survivor's loop stalled at least "
                                + millis(unscheduled)
                                + " ms meanwhile";
                (gap - unscheduled > limit ? excessiveGaps : starvedGaps).add(line);
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

        Map<Kind, ChaosReport.Percentiles> failoverByKind = percentilesByKind(latencies);
        Map<Kind, Long> eventCounts = new EnumMap<>(Kind.class);
        events.forEach(e -> eventCounts.merge(e.kind(), 1L, Long::sum));
        return new ChaosReport(
                setup,
                events.size(),
                eventCounts,
                pidsByTerm.size(),
                termsInFailovers,
                multiTermFailovers,
                ChaosReport.Percentiles.of(allLatencies),
                failoverByKind,
                percentilesByKind(detections),
                percentilesByKind(electionShares),
                expected,
                splitBrainTerms,
                excessiveGaps,
                starvedGaps,
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

    /**
     * How long, within {@code [from, to)}, even the best-scheduled survivor could not run: the
     * least stall time (its loop woke more than a tick late, see {@link Type#STALL}) of the
     * participants alive throughout. No survivor could tick during it, so it is the host's time,
     * not the election's. 0 when some survivor did not stall.
     */
    private static long unscheduled(
            Map<Long, long[]> lifetimes,
            Map<Long, List<ChaosRecord>> stallsByReporter,
            long victim,
            long from,
            long to) {
        long least = Long.MAX_VALUE;
        for (Map.Entry<Long, long[]> life : lifetimes.entrySet()) {
            long pid = life.getKey();
            if (pid == victim || life.getValue()[0] - from >= 0 || life.getValue()[1] - to <= 0) {
                continue; // not a participant throughout the gap
            }
            long stalled = 0;
            for (ChaosRecord stall : stallsByReporter.getOrDefault(pid, List.of())) {
                long overlap = Math.min(stall.endNanos(), to) - Math.max(stall.nanos(), from);
                stalled += Math.max(0, overlap);
            }
            least = Math.min(least, stalled);
        }
        return least == Long.MAX_VALUE ? 0 : least;
    }

    private static Map<Kind, ChaosReport.Percentiles> percentilesByKind(
            Map<Kind, List<Long>> values) {
        Map<Kind, ChaosReport.Percentiles> byKind = new EnumMap<>(Kind.class);
        values.forEach((kind, list) -> byKind.put(kind, ChaosReport.Percentiles.of(list)));
        return byKind;
    }

    static String millis(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1e6);
    }

    static String millis(Duration d) {
        return millis(d.toNanos());
    }
}
