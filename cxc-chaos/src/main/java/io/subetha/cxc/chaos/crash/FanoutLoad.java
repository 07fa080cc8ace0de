package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.fanout.FanoutClaim;
import io.subetha.cxc.fanout.PriorityFanout;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Submits items at random priorities and claims them one at a time (so an ack's answer is about
 * exactly one item), holding each a moment before acknowledging it, so kills and stops land on held
 * claims.
 */
final class FanoutLoad implements Load {

    static final int PRIORITIES = 4;

    private final PriorityFanout<Long> fanout;
    private final History history;
    private long submitted;

    FanoutLoad(PriorityFanout<Long> fanout, History history) {
        this.fanout = fanout;
        this.history = history;
    }

    @Override
    public Family family() {
        return Family.FANOUT;
    }

    @Override
    public void step(Random random) {
        if (random.nextBoolean()) {
            int priority = random.nextInt(PRIORITIES);
            long item = Load.id(history.worker(), ++submitted);
            history.log(Family.FANOUT, "submit-begin", priority, item);
            boolean queued = fanout.trySubmit(priority, item);
            history.log(Family.FANOUT, queued ? "submitted" : "full", priority, item);
            return;
        }
        FanoutClaim<Long> claim = fanout.claimHighest(1);
        if (claim.isEmpty()) {
            return;
        }
        long item = claim.items().get(0);
        history.log(Family.FANOUT, "claimed", claim.priority(), item);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(random.nextInt(4)));
        history.log(Family.FANOUT, "ack-begin", item);
        boolean acked = claim.ack();
        history.log(Family.FANOUT, "acked", item, acked);
    }
}
