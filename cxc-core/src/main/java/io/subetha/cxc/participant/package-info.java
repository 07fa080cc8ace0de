/**
 * A handle's participant record in a primitive's table of {@link io.subetha.cxc.claim.OwnerRecord
 * owner records}, for primitives whose slot words name the participant that holds them (the
 * priority fan-out, the background scheduler): claiming a record on first use, beating it, judging
 * every held record and repairing what dead or silent participants left ({@link
 * io.subetha.cxc.participant.ParticipantRecord}), and the short lap tags those slot words carry
 * ({@link io.subetha.cxc.participant.LapTags}). It knows no primitive: each hands it the offsets,
 * the buffer and the repair of its own slots.
 */
@NullMarked
package io.subetha.cxc.participant;

import org.jspecify.annotations.NullMarked;
