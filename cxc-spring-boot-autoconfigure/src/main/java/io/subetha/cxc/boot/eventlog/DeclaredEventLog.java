package io.subetha.cxc.boot.eventlog;

import io.subetha.cxc.boot.EventLogCodecs;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.eventlog.NamedReaders;
import java.time.Duration;
import org.springframework.util.ClassUtils;

/**
 * One event log declared by {@code cxc.event-logs.<name>.*}: its file, its codecs and fold, and the
 * table of its named readers' positions ({@code <name>.readers}).
 *
 * @param name the declared name
 * @param log the log's handle (the bean {@code <name>})
 * @param codecs what it holds and how it folds
 * @param readers its readers' saved positions
 * @param codecsDeclared whether a bean gave the codecs (else {@link #defaultCodecs})
 */
public record DeclaredEventLog<E, S>(
        String name,
        EventStateLog<E, S> log,
        EventLogCodecs<E, S> codecs,
        NamedReaders readers,
        boolean codecsDeclared) {

    /** How long a fold waits for another live drainer before this one gives up its turn. */
    static final Duration DRAIN_WAIT = Duration.ofSeconds(1);

    /** Folds the pending events into the state; returns how many. */
    public int fold() {
        return log.drainAndFold(codecs::fold, DRAIN_WAIT);
    }

    /**
     * Folds the pending events unless another process holds the drain turn now: never waits, so the
     * leader's ticker is never held up by a drainer (a stopped one holds the turn until it runs
     * again or dies).
     *
     * @throws io.subetha.cxc.CxcTimeoutException if another live process holds the turn
     */
    public int foldIfFree() {
        return log.drainAndFold(codecs::fold, Duration.ZERO);
    }

    /**
     * Appends {@code event}; when the log is full, folds it first, so no publisher waits for the
     * leader's next tick.
     */
    public void publish(Object event) {
        E typed = cast(event);
        if (!log.tryEmit(typed)) {
            fold();
            log.emit(typed);
        }
    }

    private E cast(Object event) {
        if (event == null || !codecs.eventType().isInstance(event)) {
            throw new IllegalArgumentException(
                    "event log '"
                            + name
                            + "' holds "
                            + codecs.eventType().getName()
                            + " events ("
                            + source()
                            + "), not "
                            + (event == null ? "null" : event.getClass().getName()));
        }
        return codecs.eventType().cast(event);
    }

    /** Whether a parameter of {@code type} takes this log's events. */
    public boolean accepts(Class<?> type) {
        return ClassUtils.resolvePrimitiveIfNecessary(type).isAssignableFrom(codecs.eventType());
    }

    /** Where the event type comes from, for messages. */
    public String source() {
        return codecsDeclared
                ? "as its EventLogCodecs bean " + codecs + " says"
                : "no EventLogCodecs bean names it, so it holds long events";
    }

    /** The codecs of a declared log that no {@link EventLogCodecs} bean names: counted longs. */
    public static EventLogCodecs<Long, Long> defaultCodecs(String log) {
        return EventLogCodecs.of(log, Long.class, FixedCodec.INT64);
    }
}
