/**
 * The event logs declared by {@code cxc.event-logs.<name>.*}: their fold on the leader's ticks, the
 * publisher, and the {@code @CxcEventListener} threads with their saved reader positions.
 */
@NullMarked
package io.subetha.cxc.boot.eventlog;

import org.jspecify.annotations.NullMarked;
