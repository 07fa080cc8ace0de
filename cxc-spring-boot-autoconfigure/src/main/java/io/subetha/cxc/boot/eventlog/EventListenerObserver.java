package io.subetha.cxc.boot.eventlog;

import java.util.function.LongSupplier;

/**
 * Sees this copy's event-log listeners: the starter's metrics show each one's events pending as
 * {@code cxc.events.pending{log,listener}} and count what it skipped. A bean of this type is picked
 * up when the listeners are found.
 */
public interface EventListenerObserver {

    /** Sees nothing: without Micrometer. */
    EventListenerObserver NONE =
            new EventListenerObserver() {
                @Override
                public void listening(String log, String listener, LongSupplier pending) {}

                @Override
                public void overwritten(String log, String listener, long events) {}

                @Override
                public void failed(String log, String listener) {}
            };

    /** A listener started: {@code pending} says how many events it has yet to handle. */
    void listening(String log, String listener, LongSupplier pending);

    /** The log overwrote {@code events} events before the listener read them. */
    void overwritten(String log, String listener, long events);

    /** The listener's method threw for one event. */
    void failed(String log, String listener);
}
