package io.subetha.cxc.eventlog;

import io.subetha.cxc.CxcException;

/**
 * A {@link EventLogReader} asked for an event the log no longer retains: it keeps the last {@code
 * capacity} events, and the reader fell further behind. Says which sequence was wanted and the
 * oldest one still retained, where the reader may {@linkplain EventLogReader#seek go on}.
 */
public class EventsOverwrittenException extends CxcException {

    private final long wanted;
    private final long firstAvailable;

    public EventsOverwrittenException(String log, long wanted, long firstAvailable) {
        super(
                "event "
                        + wanted
                        + " of "
                        + log
                        + " was overwritten: the log retains its last events only, and the oldest"
                        + " still retained is "
                        + firstAvailable
                        + "; seek("
                        + firstAvailable
                        + ") to go on from there, or read more often");
        this.wanted = wanted;
        this.firstAvailable = firstAvailable;
    }

    /** The sequence the reader asked for. */
    public long wanted() {
        return wanted;
    }

    /** The oldest sequence the log still retained when the reader asked. */
    public long firstAvailable() {
        return firstAvailable;
    }
}
