package io.subetha.cxc.boot.eventlog;

import io.subetha.cxc.eventlog.EventLogReader;
import io.subetha.cxc.eventlog.EventsOverwrittenException;
import io.subetha.cxc.eventlog.NamedReaders;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One {@code @CxcEventListener} method of this copy: a thread that reads its log under the reader
 * name {@code <copy-name>/<id>} from the name's saved position, calls the method for each event in
 * order, and saves the position past it; between events it sleeps on the log's doorbell ({@link
 * EventLogReader#await}), which every publish rings.
 *
 * <p>The position is saved after the method returns, so a copy killed in between hands that one
 * event over again when it restarts (at-least-once). A method that throws is logged and counted,
 * and the event passed: one bad event does not stop the log for this copy. Events the log overwrote
 * before this listener read them are logged, counted, and skipped to the oldest one retained.
 */
final class EventLogListener<E> {

    private static final Log logger = LogFactory.getLog(EventLogListener.class);

    /** The longest one sleep on the doorbell: a stop interrupts it sooner. */
    private static final Duration AWAIT = Duration.ofSeconds(1);

    private final DeclaredEventLog<E, ?> log;
    private final String id;
    private final String readerName;
    private final Object bean;
    private final Method method;
    private final boolean withSequence;
    private final EventListenerObserver observer;
    private volatile boolean running;
    private volatile boolean waiting;
    private volatile NamedReaders.@Nullable Seat seat;
    private @Nullable Thread thread;

    EventLogListener(
            DeclaredEventLog<E, ?> log,
            String id,
            String readerName,
            Object bean,
            Method method,
            EventListenerObserver observer) {
        this.log = log;
        this.id = id;
        this.readerName = readerName;
        this.bean = bean;
        this.method = method;
        this.withSequence = method.getParameterCount() == 2;
        this.observer = observer;
    }

    String log() {
        return log.name();
    }

    String id() {
        return id;
    }

    String readerName() {
        return readerName;
    }

    /** Events published and not yet handled here: 0 before the start. */
    long pending() {
        NamedReaders.Seat held = seat;
        return held == null ? 0 : Math.max(0, log.log().emittedCount() - held.position());
    }

    /**
     * Claims the reader name (refused when a live process reads under it) and starts the thread.
     */
    void start() {
        NamedReaders.Seat claimed = log.readers().claim(readerName, log.log()::oldestRetained);
        long emitted = log.log().emittedCount();
        if (claimed.position() > emitted) {
            // Sequences only grow: the log file was made anew (removed to change its capacity)
            // under a reader table that outlived it. Its events are all new to this reader.
            logger.warn(
                    "cxc: reader '"
                            + readerName
                            + "' saved position "
                            + claimed.position()
                            + ", but event log '"
                            + log.name()
                            + "' holds "
                            + emitted
                            + " events: the log was made anew, so it reads from its oldest event");
            claimed.save(log.log().oldestRetained());
        }
        seat = claimed;
        observer.listening(log.name(), id, this::pending);
        running = true;
        Thread t = new Thread(() -> read(claimed), "cxc-listener-" + log.name() + "-" + id);
        t.setDaemon(true);
        thread = t;
        t.start();
        logger.info(
                "cxc: "
                        + describe()
                        + " reads event log '"
                        + log.name()
                        + "' as reader '"
                        + readerName
                        + "' from sequence "
                        + claimed.position());
    }

    /** Stops reading after the event in hand, waiting at most {@code timeout} for it. */
    void stop(Duration timeout) throws InterruptedException {
        running = false;
        Thread t = thread;
        if (t == null) {
            return;
        }
        // Either the thread sees running false before it sleeps, or this sees it sleeping.
        if (waiting) {
            t.interrupt();
        }
        t.join(timeout.toMillis());
        if (t.isAlive()) {
            logger.warn(
                    "cxc: "
                            + describe()
                            + " did not finish its event within "
                            + timeout
                            + "; interrupting it");
            t.interrupt();
            t.join(timeout.toMillis());
        }
    }

    boolean isAlive() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    private void read(NamedReaders.Seat claimed) {
        try (EventLogReader<E> reader = log.log().reader(claimed.position())) {
            while (running) {
                try {
                    while (running && reader.poll(event -> handle(event, reader, claimed), 1) > 0) {
                        // one event at a time: a stop is seen between any two
                    }
                } catch (EventsOverwrittenException overwritten) {
                    skip(reader, claimed, overwritten);
                    continue;
                }
                waiting = true;
                try {
                    if (running) {
                        reader.await(AWAIT);
                    }
                } finally {
                    waiting = false;
                    Thread.interrupted(); // a stop's interrupt: running says what to do
                }
            }
        } catch (RuntimeException | Error unexpected) {
            if (running) {
                logger.error(
                        "cxc: " + describe() + " stopped reading event log '" + log.name() + "'",
                        unexpected);
            }
        } finally {
            claimed.close();
        }
    }

    private void handle(E event, EventLogReader<E> reader, NamedReaders.Seat claimed) {
        long sequence = reader.position();
        try {
            if (withSequence) {
                method.invoke(bean, event, sequence);
            } else {
                method.invoke(bean, event);
            }
        } catch (InvocationTargetException e) {
            observer.failed(log.name(), id);
            logger.error(
                    "cxc: "
                            + describe()
                            + " threw for event "
                            + sequence
                            + " of event log '"
                            + log.name()
                            + "'; the event is passed",
                    e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot call " + describe(), e);
        }
        claimed.save(sequence + 1);
    }

    private void skip(
            EventLogReader<E> reader, NamedReaders.Seat claimed, EventsOverwrittenException e) {
        long skipped = e.firstAvailable() - reader.position();
        observer.overwritten(log.name(), id, skipped);
        logger.warn(
                "cxc: "
                        + describe()
                        + " fell behind event log '"
                        + log.name()
                        + "', which retains its last "
                        + log.log().capacity()
                        + " events (cxc.event-logs."
                        + log.name()
                        + ".capacity): events "
                        + reader.position()
                        + " to "
                        + (e.firstAvailable() - 1)
                        + " were overwritten before it read them and are skipped; it goes on"
                        + " from "
                        + e.firstAvailable());
        reader.seek(e.firstAvailable());
        claimed.save(e.firstAvailable());
    }

    String describe() {
        return "@CxcEventListener "
                + method.getDeclaringClass().getSimpleName()
                + "."
                + method.getName();
    }
}
