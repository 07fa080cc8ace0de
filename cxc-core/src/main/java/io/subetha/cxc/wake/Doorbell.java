package io.subetha.cxc.wake;

import static io.subetha.cxc.wake.DoorbellDescriptor.ANNOUNCED_OFFSET;
import static io.subetha.cxc.wake.DoorbellDescriptor.WAKE_ADDRESS_OFFSET;
import static io.subetha.cxc.wake.DoorbellDescriptor.slotOffset;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A primitive's doorbell: the {@link DoorbellDescriptor region} of its body through which waiters
 * of any process sleep until a writer has something for them. A primitive gives it the body, the
 * region's offset and its file; calls {@link #ringIfAnnounced} after every write a waiter may wait
 * for; and hands its waiters a {@link #waiter}.
 *
 * <ol>
 *   <li><b>Announce, then look, then sleep.</b> A waiter sets its bit in the announced word by CAS,
 *       looks at what it waits for once more, and only then sleeps.
 *   <li><b>Write, then ring.</b> A writer, after its write, fences and reads the announced word; if
 *       a waiter announced itself it takes every announcement by one CAS and rings each ({@link
 *       #ringIfAnnounced()}), or, when its write is for one waiter whose {@linkplain
 *       DoorbellWaiter#slot slot} it was told (an answer to that waiter's request), takes that
 *       waiter's announcement alone and rings it ({@link #ringIfAnnounced(int)}): the others sleep
 *       on.
 * </ol>
 *
 * The waiter's CAS and the writer's fence order both sides' steps, so either the waiter's last look
 * sees the write or the writer sees the announcement. A ring lost (its writer killed between its
 * take and its ring, a waiter's socket gone or refused) is not a lost wake-up: every sleep is
 * bounded by its waiter's safety look, and what it waits for is in the file.
 *
 * <p><b>Lent waiters.</b> A caller that waits now and then (a blocked {@code lock()}, a barrier's
 * arrival) waits through {@link #await}, on a waiter this doorbell lends and takes back: its slot,
 * socket and ringers' connections outlive the call. Making a waiter per wait claims a slot, binds a
 * socket and scans the socket directory each time, and makes every ringer connect afresh: the lock
 * hand-over's median tripled that way. Up to {@link #IDLE_WAITERS_KEPT} idle waiters are kept per
 * handle (their slots held until {@link #close}, or this process's death); more concurrent waits
 * make and close their own.
 */
public final class Doorbell implements AutoCloseable {

    /** Idle lent waiters kept per handle: slots a process holds while nobody of it waits. */
    public static final int IDLE_WAITERS_KEPT = 4;

    private final AtomicBuffer buffer;
    private final int region;
    private final int slots;
    private final Path directory;

    /**
     * A doorbell of {@link DoorbellDescriptor#SLOTS} waiter slots.
     *
     * @param buffer the primitive's body
     * @param region the body offset of its doorbell region, 64-byte aligned, {@link
     *     DoorbellDescriptor#LENGTH} bytes
     * @param file the primitive's file: the wake sockets live beside it
     */
    public Doorbell(AtomicBuffer buffer, int region, Path file) {
        this(buffer, region, DoorbellDescriptor.SLOTS, file);
    }

    /**
     * A doorbell of {@code slots} waiter slots: a primitive whose file says how many waiters it
     * expects (every process and thread that may sleep on it at once).
     *
     * @param region the body offset of its doorbell region, 64-byte aligned, {@link
     *     DoorbellDescriptor#length} of {@code slots} bytes
     * @param slots 1 to {@link DoorbellDescriptor#MAX_SLOTS}
     */
    public Doorbell(AtomicBuffer buffer, int region, int slots, Path file) {
        DoorbellDescriptor.requireSlots(slots);
        int length = DoorbellDescriptor.length(slots);
        if (region < 0 || region % 64 != 0 || (long) region + length > buffer.capacity()) {
            throw new IllegalArgumentException(
                    "a doorbell region of "
                            + slots
                            + " slots is "
                            + length
                            + " bytes at a 64-byte aligned offset of the body, not at "
                            + region
                            + " of "
                            + buffer.capacity());
        }
        this.buffer = buffer;
        this.region = region;
        this.slots = slots;
        this.directory = WakeSocketFiles.directory(file);
    }

    /** Most recently returned first: its socket's ringers are connected already. */
    private final ConcurrentLinkedDeque<DoorbellWaiter> idle = new ConcurrentLinkedDeque<>();

    private final AtomicInteger idleCount = new AtomicInteger();
    private volatile boolean closed;

    /**
     * Rings every waiter that announced itself; with none announced, one fence and one read. Call
     * it after each write a waiter may wait for (after the write is visible: its release store or
     * CAS).
     */
    public void ringIfAnnounced() {
        // A release store followed by a load may be reordered (store-load): the fence keeps the
        // read of the announced word after the write, so a waiter's last look cannot miss both.
        VarHandle.fullFence();
        if (buffer.getLongVolatile(region + ANNOUNCED_OFFSET) != 0) {
            ringAnnounced();
        }
    }

    private void ringAnnounced() {
        long taken = takeAnnouncements() & slotMask(); // bits past the slots: nobody to ring
        if (taken == 0) {
            return;
        }
        Interleaving.at(Point.DOORBELL_TAKEN);
        while (taken != 0) {
            int index = Long.numberOfTrailingZeros(taken);
            taken &= taken - 1;
            ring(index);
        }
    }

    /**
     * Rings the waiter of slot {@code slot} if it announced itself, and no other: for a write that
     * only that waiter waits for (the answer to its request), whose slot the writer was told
     * ({@link DoorbellWaiter#slot}). With it not announced, one fence and one read. A slot whose
     * waiter died and was claimed again by another gets a ring it looks past: a spurious wake-up,
     * never a lost one.
     *
     * @return whether the announcement was taken (and so rung), false if there was none
     * @throws IllegalArgumentException if there is no such slot
     */
    public boolean ringIfAnnounced(int slot) {
        if (slot < 0 || slot >= slots) {
            throw new IllegalArgumentException(
                    "waiter slot " + slot + " is not one of this doorbell's 0.." + (slots - 1));
        }
        long bit = 1L << slot;
        int at = region + ANNOUNCED_OFFSET;
        VarHandle.fullFence(); // as ringIfAnnounced(): the read stays after the write
        while (true) {
            long announced = buffer.getLongVolatile(at);
            if ((announced & bit) == 0) {
                return false;
            }
            if (buffer.compareAndSetLong(at, announced, announced & ~bit)) {
                break;
            }
        }
        Interleaving.at(Point.DOORBELL_TAKEN);
        ring(slot);
        return true;
    }

    private void ring(int slot) {
        long address = buffer.getLongAcquire(slotOffset(region, slot) + WAKE_ADDRESS_OFFSET);
        if (address != 0) {
            WakeLines.ring(directory, address);
        }
    }

    /** Takes every announcement by one CAS to zero: one ring per announcement. */
    private long takeAnnouncements() {
        while (true) {
            long announced = buffer.getLongVolatile(region + ANNOUNCED_OFFSET);
            if (announced == 0
                    || buffer.compareAndSetLong(region + ANNOUNCED_OFFSET, announced, 0)) {
                return announced;
            }
        }
    }

    /** A waiter on this doorbell, for one thread at a time; close it when done. */
    public DoorbellWaiter waiter(WaitPhases phases) {
        return waiter(
                phases,
                DoorbellWaiter.FIRST_SAFETY_LOOK_NANOS,
                DoorbellWaiter.LONGEST_SAFETY_LOOK_NANOS);
    }

    /** A waiter with other safety looks: tests that must see a lost ring as a hang. */
    DoorbellWaiter waiter(WaitPhases phases, long firstLook, long longestLook) {
        return new DoorbellWaiter(buffer, region, slots, directory, phases, firstLook, longestLook);
    }

    /**
     * Waits until {@code ready} says so or {@code timeout} passes, as {@link DoorbellWaiter#await}
     * does, on a waiter lent for the call; any thread may call it, concurrently.
     *
     * @return whether {@code ready} said so; false on timeout, interruption or {@link #close}
     */
    public boolean await(WaitPhases phases, BooleanSupplier ready, Duration timeout) {
        return await(phases, ready, timeout, Duration.ofNanos(Long.MAX_VALUE));
    }

    /**
     * {@link #await(WaitPhases, BooleanSupplier, Duration)}, no sleep on the doorbell longer than
     * {@code longestSleep}: for a caller whose {@code ready} also asks the clock (a check of its
     * own falls due), so that it stays announced, and ringable, until then.
     */
    public boolean await(
            WaitPhases phases, BooleanSupplier ready, Duration timeout, Duration longestSleep) {
        if (ready.getAsBoolean()) {
            return true;
        }
        if (closed) {
            return false;
        }
        DoorbellWaiter waiter = lend();
        try {
            return waiter.await(
                    ready,
                    timeout,
                    phases.spin().toNanos(),
                    phases.yield().toNanos(),
                    longestSleep.toNanos());
        } finally {
            giveBack(waiter);
        }
    }

    /**
     * Lends a waiter, as {@link #await} does, to a caller that must tell its writer the waiter's
     * {@linkplain DoorbellWaiter#slot slot} before it waits (a request whose answer rings that slot
     * alone); {@link #giveBack} it when done. Used by one thread at a time meanwhile.
     */
    public DoorbellWaiter lend() {
        DoorbellWaiter waiter = idle.pollFirst();
        if (waiter == null) {
            return waiter(WaitPhases.SLEEP_AT_ONCE);
        }
        idleCount.decrementAndGet();
        return waiter;
    }

    /** Takes back a waiter {@link #lend} lent: kept for the next wait, or closed. */
    public void giveBack(DoorbellWaiter waiter) {
        if (closed || idleCount.incrementAndGet() > IDLE_WAITERS_KEPT) {
            idleCount.decrementAndGet();
            waiter.close();
            return;
        }
        idle.offerFirst(waiter);
        if (closed) {
            closeIdle(); // a close that drained before this offer: the waiter is not left behind
        }
    }

    /** How many lent waiters are idle, kept for the next wait. */
    int idleWaiters() {
        return idleCount.get();
    }

    /**
     * Closes the idle lent waiters (their slots and sockets freed) and makes every later {@link
     * #await} return false; waiters handed out by {@link #waiter} are their callers' to close.
     */
    @Override
    public void close() {
        closed = true;
        closeIdle();
    }

    private void closeIdle() {
        DoorbellWaiter waiter;
        while ((waiter = idle.pollFirst()) != null) {
            idleCount.decrementAndGet();
            waiter.close();
        }
    }

    /** How many waiters are announced (asleep, or about to be), for operators and tests. */
    public int announcedCount() {
        return Long.bitCount(buffer.getLongVolatile(region + ANNOUNCED_OFFSET) & slotMask());
    }

    /** This doorbell's waiter slots. */
    public int slots() {
        return slots;
    }

    private long slotMask() {
        return slots == Long.SIZE ? -1L : (1L << slots) - 1;
    }

    /** The directory of the wake sockets beside {@code file}. */
    public static Path socketDirectory(Path file) {
        return WakeSocketFiles.directory(file);
    }
}
