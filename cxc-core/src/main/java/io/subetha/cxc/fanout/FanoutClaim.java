package io.subetha.cxc.fanout;

import java.util.List;

/**
 * Items a {@link PriorityFanout} handle took at least once ({@link PriorityFanout#claimHighest}):
 * the handle's until {@link #ack()}, returned to their level if it dies or stays silent beyond the
 * grace first.
 */
public final class FanoutClaim<T> {
    private final PriorityFanout<T> fanout;
    private final int priority;
    private final List<T> items;
    private final List<long[]> held;
    private boolean settled;

    FanoutClaim(PriorityFanout<T> fanout, int priority, List<T> items, List<long[]> held) {
        this.fanout = fanout;
        this.priority = priority;
        this.items = List.copyOf(items);
        this.held = held;
    }

    /** The items, in their level's order. */
    public List<T> items() {
        return items;
    }

    /**
     * How many times item {@code index} has been claimed, this claim included, by every process
     * sharing the file: 1 the first time, and one more each time it was returned to its level
     * (released, or its claimer died or went silent beyond the grace) and claimed again. Kept in
     * the file beside the item, so a retry limit holds across processes and a handler's death.
     */
    public int attempt(int index) {
        return (int) held.get(index)[3];
    }

    /** The level they came from, or -1 for an empty claim. */
    public int priority() {
        return priority;
    }

    public boolean isEmpty() {
        return items.isEmpty();
    }

    /**
     * Frees the items' slots. False if any had been returned to its level meanwhile (this handle
     * was judged dead or silent): those are not acknowledged here and are delivered again
     * elsewhere.
     *
     * @throws IllegalStateException if this claim was already acknowledged or released
     */
    public synchronized boolean ack() {
        settle("ack");
        return fanout.ack(held) == 0;
    }

    /** Returns the items to their level now, ahead of its later items. */
    public synchronized int release() {
        settle("release");
        return fanout.release(held, priority);
    }

    private void settle(String what) {
        if (settled) {
            throw new IllegalStateException(
                    "cannot "
                            + what
                            + " this claim of "
                            + items.size()
                            + " items: it was already acknowledged or released");
        }
        settled = true;
    }
}
