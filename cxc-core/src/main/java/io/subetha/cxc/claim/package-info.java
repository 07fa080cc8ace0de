/**
 * The claim: the one protocol by which a process claims anything in a shared file ({@link
 * io.subetha.cxc.claim.OwnerRecord}, judged {@link io.subetha.cxc.claim.OwnerStatus}), and the one
 * writer lock with redo that multi-word changes take ({@link io.subetha.cxc.claim.IntentLock}).
 * Every family builds on it; it imports no family.
 */
@NullMarked
package io.subetha.cxc.claim;

import org.jspecify.annotations.NullMarked;
