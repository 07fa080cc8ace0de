package io.subetha.cxc.boot.eventlog;

import io.subetha.cxc.boot.CxcEventPublisher;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;

/** The {@link CxcEventPublisher} over the declared event logs. */
public final class DeclaredEventPublisher implements CxcEventPublisher {

    private final ObjectProvider<DeclaredEventLogs> logs;

    public DeclaredEventPublisher(ObjectProvider<DeclaredEventLogs> logs) {
        this.logs = logs;
    }

    @Override
    public void publish(String log, Object event) {
        require(logs.getIfAvailable(), log, "publish to it").publish(event);
    }

    /** The declared log {@code name}; throws saying how to declare it. */
    static DeclaredEventLog<?, ?> require(
            DeclaredEventLogs declared, String name, String toDoWhat) {
        Map<String, DeclaredEventLog<?, ?>> all = declared == null ? Map.of() : declared.all();
        DeclaredEventLog<?, ?> log = all.get(name);
        if (log == null) {
            throw new IllegalArgumentException(
                    "no event log '"
                            + name
                            + "' is declared"
                            + (all.isEmpty() ? "" : " (the declared ones are " + all.keySet() + ")")
                            + ": declare it, e.g. cxc.event-logs."
                            + name
                            + ".capacity=4096, to "
                            + toDoWhat);
        }
        return log;
    }
}
