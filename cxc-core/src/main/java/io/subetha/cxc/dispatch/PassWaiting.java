package io.subetha.cxc.dispatch;

import java.time.Duration;
import java.util.Objects;

/**
 * How both sides of a {@link PassRegistry} handle wait: spin ({@code Thread.onSpinWait}) for {@code
 * spin} after the last event, then yield the processor ({@code Thread.yield}) for {@code yield}
 * more, then block on the owner's wake socket (until poked, the handle's ticker looking at the
 * blocked side every {@code maxPark}), or, without a socket, park with a back-off from 1 µs
 * doubling up to {@code maxPark}; a waiting caller checks the owner's liveness every {@code
 * ownerCheck}. A wake through the socket costs about a Unix socket's own round trip (a park without
 * one at least the kernel's 50 µs timer slack), so a caller that must answer faster spins.
 */
public record PassWaiting(Duration spin, Duration yield, Duration maxPark, Duration ownerCheck) {
    /**
     * 20 µs of spinning, 200 µs of yielding, parks of at most 1 ms, the owner checked every 10 ms:
     * a blocked caller sleeps on the doorbell, which a dead owner cannot ring, so this bounds how
     * late it learns of the owner's death (a read of {@code /proc}, only while a call is pending).
     * Yielding after a short spin matters where the caller and the dispatcher share a core: a pure
     * spinner holds it until the scheduler preempts it (measured here on a loaded 2-core machine:
     * runs where a spinning pair shared a core took ~115 µs per round trip).
     */
    public static final PassWaiting DEFAULT =
            new PassWaiting(
                    Duration.ofNanos(20_000),
                    Duration.ofNanos(200_000),
                    Duration.ofMillis(1),
                    Duration.ofMillis(10));

    public PassWaiting {
        requireNonNegative("spin", spin);
        requireNonNegative("yield", yield);
        requireNonNegative("maxPark", maxPark);
        requireNonNegative("ownerCheck", ownerCheck);
        if (maxPark.isZero() || ownerCheck.isZero()) {
            throw new IllegalArgumentException(
                    "maxPark and ownerCheck must be positive, got " + maxPark + ", " + ownerCheck);
        }
    }

    /** These waits with another spin and yield. */
    public PassWaiting spinning(Duration newSpin, Duration newYield) {
        return new PassWaiting(newSpin, newYield, maxPark, ownerCheck);
    }

    /** Whether a waiter blocks at once: no spinning, no yielding. */
    boolean blocksAtOnce() {
        return spin.isZero() && yield.isZero();
    }

    private static void requireNonNegative(String name, Duration value) {
        if (Objects.requireNonNull(value, name).isNegative()) {
            throw new IllegalArgumentException(name + " must be 0 or more, got " + value);
        }
    }
}
