package io.subetha.cxc.claim;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A cross-process writer lock whose holder is recorded in an {@link OwnerRecord}, and whose
 * multi-word steps are made crash-safe by a redo intent: a holder that is SIGKILLed half-way
 * through a step leaves the step either not begun or finished by the next holder. The one writer
 * lock of every structure whose writes touch several words at once while readers read without
 * locking (a vec, a list, a graph, a region's free list; each protects its readers with its own
 * generations), and of a primitive with redo data of its own (a universal set's resumable
 * migration), which it rolls forward in its {@link Hook}. No primitive writes such a lock by hand.
 *
 * <pre>
 * Intent lock, at an 8-aligned body offset; {@link #length(int, int)} bytes
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Owner record (24 bytes, {@link OwnerRecord})   0   |
 * +---------------------------------------------------------------+
 * |                  Intent word (u64): 0 = none, else        24   |
 * |                  SEALED in the high half | entry count low    |
 * +---------------------------------------------------------------+
 * |                  Repairs: dead holders' intents replayed  32   |
 * +---------------------------------------------------------------+
 * |                  Waiter word: 0 = none, else the thread   40   |
 * |                  whose turn is next: PID low | thread high    |
 * +---------------------------------------------------------------+
 * |                  Entries: maxEntries x (body offset u64,  48   |
 * |                  new value u64); a COPY entry's value is a     |
 * |                  length, its source the payload area           |
 * +---------------------------------------------------------------+
 * |                  Payload area (a structure's element, for a    |
 * |                  copy onto a reachable slot)                   |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p><b>Protocol.</b> {@link #lock} claims the owner record: from the free word by one CAS when the
 * record's published identity already names this process under the free word's key ({@link
 * OwnerRecord#claimFree}: lock and unlock are then two CASes in all), else by {@link
 * OwnerRecord#claim} under the next key (CAS, heartbeat, identity). A holder found dead through
 * {@code /proc} is taken over by one {@link OwnerRecord#claim} from exactly the word judged, so a
 * holder that released meanwhile is never robbed. The new holder replays a sealed intent, then runs
 * its primitive's {@link Hook} (a primitive with its own redo data, resumable progress, rolls it
 * forward there), and only then returns. It {@link #stage stages} every word its step will change
 * (absolute new values, computed under the lock) into the entries and {@link #commit commits}: one
 * release store of the intent word seals the step (the commit point), the entries are applied in
 * order, and the intent word is cleared. A holder may commit several steps under one lock. {@link
 * #unlock} releases the record by CAS from the word it installed.
 *
 * <p><b>Crash.</b> Killed before its claim CAS: nothing written. Killed after it, before the
 * identity is published: the holder's PID is judged without its start time (gone or a zombie is
 * dead; a PID reused after that is alive, and waited for). Killed before the seal: no reachable
 * word was changed (a structure writes only unreachable slots before sealing), the step never
 * happened. Killed after the seal: the next holder finds the intent sealed and replays it (applying
 * an absolute value twice is harmless), then clears it: the step happened exactly once. Killed
 * after clearing, before the release: there is nothing to replay. Killed inside the hook: the next
 * holder takes the lock over and runs the hook again, so a hook must be redoable (resume from the
 * progress it recorded, as the universal set's does). A waiter takes the record over only when
 * {@code /proc} shows the holder dead (gone, a zombie, or its PID reused), never on a timeout: a
 * paused holder keeps its lock, and the waiter's {@link CxcTimeoutException} names it (and what the
 * primitive says it is doing). Replayed entries are checked against the body before a single one is
 * applied; a bad one is a {@link CxcFormatException}; the lock is released again whenever the
 * replay or the hook throws, so every writer gets the error instead of a timeout.
 *
 * <p><b>Turns.</b> A holder that releases and re-takes the lock in a loop (a migration's steps)
 * would otherwise win every time against a waiter that parks between its looks: the free window is
 * one CAS wide. So a thread that has waited past its spins CASes the waiter word from 0 to its
 * token (PID and thread); while the word names another thread, nobody claims a free lock (the fast
 * path reads the word, one plain load when it is 0): the flagged waiter takes it, and clears its
 * flag by CAS from its own token. A holder that re-takes therefore gets at most the one acquisition
 * that was under way when the flag was set, then waits its turn. The flag can never block the lock:
 * a waiter that times out or fails clears it; one whose PID {@code /proc} shows dead has it cleared
 * by the next claimant, by CAS from the word judged; and a flag whose thread leaves a free lock
 * untaken for {@link #COURTESY_NANOS} (frozen, or a dead waiter's PID reused) is voided the same
 * way. A flag is written only by a CAS from a value read, so a SIGKILL at any step leaves either no
 * flag or one of a dead PID.
 *
 * <p>One thread of one process holds the lock at a time (not reentrant); an instance is shared by
 * the threads of a process.
 */
public final class IntentLock {

    public static final int OWNER_OFFSET = 0;
    public static final int INTENT_OFFSET = 24;
    public static final int REPAIRS_OFFSET = 32;
    public static final int WAITER_OFFSET = 40;
    public static final int ENTRIES_OFFSET = 48;
    public static final int ENTRY_LENGTH = 16;

    private static final long SEALED = 0x5EA1EDL << 32;
    private static final long COUNT_MASK = 0xFFFF_FFFFL;
    private static final long COPY = 1L << 62;

    private static final long OWN_PID = Pids.current();
    private static final long OWN_START_TIME = OwnerRecord.startTimeOf(OWN_PID);
    private static final int SPINS = 100;
    private static final long MAX_PARK_NANOS = 200_000;
    private static final long FLAGGED_MAX_PARK_NANOS = 50_000;
    private static final long DEAD_CHECK_NANOS = 1_000_000;

    /** How long a free lock is left to a flagged waiter that does not take it (frozen, or gone). */
    static final long COURTESY_NANOS = 1_000_000_000L;

    private final AtomicBuffer body;
    private final int base;
    // The owner record's and the waiter word's body offsets, computed once: every lock path
    // reads them.
    private final int ownerRecord;
    private final int waiterAt;
    private final int maxEntries;
    private final int payloadOffset;
    private final int payloadLength;
    private final String what;
    private final @Nullable Hook hook;
    private final @Nullable Supplier<String> doing;

    // The holder's own state: written only by the thread holding the lock, handed to the next
    // holder of this process through the owner word's CAS.
    private long held;
    private int staged;
    // The staged entries as written to the file, kept so commit applies them without reading
    // them back (the file's copy is for a replay by the next holder).
    private final long[] stagedTargets;
    private final long[] stagedValues;

    /**
     * @param base the lock's body offset (8-aligned)
     * @param what the structure, for timeout messages: "shared-vec /dev/shm/a.cxc"
     */
    public IntentLock(AtomicBuffer body, int base, int maxEntries, int payloadLength, String what) {
        this(body, base, maxEntries, payloadLength, what, null, null);
    }

    /**
     * @param hook run after every acquisition, once a sealed intent is replayed: a primitive's own
     *     roll-forward of redo data that is not staged entries; if it throws, the lock is released
     *     and the exception rethrown
     * @param doing what the holder is doing, read for a timeout's message ("inserting")
     */
    public IntentLock(
            AtomicBuffer body,
            int base,
            int maxEntries,
            int payloadLength,
            String what,
            @Nullable Hook hook,
            @Nullable Supplier<String> doing) {
        if (base % 8 != 0 || maxEntries < 0 || payloadLength < 0) {
            throw new IllegalArgumentException(
                    "an intent lock needs an 8-aligned base and non-negative sizes, got base "
                            + base
                            + ", "
                            + maxEntries
                            + " entries, "
                            + payloadLength
                            + " payload bytes");
        }
        this.hook = hook;
        this.doing = doing;
        this.body = body;
        this.base = base;
        this.ownerRecord = base + OWNER_OFFSET;
        this.waiterAt = base + WAITER_OFFSET;
        this.maxEntries = maxEntries;
        this.payloadOffset = base + ENTRIES_OFFSET + maxEntries * ENTRY_LENGTH;
        this.payloadLength = payloadLength;
        this.what = what;
        this.stagedTargets = new long[maxEntries];
        this.stagedValues = new long[maxEntries];
    }

    /** What a primitive does right after every acquisition of its lock. */
    @FunctionalInterface
    public interface Hook {
        /**
         * Runs holding the lock, after a sealed intent was replayed.
         *
         * @param tookOver whether the lock was taken from a dead holder (else it was free)
         */
        void afterAcquire(boolean tookOver);
    }

    /** Bytes a lock of {@code maxEntries} and a {@code payloadLength}-byte payload area takes. */
    public static int length(int maxEntries, int payloadLength) {
        return ENTRIES_OFFSET + maxEntries * ENTRY_LENGTH + align8(payloadLength);
    }

    /** {@code n} rounded up to a multiple of 8. */
    public static int align8(int n) {
        return (n + 7) & ~7;
    }

    /** Where a holder writes an element to {@link #stageCopy copy} onto a reachable slot. */
    public int payloadOffset() {
        return payloadOffset;
    }

    // ------------------------------------------------------------------------------- lock

    /**
     * Takes the lock, waiting at most {@code timeoutNanos} for a live holder; a dead holder's lock
     * is taken over and its sealed step replayed first.
     *
     * @throws CxcTimeoutException naming the live holder, if the wait ran out
     */
    public void lock(long timeoutNanos) {
        long word = OwnerRecord.ownerWord(body, ownerRecord);
        if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER
                && body.getLongAcquire(waiterAt) == 0
                && claimFree(word)) {
            acquired(false);
            return;
        }
        long me = waiterToken();
        try {
            lockSlow(timeoutNanos, me);
        } catch (RuntimeException | Error e) {
            // A waiter that gives up (timeout, a corrupt intent) leaves no flag behind.
            body.compareAndSetLong(waiterAt, me, 0);
            throw e;
        }
    }

    /** This thread's waiter word: PID in the low half, a thread id in the high (never 0). */
    private static long waiterToken() {
        return ((Thread.currentThread().getId() & 0x7FFF_FFFFL) << 32) | OWN_PID;
    }

    private void lockSlow(long timeoutNanos, long me) {
        long start = System.nanoTime();
        long nextDeadCheck = start + DEAD_CHECK_NANOS;
        long park = 1_000;
        int spins = 0;
        long deferredTo = 0; // the other waiter's word this thread leaves a free lock to
        long deferredSince = 0;
        while (true) {
            long word = OwnerRecord.ownerWord(body, ownerRecord);
            long waiter = body.getLongAcquire(waiterAt);
            boolean free = OwnerRecord.pid(word) == OwnerRecord.NO_OWNER;
            if (free && (waiter == 0 || waiter == me)) {
                if (claimFree(word)) {
                    tookTurn(waiter, me);
                    acquired(false);
                    return;
                }
                continue;
            }
            if (spins < SPINS) {
                spins++;
                Thread.onSpinWait();
                continue;
            }
            long now = System.nanoTime();
            if (waiter == 0) {
                // Ask for the next turn: a holder that re-takes the lock leaves it to us first.
                body.compareAndSetLong(waiterAt, 0, me);
                continue;
            }
            if (waiter != me) {
                if (waiter != deferredTo) {
                    deferredTo = waiter;
                    deferredSince = now;
                } else if (free && now - deferredSince >= COURTESY_NANOS) {
                    // It had its turn and did not take it (frozen, or a reused PID's stale flag):
                    // void the flag, from exactly the value judged.
                    body.compareAndSetLong(waiterAt, waiter, 0);
                    continue;
                }
            }
            if (now - nextDeadCheck >= 0) {
                nextDeadCheck = now + DEAD_CHECK_NANOS;
                if (waiter != me
                        && OwnerRecord.pid(waiter) != OWN_PID
                        && ProcessProbe.status(
                                        OwnerRecord.pid(waiter), ProcessProbe.UNKNOWN_START_TIME)
                                == ProcessStatus.DEAD) {
                    // A waiter that died with its flag set never blocks the lock.
                    body.compareAndSetLong(waiterAt, waiter, 0);
                    continue;
                }
                if (!free
                        && OwnerRecord.pid(word) != OWN_PID
                        && OwnerRecord.isDead(body, ownerRecord, word)) {
                    // From exactly the word judged: a holder that released meanwhile is not robbed.
                    if (claim(word)) {
                        tookTurn(waiter, me);
                        acquired(true);
                        return;
                    }
                    continue;
                }
            }
            if (now - start >= timeoutNanos) {
                throw timeout(now - start, word, waiter, me);
            }
            LockSupport.parkNanos(park);
            park = Math.min(park * 2, waiter == me ? FLAGGED_MAX_PARK_NANOS : MAX_PARK_NANOS);
        }
    }

    /** Our turn is taken: clear our flag (a CAS, so a flag set since by another waiter stays). */
    private void tookTurn(long waiter, long me) {
        if (waiter == me) {
            body.compareAndSetLong(waiterAt, me, 0);
        }
    }

    private CxcTimeoutException timeout(long waited, long word, long waiter, long me) {
        long pid = OwnerRecord.pid(word);
        String what = doing == null ? "" : ", " + doing.get();
        String holder =
                pid == OwnerRecord.NO_OWNER
                        ? "free but left to the waiting PID "
                                + OwnerRecord.pid(waiter)
                                + " whose turn it is"
                        : "held by live PID "
                                + pid
                                + (pid == OWN_PID ? " (this process)" : "")
                                + what
                                + " (taken over only once that process is dead)";
        return new CxcTimeoutException(
                "waited "
                        + waited / 1_000_000
                        + " ms for the writer lock of "
                        + this.what
                        + ", "
                        + holder
                        + (waiter == me ? "; this thread was next in turn" : ""));
    }

    /** The free word's fast path: one CAS when the identity already names this process. */
    private boolean claimFree(long judgedFree) {
        long mine =
                OwnerRecord.claimFree(
                        body, ownerRecord, judgedFree, OWN_PID, OWN_START_TIME, System::nanoTime);
        if (mine == OwnerRecord.NO_OWNER) {
            return false;
        }
        held = mine;
        staged = 0;
        return true;
    }

    private boolean claim(long judged) {
        long mine = OwnerRecord.ownerWord(OWN_PID, OwnerRecord.nextGeneration(judged));
        if (!OwnerRecord.claim(body, ownerRecord, judged, mine, OWN_START_TIME, System::nanoTime)) {
            return false;
        }
        held = mine;
        staged = 0;
        return true;
    }

    /**
     * Replays a sealed intent (a free lock has none, as the clear comes before the release: but a
     * file copied mid-step would have one), runs the hook; releases again if either throws.
     */
    private void acquired(boolean tookOver) {
        try {
            repairIfSealed();
            if (hook != null) {
                hook.afterAcquire(tookOver);
            }
        } catch (RuntimeException | Error e) {
            staged = 0;
            OwnerRecord.release(body, ownerRecord, held);
            throw e;
        }
        Interleaving.at(Point.INTENT_LOCKED);
    }

    /** Releases the lock (after {@link #commit}, or to abandon a step that staged nothing yet). */
    public void unlock() {
        staged = 0;
        Interleaving.at(Point.INTENT_CLEARED);
        if (!OwnerRecord.release(body, ownerRecord, held)) {
            throw new IllegalStateException(
                    "the writer lock of "
                            + what
                            + " was not held by this process any more: owner word 0x"
                            + Long.toHexString(OwnerRecord.ownerWord(body, ownerRecord)));
        }
    }

    /** The PID of the waiter whose turn is next, 0 if none. */
    public long waiterPid() {
        return OwnerRecord.pid(body.getLongVolatile(waiterAt));
    }

    /** The PID holding the lock now, 0 if none. */
    public long holderPid() {
        return OwnerRecord.pid(OwnerRecord.ownerWord(body, ownerRecord));
    }

    /** Whether the lock is free, held by a live process, or by one {@code /proc} shows dead. */
    public OwnerStatus holderStatus() {
        long word = OwnerRecord.ownerWord(body, ownerRecord);
        if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER) {
            return OwnerStatus.FREE;
        }
        return OwnerRecord.isDead(body, ownerRecord, word) ? OwnerStatus.DEAD : OwnerStatus.LIVE;
    }

    /**
     * What is wrong with the intent word of a lock at {@code base}, or null: for a primitive's body
     * check at open (the entries themselves are checked before a replay).
     */
    public static @Nullable String intentProblem(AtomicBuffer body, int base, int maxEntries) {
        long intent = body.getLongVolatile(base + INTENT_OFFSET);
        if (intent == 0) {
            return null;
        }
        long count = intent & COUNT_MASK;
        if ((intent & ~COUNT_MASK) != SEALED || count > maxEntries) {
            return "intent word 0x"
                    + Long.toHexString(intent)
                    + " at body offset "
                    + (base + INTENT_OFFSET)
                    + ": neither 0 nor sealed with at most "
                    + maxEntries
                    + " entries";
        }
        return null;
    }

    /** How many dead holders' sealed steps were replayed, by every process. */
    public long repairs() {
        return body.getLongVolatile(base + REPAIRS_OFFSET);
    }

    // ------------------------------------------------------------------------------ intent

    /** Stages {@code value} for the word at body offset {@code offset}; applied in order. */
    public void stage(int offset, long value) {
        if (staged == maxEntries) {
            throw new IllegalStateException(what + ": a step stages at most " + maxEntries);
        }
        put(staged++, offset, value);
    }

    private void put(int index, long target, long value) {
        int entry = base + ENTRIES_OFFSET + index * ENTRY_LENGTH;
        body.setLongPlain(entry, target);
        body.setLongPlain(entry + 8, value);
        stagedTargets[index] = target;
        stagedValues[index] = value;
    }

    /** Stages a copy of the payload area's first {@code length} bytes onto {@code offset}. */
    public void stageCopy(int offset, int length) {
        if (length > payloadLength) {
            throw new IllegalStateException(what + ": copy of " + length + " bytes");
        }
        stage(offset, 0);
        put(staged - 1, COPY | offset, length);
    }

    /**
     * Seals the staged step (its commit point: from here it happens even if this process dies),
     * applies it, and clears the intent.
     */
    public void commit() {
        int count = staged;
        Interleaving.at(Point.INTENT_STAGED);
        body.setLongRelease(base + INTENT_OFFSET, SEALED | count);
        Interleaving.at(Point.INTENT_SEALED);
        applyStaged(count);
        Interleaving.at(Point.INTENT_APPLIED);
        body.setLongRelease(base + INTENT_OFFSET, 0);
        staged = 0;
    }

    /** The holder's own step, from its copy of the entries (in order, as a replay would). */
    private void applyStaged(int count) {
        int half = count / 2;
        for (int i = 0; i < count; i++) {
            if (i == half) {
                Interleaving.at(Point.INTENT_HALF_APPLIED);
            }
            applyEntry(stagedTargets[i], stagedValues[i]);
        }
    }

    /** A dead holder's step, from the file's entries (checked before the first is applied). */
    private void replay(int count) {
        for (int i = 0; i < count; i++) {
            int entry = base + ENTRIES_OFFSET + i * ENTRY_LENGTH;
            applyEntry(body.getLongPlain(entry), body.getLongPlain(entry + 8));
        }
    }

    private void applyEntry(long target, long value) {
        if ((target & COPY) != 0) {
            copy((int) (target & ~COPY), (int) value);
        } else {
            body.setLongRelease((int) target, value);
        }
    }

    private void copy(int offset, int length) {
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            body.setLongRelease(offset + i, body.getLongPlain(payloadOffset + i));
        }
        for (; i < length; i++) {
            body.putByte(offset + i, body.getByte(payloadOffset + i));
        }
    }

    private void repairIfSealed() {
        long intent = body.getLongVolatile(base + INTENT_OFFSET);
        if (intent == 0) {
            return;
        }
        if ((intent & ~COUNT_MASK) == SEALED) {
            long count = intent & COUNT_MASK;
            String problem = checkEntries(count);
            if (problem != null) {
                // acquired() releases again: every writer gets this error, not a timeout behind us.
                throw new CxcFormatException(
                        what
                                + ": the intent left by a dead writer is corrupt ("
                                + problem
                                + "); nothing of it was applied");
            }
            replay((int) count);
            body.getAndAddLong(base + REPAIRS_OFFSET, 1);
        }
        // Unsealed: the dead holder never reached its commit point; its entries are void.
        body.setLongRelease(base + INTENT_OFFSET, 0);
    }

    /**
     * Every entry must land inside the body, outside this lock, 8-aligned (a copy shorter than a
     * word may start anywhere; copies: in bounds): else replaying it would fail half-way.
     */
    private String checkEntries(long count) {
        if (count > maxEntries) {
            return "entry count " + count + " exceeds the limit " + maxEntries;
        }
        int lockEnd = payloadOffset + align8(payloadLength);
        for (int i = 0; i < count; i++) {
            int entry = base + ENTRIES_OFFSET + i * ENTRY_LENGTH;
            long target = body.getLongPlain(entry);
            long value = body.getLongPlain(entry + 8);
            boolean copy = (target & COPY) != 0;
            long offset = target & ~COPY;
            long length = copy ? value : 8;
            if (copy && (value < 0 || value > payloadLength)) {
                return "entry " + i + " copies " + value + " bytes, limit " + payloadLength;
            }
            if (offset < 0
                    || offset + length > body.capacity()
                    || (offset % 8 != 0 && (!copy || length >= 8)) // copy() stores whole words
                    || (offset < lockEnd && offset + length > base)) {
                return "entry "
                        + i
                        + " targets offset "
                        + offset
                        + " (body "
                        + body.capacity()
                        + " bytes, lock at "
                        + base
                        + ".."
                        + lockEnd
                        + ")";
            }
        }
        return null;
    }
}
