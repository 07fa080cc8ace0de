/**
 * Spring Integration's {@code LockRegistry} over a cxc {@link io.subetha.cxc.lease.OwnerLease}
 * file.
 */
@NullMarked
package io.subetha.cxc.integration;

import org.jspecify.annotations.NullMarked;
