/**
 * Liveness: who is alive, what dead processes leave behind, and phases every process finishes
 * together. {@link io.subetha.cxc.liveness.HeartbeatTable} (per-process heartbeat slots), {@link
 * io.subetha.cxc.liveness.FailoverWatchdog} (moves the work of dead slots to live ones) and {@link
 * io.subetha.cxc.liveness.EpochBarrier} (a cross-process phase barrier). The three number their op
 * kinds in one scheme, so a dashboard reads one: a beat is op 1, a claimed slot op 2, a wait 3, an
 * epoch tick 4, a scan 5, a release 6, a read 7, an assignment 8, a completion 9.
 */
@NullMarked
package io.subetha.cxc.liveness;

import org.jspecify.annotations.NullMarked;
