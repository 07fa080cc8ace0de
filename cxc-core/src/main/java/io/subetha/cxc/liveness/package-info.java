/**
 * Liveness: who is alive, what dead processes leave behind, and phases every process finishes
 * together. {@link io.subetha.cxc.liveness.HeartbeatTable} (per-process heartbeat slots), {@link
 * io.subetha.cxc.liveness.FailoverWatchdog} (moves the work of dead slots to live ones) and {@link
 * io.subetha.cxc.liveness.EpochBarrier} (a cross-process phase barrier). Op kinds are shared by the
 * family: {@link io.subetha.cxc.liveness.LivenessOps}.
 */
@NullMarked
package io.subetha.cxc.liveness;

import org.jspecify.annotations.NullMarked;
