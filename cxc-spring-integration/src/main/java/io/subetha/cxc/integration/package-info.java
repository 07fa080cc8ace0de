/**
 * Spring Integration's {@code LockRegistry} over a cxc {@link io.subetha.cxc.ownership.OwnerLease}
 * file.
 */
@NullMarked
package io.subetha.cxc.integration;

import org.jspecify.annotations.NullMarked;
