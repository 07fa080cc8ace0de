/**
 * The {@code cxc.*} Micrometer meters, and the {@code @LeaderOnly} calls' counters and
 * observations.
 */
@NullMarked
package io.subetha.cxc.boot.actuate.metrics;

import org.jspecify.annotations.NullMarked;
