package io.subetha.cxc.boot.eventlog;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.boot.EventLogCodecs;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.eventlog.EventStateLogDescriptor;
import io.subetha.cxc.mmf.CxcFileOptions;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The event logs declared by {@code cxc.event-logs.<name>.*}, as the starter serves them: on every
 * tick of the leader ticker the leader folds each log's pending events into its state (so a log
 * does not fill while its events are published at less than {@code capacity} a tick), and {@link
 * DeclaredEventLog#publish} folds a full log itself. Closes the reader tables when the context
 * closes (the logs are beans of their own).
 */
public final class DeclaredEventLogs implements TickTask, AutoCloseable {

    private static final Log logger = LogFactory.getLog(DeclaredEventLogs.class);

    /** The file of a declared log: {@code <name>.events}. */
    public static final String SUFFIX = ".events";

    /** The file of a declared log's named readers: {@code <name>.readers}. */
    public static final String READERS_SUFFIX = ".readers";

    private final Map<String, DeclaredEventLog<?, ?>> logs;
    private final BooleanSupplier leads;

    /**
     * @param logs every declared log, by name
     * @param leads whether this process leads now: it folds on its ticks
     */
    public DeclaredEventLogs(Map<String, DeclaredEventLog<?, ?>> logs, BooleanSupplier leads) {
        this.logs = new LinkedHashMap<>(logs);
        this.leads = leads;
    }

    @Override
    public void onTick() {
        if (!leads.getAsBoolean()) {
            return;
        }
        for (DeclaredEventLog<?, ?> declared : logs.values()) {
            if (declared.log().isClosed() || declared.log().pendingCount() == 0) {
                continue;
            }
            try {
                declared.foldIfFree();
            } catch (CxcTimeoutException busy) {
                // Another process folds it now; the next tick tries again.
                logger.debug("cxc event log " + declared.name() + ": " + busy.getMessage());
            }
        }
    }

    public Optional<DeclaredEventLog<?, ?>> find(String name) {
        return Optional.ofNullable(logs.get(name));
    }

    public Map<String, DeclaredEventLog<?, ?>> all() {
        return Map.copyOf(logs);
    }

    @Override
    public void close() {
        logs.values().forEach(declared -> declared.readers().close());
    }

    /**
     * The one codecs bean naming {@code log}, or null when none does (the log then holds counted
     * longs); throws naming the property when two do.
     */
    public static @Nullable EventLogCodecs<?, ?> codecsFor(
            String log, List<EventLogCodecs<?, ?>> all) {
        List<EventLogCodecs<?, ?>> named = all.stream().filter(c -> log.equals(c.log())).toList();
        if (named.size() > 1) {
            throw new InvalidCxcPropertyException(
                    "cxc.event-logs." + log,
                    log,
                    named.size() + " EventLogCodecs beans name event log '" + log + "': " + named,
                    "Keep one EventLogCodecs bean per event log.");
        }
        return named.isEmpty() ? null : named.get(0);
    }

    /** Opens a declared log's file with the codecs its bean gives (or counted longs). */
    public static EventStateLog<?, ?> open(
            String name,
            Path file,
            EventStateLog.Settings<?, ?> declared,
            CxcFileOptions options,
            List<EventLogCodecs<?, ?>> codecs) {
        EventLogCodecs<?, ?> given = codecsFor(name, codecs);
        if (given == null) {
            return open(name, file, declared, options, DeclaredEventLog.defaultCodecs(name));
        }
        return open(name, file, declared, options, given);
    }

    private static <E, S> EventStateLog<E, S> open(
            String name,
            Path file,
            EventStateLog.Settings<?, ?> declared,
            CxcFileOptions options,
            EventLogCodecs<E, S> codecs) {
        EventStateLog.Settings<E, S> settings;
        try {
            settings =
                    new EventStateLog.Settings<>(
                            declared.capacity(),
                            codecs.eventCodec(),
                            codecs.stateCodec(),
                            codecs.initialState());
        } catch (CxcSettingsException e) {
            throw new InvalidCxcPropertyException(
                    "cxc.event-logs." + name,
                    name,
                    "the " + e.setting() + " of bean " + codecs + " is refused: " + e.getMessage(),
                    "Give codecs of at most "
                            + EventStateLogDescriptor.MAX_PAYLOAD
                            + " bytes, or a smaller cxc.event-logs."
                            + name
                            + ".capacity.");
        }
        return EventStateLog.TYPE.openOrCreate(file, settings, options);
    }
}
