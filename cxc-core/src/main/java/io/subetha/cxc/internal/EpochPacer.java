package io.subetha.cxc.internal;

import io.subetha.cxc.mmf.AtomicBuffer;
import java.time.Duration;

/**
 * Paces a shared epoch: of all the processes that call {@link #claimTick} on their own schedule, at
 * most one per interval wins the right to tick, so the epoch advances about once per interval
 * whatever their number, and no single death freezes it.
 *
 * <p>It keeps one u64 in a primitive's body: the {@link System#nanoTime()} of the last tick, CAS'd
 * by the winner. On Linux HotSpot {@code nanoTime} reads {@code CLOCK_MONOTONIC}, common to every
 * process of a host (not across hosts or time namespaces). A recorded tick from the future (a file
 * kept across a reboot) counts as due, so the epoch never freezes on an old timestamp.
 */
public final class EpochPacer {

    private final AtomicBuffer body;
    private final int lastTickOffset;

    /**
     * @param lastTickOffset the 8-byte aligned offset, in {@code body}, of the last-tick stamp
     */
    public EpochPacer(AtomicBuffer body, int lastTickOffset) {
        this.body = body;
        this.lastTickOffset = lastTickOffset;
    }

    /**
     * @return true if this caller won this interval's tick and should advance the epoch now
     * @throws IllegalArgumentException if {@code interval} is not positive
     */
    public boolean claimTick(Duration interval) {
        long intervalNanos = interval.toNanos();
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("tick interval must be positive, got " + interval);
        }
        long last = body.getLongVolatile(lastTickOffset);
        long now = System.nanoTime();
        long elapsed = now - last;
        if (last != 0 && elapsed >= 0 && elapsed < intervalNanos) {
            return false;
        }
        // Another participant winning this CAS ticked this interval.
        return body.compareAndSetLong(lastTickOffset, last, now);
    }
}
