package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.STATE_REQUEST;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.STATE_RUNNING;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.state;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The safety look of one registry handle: what bounds every untimed sleep of its callers and its
 * dispatcher on the {@link Doorbell}, so that a lost ring costs at most two looks, never a call.
 *
 * <p>A blocked caller waits in an untimed read: its ring is its wait's only system call. While any
 * call is blocked, or the dispatcher sleeps, this one thread looks every {@code maxPark} (and at
 * the earliest blocked deadline) at each blocked call in the file, and closes the connection of a
 * call that is due, which ends its read at once: its deadline passed; it was answered but not woken
 * at two looks in a row (a ring lost: its token unknown to the socket yet, a failed write; one look
 * could fall between an answer and its ring); its slot was reclaimed; or, every {@code ownerCheck},
 * its owner is found gone (a dead owner's socket closes by itself, which the read sees at once). A
 * closed connection is not reused: the call's next wait connects afresh. It wakes the sleeping
 * dispatcher when a request waited unserved at two looks in one sleep, or a pass it serves was
 * taken from it. It sleeps itself once nothing has blocked for {@link #IDLE_TICKS} ticks.
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
    private final Doorbell doorbell;
    private final AtomicBoolean closing;

    /**
     * The calls blocked in an untimed read on a wake connection, each with that connection: the
     * ticker closes it to wake a call that is due. Whoever removes the pair owns the wake-up.
     */
    private final Map<PassCall, WakeConnection> blocked = new ConcurrentHashMap<>();

    private volatile @Nullable Thread thread;

    /** No ticker starts once the handle stopped it. */
    private boolean stopped;

    /** The ticker sleeps until a call blocks (none blocked for {@link #IDLE_TICKS} ticks). */
    private volatile boolean idle;

    /** When the ticker next looks, by {@code System.nanoTime()}. */
    private volatile long wakeAt;

    /** The ticker looks less often than {@code maxPark}: a blocking call must unpark it. */
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
            Doorbell doorbell,
            AtomicBoolean closing) {
        this.name = name;
        this.waiting = waiting;
        this.mailbox = mailbox;
        this.bindings = bindings;
        this.doorbell = doorbell;
        this.closing = closing;
    }

    /** {@code call} blocks reading {@code wake}: the ticker looks at it by its deadline. */
    void blocks(PassCall call, WakeConnection wake) {
        call.tickerCheck = call.nextCheck;
        call.answeredUnwoken = false;
        blocked.put(call, wake);
        wake(relaxed || call.deadline - wakeAt < 0);
    }

    /**
     * {@code call} no longer blocks.
     *
     * @return false if the ticker (or {@link #wakeAllBlocked}) closed its connection to wake it
     */
    boolean unblocks(PassCall call, WakeConnection wake) {
        return blocked.remove(call, wake);
    }

    int blockedCount() {
        return blocked.size();
    }

    /** Wakes every blocked call (at close). */
    void wakeAllBlocked() {
        for (Map.Entry<PassCall, WakeConnection> e : blocked.entrySet()) {
            if (blocked.remove(e.getKey(), e.getValue())) {
                e.getValue().close();
            }
        }
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
        wakeAt = System.nanoTime();
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
            for (Map.Entry<PassCall, WakeConnection> e : blocked.entrySet()) {
                PassCall call = e.getKey();
                if (due(call, now)) {
                    if (blocked.remove(call, e.getValue())) {
                        e.getValue().close();
                    }
                } else if (call.deadline - next < 0) {
                    next = call.deadline;
                }
            }
            lookAtDispatcher();
            long sleep = dispatcherSleep;
            if (blocked.isEmpty() && sleep != 0 && sleep == lookedAtSleep && unservedIn == 0) {
                // Only a dispatcher that slept through the last look, with nothing for it: relax.
                look = Math.min(look * 2, LONGEST_IDLE_LOOK_NANOS);
                next = Math.max(next, now + look);
            } else {
                look = waiting.maxPark().toNanos();
            }
            lookedAtSleep = sleep;
            relaxed = next - now > waiting.maxPark().toNanos();
            if (relaxed && !blocked.isEmpty()) {
                // a call blocked meanwhile (it may have read relaxed false): look at it soon
                relaxed = false;
                look = waiting.maxPark().toNanos();
                next = now + look;
            }
            if (!blocked.isEmpty() || sleep != 0) {
                quiet = 0;
            } else if (++quiet >= IDLE_TICKS) {
                quiet = 0;
                idle = true;
                if (blocked.isEmpty() && dispatcherSleep == 0 && !closing.get()) {
                    // until a call or a dispatcher blocks (it sees idle)
                    LockSupport.park(this);
                }
                idle = false;
                continue;
            }
            wakeAt = next;
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

    /** Whether a blocked call must be woken now. */
    private boolean due(PassCall call, long now) {
        if (now - call.deadline >= 0) {
            return true;
        }
        long word = mailbox.stateWord(call.slot);
        int state = state(word);
        if (!PassMailbox.sameClaim(word, call.claimed)) {
            return true;
        }
        if (state != STATE_REQUEST && state != STATE_RUNNING) {
            if (call.answeredUnwoken) {
                return true;
            }
            call.answeredUnwoken = true;
            return false;
        }
        if (now - call.tickerCheck >= 0) {
            call.tickerCheck = now + waiting.ownerCheck().toNanos();
            return bindings.ownerGone(call, state == STATE_RUNNING) != null;
        }
        return false;
    }
}
