/**
 * Scheduling: jobs submitted by any process, run by any worker and their results collected once
 * ({@link io.subetha.cxc.scheduling.BackgroundScheduler}).
 */
@NullMarked
package io.subetha.cxc.scheduling;

import org.jspecify.annotations.NullMarked;
