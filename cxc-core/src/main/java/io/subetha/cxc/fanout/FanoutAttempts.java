package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.ATTEMPTS_OFFSET;

import io.subetha.cxc.mmf.AtomicBuffer;

/**
 * The attempts word of a {@link PriorityFanout} slot ({@link PriorityFanoutDescriptor}): how many
 * claims of the item the slot holds were made, by every process, so that a handler's retry limit is
 * one limit across processes and survives a handler's death.
 *
 * <p><b>Raised by the claimer, after its claim's CAS, keyed by the claimed lap.</b> The claimer won
 * the slot's CAS to {@code CLAIMED(me)} at lap {@code L}; it then reads the attempts word {@code w}
 * and CASes it from {@code w} to {@code (L, n + 1)}, where {@code n} is {@code w}'s count if {@code
 * w} is of lap {@code L}, else 0. It writes only on behalf of the claim it won, and only over a
 * word of lap {@code L} or an older one:
 *
 * <ul>
 *   <li>Its claim may be returned by a scan (its process judged silent) before it raises; a later
 *       claim of the same item raises the same lap's count. Both claims ran the handler, so both
 *       count; the CAS from the word read makes the two raises add up (one fails and reads again).
 *   <li>A claimer stopped long enough for the item to be acknowledged and the slot refilled finds
 *       the word of a later lap (raised by that lap's claimer) and leaves it, and a word of its own
 *       lap is one a later lap's claimer counts as 0. So a stale claimer never corrupts the next
 *       lap's count. (Laps compare as 32-bit serial numbers: a claimer stopped for 2^31 laps of its
 *       slot could be mistaken, which no process lives to see.)
 *   <li>Killed between its claim and its raise, the claim is returned uncounted: its handler never
 *       ran. Killed after the raise, the attempt counts: a handler killed mid-item used one.
 * </ul>
 *
 * A drain takes without counting, and a new lap's item starts at 0 without a write at submit.
 */
final class FanoutAttempts {

    private FanoutAttempts() {}

    /**
     * Counts one more claim of the item at {@code slot}, claimed by the caller at {@code lap}.
     *
     * @return the claims of that item now, this one included; at least 1
     */
    static int raise(AtomicBuffer body, int slot, long lap) {
        int at = slot + ATTEMPTS_OFFSET;
        int tag = (int) lap;
        while (true) {
            long word = body.getLongVolatile(at);
            int seenTag = (int) (word >>> 32);
            if (seenTag - tag > 0) {
                // A later lap's item holds the slot: this claim was returned and the item done.
                return 1;
            }
            int count = seenTag == tag ? (int) word : 0;
            int raised = count == Integer.MAX_VALUE ? count : count + 1;
            if (body.compareAndSetLong(at, word, ((long) tag << 32) | (raised & 0xFFFF_FFFFL))) {
                return raised;
            }
        }
    }

    /** The claims counted for the item of lap {@code lap} at {@code slot} (0 if none yet). */
    static int of(AtomicBuffer body, int slot, long lap) {
        long word = body.getLongVolatile(slot + ATTEMPTS_OFFSET);
        return (int) (word >>> 32) == (int) lap ? (int) word : 0;
    }
}
