package io.subetha.cxc.chaos.crash;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The scheduler's promise ({@code BackgroundScheduler}): a job's result is recorded at most once (a
 * completion of a re-queued attempt is refused) and at least once while some worker runs it, and
 * each result is collected once. So: no job id is acknowledged to two submits; a received or
 * collected job carries the payload it was submitted with; at most one completion per job answers
 * true, and the result collected is that attempt's; no result is collected twice; and every
 * acknowledged job's result is collected, except as many as collectors died inside a poll (a
 * collection is at most once: the dead collector had taken it). After recovery the file holds no
 * job.
 */
final class SchedulerCheck {

    private SchedulerCheck() {}

    static void check(Evidence evidence, Findings out) {
        Family s = Family.SCHEDULER;
        Map<Long, Long> submitted = new HashMap<>(); // id -> payload
        Set<Long> begun = new HashSet<>();
        Set<Long> full = new HashSet<>();
        Map<Long, Long> recordedAttempt = new HashMap<>();
        Map<Long, Long> collectedAttempt = new HashMap<>();
        long refused = 0;
        long received = 0;
        // Histories are read one after another: learn every submit and completion first.
        for (HistoryLine l : evidence.lines(s)) {
            switch (l.op()) {
                case "submit-begin" -> begun.add(l.longField(0));
                case "full" -> full.add(l.longField(0));
                case "submitted" -> {
                    Long before = submitted.put(l.longField(0), l.longField(1));
                    if (before != null) {
                        out.violation(
                                s,
                                "job id "
                                        + l.longField(0)
                                        + " acknowledged to two submits (payloads "
                                        + before
                                        + " and "
                                        + l.longField(1)
                                        + ")");
                    }
                }
                case "completed" -> {
                    if (Boolean.parseBoolean(l.field(2))) {
                        Long before = recordedAttempt.put(l.longField(0), l.longField(1));
                        if (before != null) {
                            out.violation(
                                    s,
                                    "job "
                                            + l.longField(0)
                                            + " recorded twice: attempts "
                                            + before
                                            + " and "
                                            + l.longField(1));
                        }
                    } else {
                        refused++;
                    }
                }
                default -> {}
            }
        }
        for (HistoryLine l : evidence.lines(s)) {
            switch (l.op()) {
                case "received" -> {
                    received++;
                    payloadMatches(out, l, l.longField(0), l.longField(2), submitted, begun, full);
                }
                case "collected" -> {
                    long id = l.longField(0);
                    long payload = SchedulerLoad.resultOf(l.longField(2));
                    payloadMatches(out, l, id, payload, submitted, begun, full);
                    Long recorded = recordedAttempt.get(id);
                    if (recorded != null && recorded != l.longField(1)) {
                        out.violation(
                                s,
                                "job "
                                        + id
                                        + " collected with attempt "
                                        + l.longField(1)
                                        + "'s result, but attempt "
                                        + recorded
                                        + "'s completion was the one recorded");
                    }
                    if (collectedAttempt.put(id, l.longField(1)) != null) {
                        out.violation(s, "job " + id + "'s result collected twice");
                    }
                }
                default -> {}
            }
        }
        // A collector killed inside poll(1) may have taken one result with it.
        long diedCollecting =
                evidence.lastLines(s).values().stream()
                        .filter(l -> l.op().equals("collect-begin"))
                        .count();
        long undelivered =
                submitted.keySet().stream().filter(id -> !collectedAttempt.containsKey(id)).count();
        if (undelivered > diedCollecting) {
            out.violation(
                    s,
                    undelivered
                            + " acknowledged jobs were never delivered, but only "
                            + diedCollecting
                            + " collectors died inside a poll; e.g. job "
                            + submitted.keySet().stream()
                                    .filter(id -> !collectedAttempt.containsKey(id))
                                    .sorted()
                                    .findFirst()
                                    .orElseThrow());
        }
        FileFacts f = evidence.facts();
        if (f.schedulerQueued() + f.schedulerRunning() + f.schedulerDone() != 0) {
            out.violation(
                    s,
                    "after recovery the file still holds "
                            + f.schedulerQueued()
                            + " queued, "
                            + f.schedulerRunning()
                            + " running and "
                            + f.schedulerDone()
                            + " uncollected jobs");
        }
        out.figure(s, "submitted", submitted.size());
        out.figure(s, "received", received);
        out.figure(s, "recorded", recordedAttempt.size());
        out.figure(s, "lateCompletionsRefused", refused);
        out.figure(s, "collected", collectedAttempt.size());
        out.figure(s, "lostWithDeadCollectors", undelivered);
    }

    private static void payloadMatches(
            Findings out,
            HistoryLine l,
            long id,
            long payload,
            Map<Long, Long> submitted,
            Set<Long> begun,
            Set<Long> full) {
        Long expected = submitted.get(id);
        if (expected != null && expected != payload) {
            out.violation(
                    Family.SCHEDULER,
                    "job "
                            + id
                            + " was submitted with payload "
                            + expected
                            + " but "
                            + l.op()
                            + " with "
                            + payload);
        } else if (!begun.contains(payload) || full.contains(payload)) {
            out.violation(
                    Family.SCHEDULER,
                    "job "
                            + id
                            + " "
                            + l.op()
                            + " with payload "
                            + payload
                            + ", which "
                            + (full.contains(payload)
                                    ? "was refused as full"
                                    : "nobody submitted"));
        }
    }
}
