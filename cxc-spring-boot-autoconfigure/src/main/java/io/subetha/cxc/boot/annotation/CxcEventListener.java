package io.subetha.cxc.boot.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs the annotated method for every event of the event log declared by {@code
 * cxc.event-logs.<log>.*}, in the log's order, in every copy of the service: each copy reads the
 * log on a thread of its own that sleeps until an event is published. The method takes the event
 * (of the log's event type, checked at startup) and, optionally, a {@code long}: the event's
 * sequence in the log, the same in every copy.
 *
 * <pre>{@code
 * @CxcEventListener(log = "orders")
 * void onOrder(Order order, long sequence) { ... }
 * }</pre>
 *
 * <p><b>Resuming.</b> Each listener reads under a reader name, {@code
 * <cxc.listeners.copy-name>/<id>}, whose position is saved in {@code <cxc.directory>/<log>.readers}
 * after every event: a copy that restarts under the same copy name goes on after the last event it
 * handled. A new reader name starts at the oldest event the log retains.
 *
 * <p><b>At least once.</b> The position is saved right after the method returns: a copy killed
 * between the two handles that one event again when it restarts (its sequence says so). No other
 * event is handled twice, and none is skipped, with two exceptions that are logged and counted: an
 * event whose method threw (logged at ERROR, counted as {@code cxc.events.failed}, then passed),
 * and events the log overwrote before this listener read them (it retains its last {@code capacity}
 * events; the listener logs a WARN, counts them as {@code cxc.events.overwritten} and goes on from
 * the oldest one retained).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
// Called by reflection: a native image keeps each annotated method invocable.
@Reflective
public @interface CxcEventListener {

    /** The declared event log: {@code <log>} in {@code cxc.event-logs.<log>.*}. */
    String log();

    /**
     * The listener's name within its copy, part of its reader name; the same across restarts.
     * Default: {@code <bean name>.<method name>}.
     */
    String id() default "";
}
