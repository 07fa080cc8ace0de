package io.subetha.cxc.wake;

import static io.subetha.cxc.wake.DoorbellDescriptor.ANNOUNCED_OFFSET;
import static io.subetha.cxc.wake.DoorbellDescriptor.WAKE_ADDRESS_OFFSET;
import static io.subetha.cxc.wake.DoorbellDescriptor.slotOffset;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.wait.Deadline;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One waiter on a {@link Doorbell}: the one way a thread waits for another process's write. {@link
 * #await} spins, then yields (its {@link WaitPhases}), then sleeps on the doorbell until rung,
 * always bounded by the caller's timeout.
 *
 * <p><b>Its slot.</b> At its first sleep the waiter claims a waiter slot of the region ({@link
 * OwnerRecord}: a free one, or one whose owner {@code /proc} shows dead), binds its socket ({@link
 * WakeSocket}) and publishes the socket's address in the slot; it keeps both until {@link #close}.
 * With no slot to be had (every one held by a live waiter) or no socket (no Unix sockets, a path
 * too long), it still waits bounded: it polls, parking from {@link #FIRST_POLL_NANOS} doubling to
 * {@link #LONGEST_POLL_NANOS}; rings from its own process still reach it.
 *
 * <p><b>The safety look.</b> A ring can be lost (its writer killed between its take and its ring, a
 * refused connect), so a sleep ends by itself after the safety look: {@link
 * #FIRST_SAFETY_LOOK_NANOS} after the waiter last found what it waited for through a ring (or
 * without sleeping), doubling at each sleep up to {@link #LONGEST_SAFETY_LOOK_NANOS}. What a sleep
 * found by the clock alone (a caller whose look also asks the clock, its sleep bounded by {@code
 * longestSleep}) does not shorten it again: an idle waiter so wakes about once a second, not a
 * thousand times, whatever its caller's clock; a lost ring costs at most one safety look.
 *
 * <p><b>Its timeout.</b> A sleep on the socket is timed in whole milliseconds; the last partial
 * millisecond of a wait is slept announced too (the wait overshoots its timeout by less than a
 * millisecond), so that a ring then is not lost. Only a wait shorter than a millisecond in all
 * parks without announcing.
 *
 * <p>Used by one thread at a time; {@link #close} may come from any thread, and makes a waiting
 * {@link #await} return false.
 */
public final class DoorbellWaiter implements AutoCloseable {

    /** The first safety look after a wait that found its work. */
    public static final long FIRST_SAFETY_LOOK_NANOS = 1_000_000;

    /**
     * The longest safety look: an idle waiter's wake-ups (once a second: a copy with a handful of
     * idle waiters spent more of a core on ten a second each than on everything else it does idle),
     * and what a lost ring costs at most (a ringer killed between its take and its ring, a refused
     * connect).
     */
    public static final long LONGEST_SAFETY_LOOK_NANOS = 1_000_000_000;

    /** Without a slot or socket: the first park of a poll. */
    public static final long FIRST_POLL_NANOS = 50_000;

    /** Without a slot or socket: the longest park, what a write from another process waits. */
    public static final long LONGEST_POLL_NANOS = 10_000_000;

    /** Without a slot: how often the waiter tries to claim one again. */
    private static final long CLAIM_RETRY_NANOS = 1_000_000_000;

    private static final long MILLI = 1_000_000;
    private static final long PID = Pids.current();
    private static final long START_TIME = OwnerRecord.startTimeOf(PID);

    private final AtomicBuffer buffer;
    private final int region;
    private final int slots;
    private final Path directory;
    private final long spinNanos;
    private final long yieldNanos;
    private final long firstLook;
    private final long longestLook;

    /** Held by {@link #await} while it uses the slot and socket; {@link #close} waits for it. */
    private final ReentrantLock using = new ReentrantLock();

    private int slot = -1;
    private long slotWord;
    private long address;
    private @Nullable WakeSocket socket;
    private long claimAgainAt;
    private boolean claimTried;
    private long safetyLook;
    private long poll = FIRST_POLL_NANOS;

    /** The thread in {@link #await}: a ring from this process unparks it when it has no socket. */
    private volatile @Nullable Thread waiting;

    private volatile boolean closed;

    /** Set by a ring from this process ({@link #wake}): the sleep it ends was rung. */
    private volatile boolean localRing;

    /**
     * @param firstLook the first safety look ({@link #FIRST_SAFETY_LOOK_NANOS})
     * @param longestLook the longest ({@link #LONGEST_SAFETY_LOOK_NANOS})
     */
    DoorbellWaiter(
            AtomicBuffer buffer,
            int region,
            int slots,
            Path directory,
            WaitPhases phases,
            long firstLook,
            long longestLook) {
        this.buffer = buffer;
        this.region = region;
        this.slots = slots;
        this.directory = directory;
        this.spinNanos = phases.spin().toNanos();
        this.yieldNanos = phases.yield().toNanos();
        this.firstLook = firstLook;
        this.longestLook = longestLook;
        this.safetyLook = firstLook;
    }

    /**
     * Waits until {@code ready} says so, or {@code timeout} passes, or this waiter is closed.
     * {@code ready} is a look at the file (what a writer's {@link Doorbell#ringIfAnnounced}
     * follows), cheap and without side effects; it is asked again after every wake-up.
     *
     * @return whether {@code ready} said so; false on timeout or close
     */
    public boolean await(BooleanSupplier ready, Duration timeout) {
        return await(ready, timeout, spinNanos, yieldNanos);
    }

    /** {@link #await(BooleanSupplier, Duration)} with the caller's phases: a lent waiter's. */
    public boolean await(BooleanSupplier ready, Duration timeout, WaitPhases phases) {
        return await(ready, timeout, phases.spin().toNanos(), phases.yield().toNanos());
    }

    /** {@link #await(BooleanSupplier, Duration)} with the caller's phases: a lent waiter's. */
    boolean await(BooleanSupplier ready, Duration timeout, long spinNanos, long yieldNanos) {
        return await(ready, timeout, spinNanos, yieldNanos, Long.MAX_VALUE);
    }

    /** As above, no sleep longer than {@code longestSleep}: a caller whose look is also timed. */
    boolean await(
            BooleanSupplier ready,
            Duration timeout,
            long spinNanos,
            long yieldNanos,
            long longestSleep) {
        if (ready.getAsBoolean()) {
            return true;
        }
        long start = System.nanoTime();
        long wait = Deadline.nanos(timeout);
        long deadline = start + wait;
        boolean brief = wait < MILLI;
        long spinUntil = start + spinNanos;
        long yieldUntil = spinUntil + yieldNanos;
        while (true) {
            long now = System.nanoTime();
            if (closed || now - deadline >= 0 || Thread.currentThread().isInterrupted()) {
                return false;
            }
            boolean timedOut = false;
            if (now - spinUntil < 0) {
                Thread.onSpinWait();
            } else if (now - yieldUntil < 0) {
                Thread.yield();
            } else {
                Sleep slept = sleepOnce(ready, deadline - now, longestSleep, brief);
                if (slept == Sleep.FOUND) {
                    return true;
                }
                timedOut = slept == Sleep.TIMED_OUT;
            }
            if (ready.getAsBoolean()) {
                if (!timedOut) {
                    // Found after a ring (or without sleeping): writes come, looks start short.
                    // Found by the clock (the caller's own timed look) is no write: the safety
                    // look keeps growing, so an idle waiter wakes rarely.
                    safetyLook = firstLook;
                }
                poll = FIRST_POLL_NANOS;
                return true;
            }
        }
    }

    /** How one {@link #sleepOnce} ended. */
    private enum Sleep {
        /** The look after announcing found {@code ready}: no sleep. */
        FOUND,
        /** Rung (from any process), or closed. */
        RUNG,
        /** Its time passed without a ring: the safety look, the caller's bound or a poll. */
        TIMED_OUT
    }

    /**
     * One announced sleep.
     *
     * @param brief whether the whole wait is shorter than a millisecond: shorter than a socket's
     *     sleep can be timed, so it parks without announcing
     */
    private Sleep sleepOnce(
            BooleanSupplier ready, long remaining, long longestSleep, boolean brief) {
        using.lock();
        try {
            if (closed) {
                return Sleep.RUNG;
            }
            waiting = Thread.currentThread();
            if (brief) {
                LockSupport.parkNanos(this, remaining);
                return Sleep.TIMED_OUT;
            }
            if (slot < 0 && !tryClaimSlot()) {
                LockSupport.parkNanos(this, Math.min(poll, remaining));
                poll = Math.min(poll * 2, LONGEST_POLL_NANOS);
                return Sleep.TIMED_OUT;
            }
            long bit = 1L << slot;
            localRing = false; // before the announcement: no ring of this sleep comes earlier
            announce(bit);
            try {
                Interleaving.at(Point.DOORBELL_ANNOUNCED);
                if (ready.getAsBoolean()) {
                    safetyLook = firstLook;
                    return Sleep.FOUND;
                }
                boolean rung;
                WakeSocket s = socket;
                if (s != null) {
                    long nanos = Math.min(remaining, Math.min(safetyLook, longestSleep));
                    // Whole milliseconds, a partial one rounded down, but never none: the last
                    // partial millisecond of a wait is slept announced (overshot by less than a
                    // millisecond) rather than parked unannounced, where a ring would be lost.
                    rung = s.sleep(Math.max(1, nanos / MILLI));
                    safetyLook = Math.min(safetyLook * 2, longestLook);
                } else {
                    LockSupport.parkNanos(this, Math.min(remaining, poll));
                    poll = Math.min(poll * 2, LONGEST_POLL_NANOS);
                    rung = false;
                }
                return rung || localRing || closed ? Sleep.RUNG : Sleep.TIMED_OUT;
            } finally {
                withdraw(bit);
            }
        } finally {
            waiting = null;
            using.unlock();
        }
    }

    private void announce(long bit) {
        int at = region + ANNOUNCED_OFFSET;
        while (true) {
            long announced = buffer.getLongVolatile(at);
            if ((announced & bit) != 0
                    || buffer.compareAndSetLong(at, announced, announced | bit)) {
                return;
            }
        }
    }

    /** Clears this waiter's bit unless a ringer took it meanwhile. */
    private void withdraw(long bit) {
        int at = region + ANNOUNCED_OFFSET;
        while (true) {
            long announced = buffer.getLongVolatile(at);
            if ((announced & bit) == 0
                    || buffer.compareAndSetLong(at, announced, announced & ~bit)) {
                return;
            }
        }
    }

    /**
     * Claims a slot (a free one, else one whose owner is dead), registers this waiter's address and
     * binds its socket; false if no slot is to be had (tried again after a while).
     */
    private boolean tryClaimSlot() {
        long now = System.nanoTime();
        if (claimTried && now - claimAgainAt < 0) {
            return false;
        }
        claimTried = true;
        claimAgainAt = now + CLAIM_RETRY_NANOS;
        OwnerRecord.Claimed claimed =
                OwnerRecord.claimFirstFree(
                        buffer, slots, i -> slotOffset(region, i), PID, START_TIME, () -> 0L);
        if (claimed == null) {
            claimed = claimDead();
        }
        if (claimed == null) {
            return false;
        }
        long mine;
        do {
            mine = WakeSocketFiles.address(PID, START_TIME, WakeSocketFiles.nextSequence());
        } while (mine != 0 && !WakeLines.register(mine, this));
        address = mine;
        if (mine != 0) {
            socket = WakeSocket.bind(directory, mine);
        }
        slot = claimed.index();
        slotWord = claimed.ownerWord();
        // Ours by the claim's CAS; published before the first announcement that names this slot.
        buffer.setLongRelease(slotOffset(region, slot) + WAKE_ADDRESS_OFFSET, mine);
        return true;
    }

    private OwnerRecord.@Nullable Claimed claimDead() {
        for (int i = 0; i < slots; i++) {
            int record = slotOffset(region, i);
            long word = OwnerRecord.ownerWord(buffer, record);
            if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER
                    || !OwnerRecord.isDead(buffer, record, word)) {
                continue;
            }
            long mine = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(word));
            if (OwnerRecord.claim(buffer, record, word, mine, START_TIME, () -> 0L)) {
                return new OwnerRecord.Claimed(i, mine);
            }
        }
        return null;
    }

    /** A ring from this process: ends the current sleep, or makes the next one return at once. */
    void wake() {
        localRing = true;
        WakeSocket s = socket;
        if (s != null) {
            s.wakeup();
            return;
        }
        Thread t = waiting;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * This waiter's slot, claimed now if it holds none yet (a waiter otherwise claims one at its
     * first sleep): what a writer that rings this waiter alone ({@link
     * Doorbell#ringIfAnnounced(int)}) must be told, say in the request it will answer. The slot is
     * this waiter's until {@link #close}.
     *
     * @return the slot, or -1 if none is to be had (every one held by a live waiter, or closed):
     *     the waiter then polls, and no targeted ring reaches it
     */
    public int slot() {
        using.lock();
        try {
            if (slot < 0 && !closed) {
                tryClaimSlot();
            }
            return slot;
        } finally {
            using.unlock();
        }
    }

    /** The next sleep's safety look, for tests. */
    long safetyLookNanos() {
        return safetyLook;
    }

    /** Whether this waiter holds a slot and a socket: rings from other processes reach it. */
    public boolean ringable() {
        return slot >= 0 && socket != null;
    }

    /**
     * Ends a waiting {@link #await} (it returns false), then gives up the slot and the socket. A
     * waiter killed instead leaves its slot to the next claimant and its socket to the next bind.
     */
    @Override
    public void close() {
        closed = true;
        wake();
        using.lock();
        try {
            if (slot >= 0) {
                int record = slotOffset(region, slot);
                withdraw(1L << slot);
                if (OwnerRecord.ownerWord(buffer, record) == slotWord) {
                    buffer.setLongRelease(record + WAKE_ADDRESS_OFFSET, 0);
                }
                OwnerRecord.release(buffer, record, slotWord);
                slot = -1;
            }
            if (address != 0) {
                WakeLines.unregister(address, this);
            }
            WakeSocket s = socket;
            if (s != null) {
                socket = null;
                s.close();
            }
        } finally {
            using.unlock();
        }
    }
}
