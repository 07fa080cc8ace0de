package io.subetha.cxc.chaos.crash;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The lease's promise ({@code OwnerLease}): one CAS installs holder and token together, so a token
 * never has two holders, and each acquisition's token is one more than the last; a name is taken
 * from a holder only once it released it, its deadline passed, or its process died. And the
 * ledger's ({@code FencedLedger}): in the order it accepts writes their tokens never decrease, a
 * write is refused as stale only if a higher token was written first, and one token has one writer.
 *
 * <p>So: no token is acquired twice; by acquisition time, tokens rise; no acquisition lands while
 * an earlier lease was surely held (before its release began, its deadline passed and its holder
 * was killed); no accepted write ended before an accepted write of a lower token began; every stale
 * refusal had a higher token's write begun before it ended; no conflict refusal; after the run the
 * ledger's mark is a token that was written and at least every accepted one, and nobody holds the
 * name.
 */
final class LeaseCheck {

    /** Deadlines are kept in whole milliseconds. */
    private static final long DEADLINE_SLACK = 1_000_000;

    private LeaseCheck() {}

    private record Hold(int worker, long token, long at, long atMost, long end) {}

    private record Write(int worker, long token, long begin, long end, String outcome) {}

    static void check(Evidence evidence, Findings out) {
        Family f = Family.LEASE;
        Map<Integer, Long> killedAt = evidence.killedAt();
        List<HistoryLine> lines = evidence.lines(f);
        // Each worker's lease thread is one sequence: pair begins with their ends in order.
        Map<Integer, long[]> acquiredBy = new HashMap<>(); // token, at, atMost
        Map<Integer, long[]> writeBegin = new HashMap<>(); // nanos, token
        List<Hold> holds = new ArrayList<>();
        List<Write> writes = new ArrayList<>();
        Set<Long> writtenTokens = new HashSet<>();
        long released = 0;
        for (HistoryLine l : lines) {
            int w = l.worker();
            switch (l.op()) {
                case "acquired" -> {
                    closeHold(acquiredBy.remove(w), w, Long.MAX_VALUE, killedAt, holds);
                    acquiredBy.put(w, new long[] {l.longField(0), l.longField(1), l.longField(2)});
                }
                case "release-begin", "let-expire" -> {
                    long end = l.op().equals("release-begin") ? l.nanos() : Long.MAX_VALUE;
                    closeHold(acquiredBy.remove(w), w, end, killedAt, holds);
                }
                case "released" -> released++;
                case "write-begin" -> {
                    writeBegin.put(w, new long[] {l.nanos(), l.longField(0)});
                    writtenTokens.add(l.longField(0));
                }
                case "wrote" -> {
                    long[] begin = writeBegin.remove(w);
                    writes.add(
                            new Write(
                                    w,
                                    l.longField(0),
                                    begin == null ? l.nanos() : begin[0],
                                    l.nanos(),
                                    l.field(1)));
                }
                default -> {}
            }
        }
        acquiredBy.forEach((w, a) -> closeHold(a, w, Long.MAX_VALUE, killedAt, holds));

        checkTokens(holds, out);
        checkExclusive(holds, out);
        checkLedger(writes, writeBegin, out);

        FileFacts facts = evidence.facts();
        long highestAccepted =
                writes.stream()
                        .filter(w -> w.outcome().equals("ACCEPTED"))
                        .mapToLong(Write::token)
                        .max()
                        .orElse(0);
        if (facts.ledgerHighest() < highestAccepted
                || (facts.ledgerHighest() != 0 && !writtenTokens.contains(facts.ledgerHighest()))) {
            out.violation(
                    f,
                    "the ledger's mark is "
                            + facts.ledgerHighest()
                            + ", the highest accepted write was "
                            + highestAccepted);
        }
        if (facts.ledgerRejectedConflict() != 0) {
            out.violation(
                    f,
                    "the ledger refused "
                            + facts.ledgerRejectedConflict()
                            + " writes as a token held by another PID");
        }
        if (facts.leaseHeld()) {
            out.violation(f, "after the run, every worker dead, the name is still held");
        }
        out.figure(f, "acquired", holds.size());
        out.figure(f, "released", released);
        out.figure(
                f,
                "writesAccepted",
                writes.stream().filter(w -> w.outcome().equals("ACCEPTED")).count());
        out.figure(
                f,
                "writesRefusedStale",
                writes.stream().filter(w -> w.outcome().equals("REJECTED_STALE_TERM")).count());
        out.figure(f, "highestToken", facts.ledgerHighest());
    }

    private static void closeHold(
            long @Nullable [] acquired,
            int worker,
            long end,
            Map<Integer, Long> killedAt,
            List<Hold> holds) {
        if (acquired == null) {
            return;
        }
        long killed = killedAt.getOrDefault(worker, Long.MAX_VALUE);
        holds.add(new Hold(worker, acquired[0], acquired[1], acquired[2], Math.min(end, killed)));
    }

    private static void checkTokens(List<Hold> holds, Findings out) {
        Map<Long, Hold> byToken = new HashMap<>();
        for (Hold h : holds) {
            Hold before = byToken.put(h.token(), h);
            if (before != null) {
                out.violation(
                        Family.LEASE,
                        "token "
                                + h.token()
                                + " acquired by worker "
                                + before.worker()
                                + " and by worker "
                                + h.worker());
            }
        }
        List<Hold> byTime = holds.stream().sorted(Comparator.comparingLong(Hold::at)).toList();
        for (int i = 1; i < byTime.size(); i++) {
            if (byTime.get(i).token() <= byTime.get(i - 1).token()) {
                out.violation(
                        Family.LEASE,
                        "token "
                                + byTime.get(i).token()
                                + " acquired after token "
                                + byTime.get(i - 1).token());
            }
        }
    }

    private static void checkExclusive(List<Hold> holds, Findings out) {
        List<Hold> byTime = holds.stream().sorted(Comparator.comparingLong(Hold::at)).toList();
        for (int i = 0; i < byTime.size(); i++) {
            Hold later = byTime.get(i);
            for (int j = i - 1; j >= 0; j--) {
                Hold earlier = byTime.get(j);
                // Surely held until its release began, its holder was killed, or it expired.
                long surelyHeldUntil =
                        Math.min(earlier.end(), earlier.at() + earlier.atMost() - DEADLINE_SLACK);
                if (later.at() < surelyHeldUntil) {
                    out.violation(
                            Family.LEASE,
                            "token "
                                    + later.token()
                                    + " (worker "
                                    + later.worker()
                                    + ") acquired "
                                    + (surelyHeldUntil - later.at()) / 1_000
                                    + " µs before token "
                                    + earlier.token()
                                    + " (worker "
                                    + earlier.worker()
                                    + ") was released, expired or killed");
                }
                if (later.at() - earlier.at() > 10 * earlier.atMost()) {
                    break; // every lease before this one had expired long before
                }
            }
        }
    }

    private static void checkLedger(List<Write> writes, Map<Integer, long[]> dying, Findings out) {
        List<Write> accepted = writes.stream().filter(w -> w.outcome().equals("ACCEPTED")).toList();
        List<Write> byEnd = accepted.stream().sorted(Comparator.comparingLong(Write::end)).toList();
        List<Write> byBegin =
                accepted.stream().sorted(Comparator.comparingLong(Write::begin)).toList();
        long highestEndedToken = 0;
        int e = 0;
        for (Write w : byBegin) {
            while (e < byEnd.size() && byEnd.get(e).end() < w.begin()) {
                highestEndedToken = Math.max(highestEndedToken, byEnd.get(e).token());
                e++;
            }
            if (w.token() < highestEndedToken) {
                out.violation(
                        Family.LEASE,
                        "the ledger accepted token "
                                + w.token()
                                + " (worker "
                                + w.worker()
                                + ") after it had accepted token "
                                + highestEndedToken);
            }
        }
        // Every write begun, with when: a stale refusal needs a higher token's write begun first.
        List<long[]> begun = new ArrayList<>();
        writes.forEach(w -> begun.add(new long[] {w.begin(), w.token()}));
        dying.values().forEach(begun::add); // in flight when their writer was killed
        begun.sort(Comparator.comparingLong(b -> b[0]));
        for (Write w : writes) {
            if (w.outcome().equals("REJECTED_TERM_CONFLICT")) {
                out.violation(
                        Family.LEASE,
                        "the ledger refused token "
                                + w.token()
                                + " (worker "
                                + w.worker()
                                + ") as another PID's");
            }
            if (w.outcome().equals("REJECTED_STALE_TERM")
                    && begun.stream().noneMatch(b -> b[0] < w.end() && b[1] > w.token())) {
                out.violation(
                        Family.LEASE,
                        "the ledger refused token "
                                + w.token()
                                + " as stale before any higher token was written");
            }
        }
    }
}
