/**
 * Ownership: the one protocol by which a process claims anything in a shared file ({@link
 * io.subetha.cxc.ownership.OwnerRecord}, judged {@link io.subetha.cxc.ownership.OwnerStatus}), who
 * leads ({@link io.subetha.cxc.ownership.SharedLeaderElection}) and the fence that makes its term
 * count downstream ({@link io.subetha.cxc.ownership.FencedLedger}), and named leases with a fencing
 * token per acquisition ({@link io.subetha.cxc.ownership.OwnerLease}).
 */
@NullMarked
package io.subetha.cxc.ownership;

import org.jspecify.annotations.NullMarked;
