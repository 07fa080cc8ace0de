/**
 * The crash checker for every family at once: {@link io.subetha.cxc.chaos.crash.CrashWorker} is one
 * JVM running a mixed workload (scheduler, fan-out, event log, lease with a fenced ledger, region)
 * on one directory and logging each operation to its own {@link
 * io.subetha.cxc.chaos.crash.History}; after the run {@link
 * io.subetha.cxc.chaos.crash.CrashRecovery} recovers the files as a survivor would, and {@link
 * io.subetha.cxc.chaos.crash.CrashCheck} reads every history and the files and checks each family's
 * promise.
 */
@NullMarked
package io.subetha.cxc.chaos.crash;

import org.jspecify.annotations.NullMarked;
