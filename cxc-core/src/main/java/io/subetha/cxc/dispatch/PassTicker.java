package io.subetha.cxc.dispatch;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The safety look of one registry handle's dispatcher: what bounds its untimed sleep on the {@link
 * DispatcherBell}, so that a lost ring costs at most two looks, never a call. (Callers sleep on the
 * callers' doorbell, whose waiters bound their own sleeps.)
 *
 * <p>While the dispatcher sleeps, this one thread looks every {@code maxPark}, relaxing to {@link
 * #LONGEST_IDLE_LOOK_NANOS} while each look finds nothing, and wakes the sleeping dispatcher when a
 * request waited unserved at two looks in one sleep, or a pass it serves was taken from it. It
 * sleeps itself once the dispatcher has not slept for {@link #IDLE_TICKS} ticks.
 */
final class PassTicker {

    /** Ticks with no blocked side before the ticker sleeps until one blocks. */
    private static final int IDLE_TICKS = 1_000;

    /**
     * The longest look at a sleeping dispatcher that no call waits on: looks double from {@code
     * maxPark} while each finds nothing, up to this. A pass handler idle for hours otherwise costs
     * a wake-up every millisecond (measured: 1.6 % of a core per idle copy); what a longer look
     * costs is the time a request the dispatcher was not rung for waits (a lost ring, a second
     * caller's first call while the dispatcher reads its only connection), at most two looks.
     */
    static final long LONGEST_IDLE_LOOK_NANOS = 100_000_000;

    private final String name;
    private final PassWaiting waiting;
    private final PassMailbox mailbox;
    private final PassBindings bindings;
    private final DispatcherBell doorbell;
    private final AtomicBoolean closing;

    private volatile @Nullable Thread thread;

    /** No ticker starts once the handle stopped it. */
    private boolean stopped;

    /** The ticker sleeps until the dispatcher sleeps (none for {@link #IDLE_TICKS} ticks). */
    private volatile boolean idle;

    /** The ticker looks less often than {@code maxPark}: a new sleep must unpark it. */
    private volatile boolean relaxed;

    /**
     * The number of the sleep the dispatcher holding the wake socket is in, 0 while none is: the
     * ticker wakes a sleep that leaves a request unserved at two of its looks.
     */
    private volatile long dispatcherSleep;

    /** The dispatchers' sleeps so far; with the wake socket held. */
    private long dispatcherSleeps;

    /**
     * The sleep in which the ticker last found a request unserved, 0 if none; the ticker's only.
     */
    private long unservedIn;

    PassTicker(
            String name,
            PassWaiting waiting,
            PassMailbox mailbox,
            PassBindings bindings,
            DispatcherBell doorbell,
            AtomicBoolean closing) {
        this.name = name;
        this.waiting = waiting;
        this.mailbox = mailbox;
        this.bindings = bindings;
        this.doorbell = doorbell;
        this.closing = closing;
    }

    /**
     * The dispatcher holding the wake socket is about to sleep: the ticker runs while it does. With
     * the socket held.
     */
    void dispatcherSleeps() {
        dispatcherSleep = ++dispatcherSleeps;
        wake(relaxed); // a new sleep: looked at from maxPark again
    }

    void dispatcherWoke() {
        dispatcherSleep = 0;
    }

    /** Starts the ticker, or unparks it if it sleeps or {@code sooner} says it must look now. */
    private void wake(boolean sooner) {
        Thread t = thread;
        if (t == null) {
            start();
        } else if (idle || sooner) {
            idle = false;
            LockSupport.unpark(t);
        }
    }

    private synchronized void start() {
        if (thread != null || stopped || closing.get()) {
            return;
        }
        Thread t = new Thread(this::tick, "cxc-pass-ticker-" + name);
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /** Keeps any ticker from starting from now on; the running one, to join, or null. */
    synchronized @Nullable Thread stop() {
        stopped = true;
        return thread;
    }

    private void tick() {
        int quiet = 0;
        long look = waiting.maxPark().toNanos();
        long lookedAtSleep = 0;
        while (!closing.get()) {
            long now = System.nanoTime();
            long next = now + waiting.maxPark().toNanos();
            lookAtDispatcher();
            long sleep = dispatcherSleep;
            if (sleep != 0 && sleep == lookedAtSleep && unservedIn == 0) {
                // Only a dispatcher that slept through the last look, with nothing for it: relax.
                look = Math.min(look * 2, LONGEST_IDLE_LOOK_NANOS);
                next = Math.max(next, now + look);
            } else {
                look = waiting.maxPark().toNanos();
            }
            lookedAtSleep = sleep;
            relaxed = next - now > waiting.maxPark().toNanos();
            if (sleep != 0) {
                quiet = 0;
            } else if (++quiet >= IDLE_TICKS) {
                quiet = 0;
                idle = true;
                if (dispatcherSleep == 0 && !closing.get()) {
                    LockSupport.park(this); // until the dispatcher sleeps (it sees idle)
                }
                idle = false;
                continue;
            }
            LockSupport.parkNanos(this, Math.max(1, next - System.nanoTime()));
        }
    }

    /**
     * Wakes the sleeping dispatcher if a request waited unserved at two looks in its sleep (one
     * look can fall between a request and its ring) or a pass it serves was taken from it. A
     * wake-up that comes late only makes the dispatcher look once more.
     */
    private void lookAtDispatcher() {
        long sleep = dispatcherSleep;
        if (sleep == 0 || doorbell.address() == 0) {
            unservedIn = 0;
            return;
        }
        PassBindings.Registration[] mine = bindings.served();
        for (PassBindings.Registration r : mine) {
            if (!bindings.stillOurs(r)) {
                doorbell.wakeSleeper();
                return;
            }
        }
        if (!hasRequest(mine)) {
            unservedIn = 0;
        } else if (unservedIn == sleep) {
            unservedIn = 0;
            doorbell.wakeSleeper();
        } else {
            unservedIn = sleep;
        }
    }

    private boolean hasRequest(PassBindings.Registration[] mine) {
        for (PassBindings.Registration r : mine) {
            if (mailbox.hasRequest(r.entryOffset(), r.ownerWord())) {
                return true;
            }
        }
        return false;
    }
}
