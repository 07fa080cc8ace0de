package io.subetha.cxc.chaos.crash;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The event log's promise ({@code EventStateLog}): every committed event has one sequence, a
 * producer's sequences rise in its program order, a sequence holds no event only if its emitter
 * died between reserving and committing it (a gap), and the published state is always the fold of
 * the committed events before the read position, each folded once, in sequence order. So: every
 * acknowledged emit is in the trail once and no refused one is; gaps are no more than the emitters
 * that died inside an emit; every state a worker read is the fold of a prefix of the trail; and
 * after recovery everything emitted is folded, into the fold of the whole trail.
 */
final class EventCheck {

    private EventCheck() {}

    static void check(Evidence evidence, Findings out) {
        Family e = Family.EVENTS;
        List<EventTrail.Entry> trail = evidence.trail().entries();
        if (evidence.trail().overwritten()) {
            out.violation(
                    e,
                    "the harness's reader fell a capacity behind after "
                            + trail.size()
                            + " events: the trail is partial (raise the event log's capacity)");
        }
        Map<Long, Long> sequenceOf = new HashMap<>();
        Map<Integer, Long> lastCounter = new HashMap<>();
        Fold[] prefix = new Fold[trail.size() + 1];
        prefix[0] = Fold.EMPTY;
        for (int i = 0; i < trail.size(); i++) {
            EventTrail.Entry entry = trail.get(i);
            prefix[i + 1] = prefix[i].with(entry.event());
            Long before = sequenceOf.put(entry.event(), entry.sequence());
            if (before != null) {
                out.violation(
                        e,
                        "event "
                                + entry.event()
                                + " committed twice, at sequences "
                                + before
                                + " and "
                                + entry.sequence());
            }
            int worker = Load.workerOf(entry.event());
            long counter = Load.counterOf(entry.event());
            Long previous = lastCounter.put(worker, counter);
            if (previous != null && previous >= counter) {
                out.violation(
                        e,
                        "worker "
                                + worker
                                + "'s event "
                                + counter
                                + " has a sequence after its later event "
                                + previous);
            }
        }
        Set<Long> begun = new HashSet<>();
        long acknowledged = 0;
        long drains = 0;
        for (HistoryLine l : evidence.lines(e)) {
            switch (l.op()) {
                case "emit-begin" -> begun.add(l.longField(0));
                case "emitted" -> {
                    acknowledged++;
                    if (!sequenceOf.containsKey(l.longField(0))
                            && !evidence.trail().overwritten()) {
                        out.violation(
                                e, "event " + l.longField(0) + " was acknowledged and is missing");
                    }
                }
                case "full" -> {
                    if (sequenceOf.containsKey(l.longField(0))) {
                        out.violation(
                                e, "event " + l.longField(0) + " was refused as full but is in");
                    }
                }
                case "drained" -> {
                    drains++;
                    long count = l.longField(1);
                    long hash = l.longField(2);
                    if (count > trail.size() || prefix[(int) count].hash() != hash) {
                        out.violation(
                                e,
                                "worker "
                                        + l.worker()
                                        + " read a state of "
                                        + count
                                        + " events that is not the fold of the log's first "
                                        + count);
                    }
                }
                default -> {}
            }
        }
        for (EventTrail.Entry entry : trail) {
            if (!begun.contains(entry.event())) {
                out.violation(e, "event " + entry.event() + " is in the log; nobody emitted it");
            }
        }
        FileFacts f = evidence.facts();
        long dyingEmits =
                evidence.lastLines(e).values().stream()
                        .filter(l -> l.op().equals("emit-begin"))
                        .filter(l -> !sequenceOf.containsKey(l.longField(0)))
                        .count();
        if (f.eventGaps() > dyingEmits) {
            out.violation(
                    e,
                    f.eventGaps()
                            + " gaps, but only "
                            + dyingEmits
                            + " emitters died inside an emit without committing");
        }
        if (!evidence.trail().overwritten() && trail.size() + f.eventGaps() != f.eventsEmitted()) {
            out.violation(
                    e,
                    f.eventsEmitted()
                            + " sequences reserved, but "
                            + trail.size()
                            + " events and "
                            + f.eventGaps()
                            + " gaps");
        }
        if (f.eventsFolded() != f.eventsEmitted()) {
            out.violation(
                    e,
                    "after recovery "
                            + f.eventsFolded()
                            + " of "
                            + f.eventsEmitted()
                            + " sequences are folded");
        }
        if (!evidence.trail().overwritten() && !f.eventState().equals(prefix[trail.size()])) {
            out.violation(
                    e,
                    "after recovery the state is "
                            + f.eventState()
                            + ", not the fold of the whole log "
                            + prefix[trail.size()]);
        }
        out.figure(e, "emitted", acknowledged);
        out.figure(e, "committed", trail.size());
        out.figure(e, "gaps", f.eventGaps());
        out.figure(e, "drains", drains);
        out.figure(e, "folded", f.eventState().count());
    }
}
