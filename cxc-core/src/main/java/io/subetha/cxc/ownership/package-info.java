/** Ownership: who leads. {@link io.subetha.cxc.ownership.SharedLeaderElection}. */
@NullMarked
package io.subetha.cxc.ownership;

import org.jspecify.annotations.NullMarked;
