/** Named leases with a fencing token per acquisition ({@link io.subetha.cxc.lease.OwnerLease}). */
@NullMarked
package io.subetha.cxc.lease;

import org.jspecify.annotations.NullMarked;
