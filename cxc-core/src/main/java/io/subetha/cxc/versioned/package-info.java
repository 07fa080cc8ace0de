/**
 * Versioned state: {@link io.subetha.cxc.versioned.SharedVersionedChain} (an append-only history of
 * versions, the retained ones readable back) and {@link
 * io.subetha.cxc.versioned.SharedTimePointTile} (values recorded at time points known in advance,
 * looked up as of a time). Op kinds are shared by the family: {@link
 * io.subetha.cxc.versioned.VersionedOps}.
 */
@NullMarked
package io.subetha.cxc.versioned;

import org.jspecify.annotations.NullMarked;
