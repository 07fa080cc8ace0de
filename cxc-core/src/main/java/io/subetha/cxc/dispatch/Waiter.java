package io.subetha.cxc.dispatch;

import java.util.concurrent.locks.LockSupport;

/**
 * One wait of a caller or a dispatcher: spins for {@link PassWaiting#spin()} from its creation,
 * yields for {@link PassWaiting#yield()}, then blocks through its {@link Blocker} (or parks) with a
 * doubling back-off up to {@link PassWaiting#maxPark()}.
 */
final class Waiter {

    /** The first park of a back-off. */
    static final long FIRST_PARK_NANOS = 1_000;

    /** How a waiter blocks: {@code parkNanos}, or on a wake socket up to the poll interval. */
    @FunctionalInterface
    interface Blocker {
        void block(long suggestedNanos);
    }

    private final long spinUntil;
    private final long yieldUntil;
    private final long maxPark;
    private long park = FIRST_PARK_NANOS;

    Waiter(PassWaiting waiting) {
        long now = System.nanoTime();
        this.spinUntil = now + waiting.spin().toNanos();
        this.yieldUntil = spinUntil + waiting.yield().toNanos();
        this.maxPark = waiting.maxPark().toNanos();
    }

    void await() {
        await(LockSupport::parkNanos);
    }

    /** As {@link #await()}, blocking through {@code blocker} once past spinning and yielding. */
    void await(Blocker blocker) {
        long now = System.nanoTime();
        if (now - spinUntil < 0) {
            Thread.onSpinWait();
        } else if (now - yieldUntil < 0) {
            Thread.yield();
        } else {
            blocker.block(park);
            park = Math.min(maxPark, park * 2);
        }
    }
}
