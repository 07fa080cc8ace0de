/**
 * Who leads ({@link io.subetha.cxc.election.SharedLeaderElection}, driven by {@link
 * io.subetha.cxc.election.ElectionParticipant}) and the fence that makes a term count downstream
 * ({@link io.subetha.cxc.election.FencedLedger}).
 */
@NullMarked
package io.subetha.cxc.election;

import org.jspecify.annotations.NullMarked;
