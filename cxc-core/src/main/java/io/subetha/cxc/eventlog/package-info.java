/**
 * The event log: {@link io.subetha.cxc.eventlog.EventStateLog} (producers in any process emit
 * events; one drainer at a time folds them into a shared, materialised state) and its followers,
 * {@link io.subetha.cxc.eventlog.EventLogReader}.
 */
@NullMarked
package io.subetha.cxc.eventlog;

import org.jspecify.annotations.NullMarked;
