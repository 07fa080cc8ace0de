/**
 * This process's leader ticker, the tasks it runs after each election round, its leadership, and
 * {@link io.subetha.cxc.boot.ticker.LeadershipTier}, the plug-in point for a tier of leadership
 * above the host (cxc-zookeeper).
 */
@NullMarked
package io.subetha.cxc.boot.ticker;

import org.jspecify.annotations.NullMarked;
