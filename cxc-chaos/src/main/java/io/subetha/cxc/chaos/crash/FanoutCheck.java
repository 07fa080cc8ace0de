package io.subetha.cxc.chaos.crash;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The fan-out's promise for claims ({@code PriorityFanout}: at least once, an item of a dead or
 * silent owner returns to its level and the late owner's ack is refused): no item is acknowledged
 * twice; every item claimed was submitted (and not refused as full); and no acknowledged item is
 * lost: each is acknowledged once, by a worker or by the recovery, unless the one worker that was
 * acknowledging it died inside that ack. After recovery every level is empty.
 */
final class FanoutCheck {

    private FanoutCheck() {}

    static void check(Evidence evidence, Findings out) {
        Family f = Family.FANOUT;
        Set<Long> begun = new HashSet<>();
        Set<Long> full = new HashSet<>();
        Set<Long> submitted = new HashSet<>();
        for (HistoryLine l : evidence.lines(f)) {
            switch (l.op()) {
                case "submit-begin" -> begun.add(l.longField(1));
                case "full" -> full.add(l.longField(1));
                case "submitted" -> submitted.add(l.longField(1));
                default -> {}
            }
        }
        Map<Long, Integer> acked = new HashMap<>();
        long claims = 0;
        long refused = 0;
        for (HistoryLine l : evidence.lines(f)) {
            switch (l.op()) {
                case "claimed" -> {
                    claims++;
                    long item = l.longField(1);
                    if (!begun.contains(item) || full.contains(item)) {
                        out.violation(
                                f,
                                "worker "
                                        + l.worker()
                                        + " claimed item "
                                        + item
                                        + ", which "
                                        + (full.contains(item)
                                                ? "was refused as full"
                                                : "nobody submitted"));
                    }
                }
                case "acked" -> {
                    if (Boolean.parseBoolean(l.field(1))) {
                        if (acked.merge(l.longField(0), 1, Integer::sum) == 2) {
                            out.violation(f, "item " + l.longField(0) + " acknowledged twice");
                        }
                    } else {
                        refused++;
                    }
                }
                default -> {}
            }
        }
        Set<Long> dyingAcks = new HashSet<>();
        evidence.lastLines(f).values().stream()
                .filter(l -> l.op().equals("ack-begin"))
                .forEach(l -> dyingAcks.add(l.longField(0)));
        long lost = 0;
        for (long item : submitted) {
            if (!acked.containsKey(item) && !dyingAcks.contains(item)) {
                lost++;
                if (lost <= 5) {
                    out.violation(f, "item " + item + " was submitted and never acknowledged");
                }
            }
        }
        if (evidence.facts().fanoutDepth() != 0) {
            out.violation(
                    f,
                    "after recovery the levels still hold "
                            + evidence.facts().fanoutDepth()
                            + " items");
        }
        out.figure(f, "submitted", submitted.size());
        out.figure(f, "claims", claims);
        out.figure(f, "acked", acked.size());
        out.figure(f, "lateAcksRefused", refused);
        out.figure(f, "ackedByDyingWorkers", dyingAcks.size());
        out.figure(f, "lost", lost);
    }
}
