/**
 * Versioned state: {@link io.subetha.cxc.versioned.SharedVersionedChain} (an append-only history of
 * versions, the retained ones readable back) and {@link
 * io.subetha.cxc.versioned.SharedTimePointTile} (values recorded at time points known in advance,
 * looked up as of a time). Both number their op kinds alike (the seed's numbering): a value written
 * is op 1 in both.
 */
@NullMarked
package io.subetha.cxc.versioned;

import org.jspecify.annotations.NullMarked;
