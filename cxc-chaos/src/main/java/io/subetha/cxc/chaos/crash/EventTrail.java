package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.eventlog.EventLogReader;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.eventlog.EventsOverwrittenException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The event log as a reader sees it from sequence 0: every committed event with its sequence, in
 * sequence order. The harness, which is never killed, follows the log through the run (the log
 * retains only its last {@code capacity} events), so the check has the whole order.
 */
public final class EventTrail {

    /** One committed event and its sequence. */
    public record Entry(long sequence, long event) {}

    private final @Nullable EventLogReader<Long> reader;
    private final List<Entry> entries = new ArrayList<>();
    private boolean overwritten;

    public EventTrail(EventStateLog<Long, ?> log) {
        this.reader = log.reader(0);
    }

    private EventTrail(List<Entry> entries, boolean overwritten) {
        this.reader = null;
        this.entries.addAll(entries);
        this.overwritten = overwritten;
    }

    /** A trail of given entries, for a check of a recorded or made-up run. */
    public static EventTrail of(List<Entry> entries, boolean overwritten) {
        return new EventTrail(entries, overwritten);
    }

    /** Reads what was committed since the last poll; once overwritten, it stops following. */
    public synchronized int poll() {
        EventLogReader<Long> r = reader;
        if (overwritten || r == null) {
            return 0;
        }
        try {
            // Inside the consumer the position is still the event's own sequence.
            return r.poll(e -> entries.add(new Entry(r.position(), e)));
        } catch (EventsOverwrittenException e) {
            overwritten = true;
            return 0;
        }
    }

    public synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    /** Whether the reader fell a capacity behind and lost events: the trail is then partial. */
    public synchronized boolean overwritten() {
        return overwritten;
    }
}
