package io.subetha.cxc.boot;

/**
 * Emits events into the event logs declared by {@code cxc.event-logs.<name>.*}: every copy of the
 * service may publish, and every copy's {@link io.subetha.cxc.boot.annotation.CxcEventListener}s of
 * the log receive each event, in the log's order.
 *
 * <p>Publishing does not depend on a drainer: the leader folds each log on its ticks, and a
 * publisher that finds the log full (its capacity of events pending, not yet folded) folds it
 * itself and publishes. It is refused only while a stopped ({@code SIGSTOP}ped) process holds the
 * oldest pending event ({@link io.subetha.cxc.CxcCapacityException}) or the drain turn ({@link
 * io.subetha.cxc.CxcTimeoutException}, after a second).
 */
public interface CxcEventPublisher {

    /**
     * Appends {@code event} to the log {@code log}, after every event this thread published there
     * before.
     *
     * @throws IllegalArgumentException if no event log {@code log} is declared, or {@code event} is
     *     not of its event type (see {@link EventLogCodecs})
     */
    void publish(String log, Object event);
}
