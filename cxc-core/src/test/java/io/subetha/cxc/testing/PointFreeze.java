package io.subetha.cxc.testing;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Stops a child JVM's thread for good at one {@link Interleaving} point, so the parent can kill the
 * child exactly there: the {@code nth} time any thread passes {@code point}, that thread says
 * {@code <announcement> <POINT>} on stdout and parks forever. Every other pass goes on.
 */
public final class PointFreeze {

    private PointFreeze() {}

    public static void install(Point point, long nth, String announcement) {
        AtomicLong seen = new AtomicLong();
        Interleaving.install(
                p -> {
                    if (p == point && seen.incrementAndGet() == nth) {
                        ChildServer.say(announcement + " " + p);
                        while (true) {
                            LockSupport.park();
                        }
                    }
                });
    }
}
