package io.subetha.cxc.console;

import io.subetha.cxc.boot.eventlog.DeclaredEventLog;
import io.subetha.cxc.boot.eventlog.DeclaredEventLogs;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.eventlog.NamedReaders;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The declared event logs and, per named reader (every copy's {@code @CxcEventListener}s, from the
 * readers' file every process shares), the events it has yet to handle: what {@code
 * cxc.events.pending} shows for this copy's listeners alone.
 */
public final class EventBoard {

    private final @Nullable DeclaredEventLogs logs;

    /**
     * @param logs the starter's declared event logs, null without any
     */
    public EventBoard(@Nullable DeclaredEventLogs logs) {
        this.logs = logs;
    }

    /**
     * A named reader of a log.
     *
     * @param pid the process reading under the name now, null when none does
     * @param position the next sequence it handles
     * @param pending events published and not yet handled under this name
     * @param overwritten whether the log overwrote events it has not handled: the next holder skips
     *     them
     */
    public record Reader(
            String name, @Nullable Long pid, long position, long pending, boolean overwritten) {}

    /**
     * A declared event log.
     *
     * @param published events ever published to it
     * @param retainedFrom the oldest sequence it still holds
     */
    public record EventLog(
            String name, int capacity, long published, long retainedFrom, List<Reader> readers) {}

    public List<EventLog> logs() {
        List<EventLog> views = new ArrayList<>();
        if (logs == null) {
            return views;
        }
        for (DeclaredEventLog<?, ?> declared : logs.all().values()) {
            EventStateLog<?, ?> log = declared.log();
            if (log.isClosed() || declared.readers().isClosed()) {
                continue;
            }
            long published = log.emittedCount();
            long retained = log.oldestRetained();
            List<Reader> readers = new ArrayList<>();
            for (NamedReaders.ReaderInfo reader : declared.readers().readers()) {
                readers.add(
                        new Reader(
                                reader.name(),
                                reader.pid() == 0 ? null : reader.pid(),
                                reader.position(),
                                Math.max(0, published - reader.position()),
                                reader.position() < retained));
            }
            views.add(new EventLog(declared.name(), log.capacity(), published, retained, readers));
        }
        return views;
    }
}
