/**
 * SubEtha CXC: cross-process coordination primitives that live in memory-mapped files.
 *
 * <p>Every primitive extends {@link io.subetha.cxc.primitive.MappedPrimitive} (a validated mapped
 * file, its body, its op counters) and throws {@link io.subetha.cxc.CxcException}s. Families:
 * {@link io.subetha.cxc.mmf} (the substrate every primitive stands on), {@link
 * io.subetha.cxc.observe} (op counting and the registry), {@link io.subetha.cxc.process} (process
 * identity and liveness), {@link io.subetha.cxc.ownership} (leader election, the fenced ledger),
 * {@link io.subetha.cxc.liveness} (heartbeat table, failover watchdog, epoch barrier).
 */
@NullMarked
package io.subetha.cxc;

import org.jspecify.annotations.NullMarked;
