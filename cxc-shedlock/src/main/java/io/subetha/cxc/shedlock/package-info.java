/** ShedLock's {@code LockProvider} over a cxc {@link io.subetha.cxc.lease.OwnerLease} file. */
@NullMarked
package io.subetha.cxc.shedlock;

import org.jspecify.annotations.NullMarked;
