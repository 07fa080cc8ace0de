package io.subetha.cxc.ownership;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import java.util.concurrent.locks.LockSupport;

/**
 * A cross-process writer lock whose holder is recorded in an {@link OwnerRecord}, and whose
 * multi-word steps are made crash-safe by a redo intent: a holder that is SIGKILLed half-way
 * through a step leaves the step either not begun or finished by the next holder. For structures (a
 * vec, a list, a graph) whose writes touch several words at once while readers read without locking
 * (each structure protects its readers with its own generations).
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
 * |                  Entries: maxEntries x (body offset u64,  40   |
 * |                  new value u64); a COPY entry's value is a     |
 * |                  length, its source the payload area           |
 * +---------------------------------------------------------------+
 * |                  Payload area (a structure's element, for a    |
 * |                  copy onto a reachable slot)                   |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p><b>Protocol.</b> {@link #lock} claims the owner record through {@link OwnerRecord#claim} from
 * the free word (or from a dead holder's exact word). The holder then {@link #stage stages} every
 * word its step will change (absolute new values, computed under the lock) into the entries and
 * {@link #commit commits}: one release store of the intent word seals the step (the commit point),
 * the entries are applied in order, and the intent word is cleared. {@link #unlock} releases the
 * record by CAS from the word it installed.
 *
 * <p><b>Crash.</b> Killed before the seal: no reachable word was changed (a structure writes only
 * unreachable slots before sealing), the step never happened. Killed after the seal: the next
 * holder finds the intent sealed and replays it (applying an absolute value twice is harmless),
 * then clears it: the step happened exactly once. Killed after clearing, before the release: there
 * is nothing to replay. A waiter takes the record over only when {@code /proc} shows the holder
 * dead (gone, a zombie, or its PID reused), never on a timeout: a paused holder keeps its lock, and
 * the waiter's {@link CxcTimeoutException} names it. Replayed entries are checked against the body
 * before a single one is applied; a bad one is a {@link CxcFormatException} (the lock is released
 * again, so every writer gets the error instead of a timeout).
 *
 * <p>One thread of one process holds the lock at a time (not reentrant); an instance is shared by
 * the threads of a process.
 */
public final class IntentLock {

    public static final int OWNER_OFFSET = 0;
    public static final int INTENT_OFFSET = 24;
    public static final int REPAIRS_OFFSET = 32;
    public static final int ENTRIES_OFFSET = 40;
    public static final int ENTRY_LENGTH = 16;

    private static final long SEALED = 0x5EA1EDL << 32;
    private static final long COUNT_MASK = 0xFFFF_FFFFL;
    private static final long COPY = 1L << 62;

    private static final long OWN_PID = Pids.current();
    private static final long OWN_START_TIME = OwnerRecord.startTimeOf(OWN_PID);
    private static final int SPINS = 100;
    private static final long MAX_PARK_NANOS = 200_000;
    private static final long DEAD_CHECK_NANOS = 1_000_000;

    private final AtomicBuffer body;
    private final int base;
    private final int maxEntries;
    private final int payloadOffset;
    private final int payloadLength;
    private final String what;

    // The holder's own state: written only by the thread holding the lock, handed to the next
    // holder of this process through the owner word's CAS.
    private long held;
    private int staged;

    /**
     * @param base the lock's body offset (8-aligned)
     * @param what the structure, for timeout messages: "shared-vec /dev/shm/a.cxc"
     */
    public IntentLock(AtomicBuffer body, int base, int maxEntries, int payloadLength, String what) {
        this.body = body;
        this.base = base;
        this.maxEntries = maxEntries;
        this.payloadOffset = base + ENTRIES_OFFSET + maxEntries * ENTRY_LENGTH;
        this.payloadLength = payloadLength;
        this.what = what;
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
     * Takes the lock, waiting at most {@code timeoutNanos}; a dead holder's lock is taken over and
     * its sealed step replayed first.
     *
     * @throws CxcTimeoutException naming the live holder, if the wait ran out
     */
    public void lock(long timeoutNanos) {
        int record = base + OWNER_OFFSET;
        long start = System.nanoTime();
        long nextDeadCheck = start + DEAD_CHECK_NANOS;
        long park = 1_000;
        int spins = 0;
        while (true) {
            long word = OwnerRecord.ownerWord(body, record);
            if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER) {
                if (claim(record, word)) {
                    // A holder killed after its release but before clearing cannot exist (the
                    // clear comes first), so a free lock has nothing to replay: but check anyway,
                    // a file copied mid-step would have one.
                    repairIfSealed();
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
            if (now - nextDeadCheck >= 0) {
                nextDeadCheck = now + DEAD_CHECK_NANOS;
                if (OwnerRecord.pid(word) != OWN_PID && OwnerRecord.isDead(body, record, word)) {
                    if (claim(record, word)) {
                        repairIfSealed();
                        return;
                    }
                    continue;
                }
            }
            if (now - start >= timeoutNanos) {
                throw new CxcTimeoutException(
                        "waited "
                                + (now - start) / 1_000_000
                                + " ms for the writer lock of "
                                + what
                                + ", held by live PID "
                                + OwnerRecord.pid(word)
                                + " (taken over only once that process is dead)");
            }
            LockSupport.parkNanos(park);
            park = Math.min(park * 2, MAX_PARK_NANOS);
        }
    }

    private boolean claim(int record, long judged) {
        long mine = OwnerRecord.ownerWord(OWN_PID, OwnerRecord.nextGeneration(judged));
        if (!OwnerRecord.claim(body, record, judged, mine, OWN_START_TIME, System::nanoTime)) {
            return false;
        }
        held = mine;
        staged = 0;
        return true;
    }

    /** Releases the lock (after {@link #commit}, or to abandon a step that staged nothing yet). */
    public void unlock() {
        staged = 0;
        if (!OwnerRecord.release(body, base + OWNER_OFFSET, held)) {
            throw new IllegalStateException(
                    "the writer lock of "
                            + what
                            + " was not held by this process any more: owner word 0x"
                            + Long.toHexString(OwnerRecord.ownerWord(body, base + OWNER_OFFSET)));
        }
    }

    /** The PID holding the lock now, 0 if none. */
    public long holderPid() {
        return OwnerRecord.pid(OwnerRecord.ownerWord(body, base + OWNER_OFFSET));
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
        int entry = base + ENTRIES_OFFSET + staged * ENTRY_LENGTH;
        body.setLongPlain(entry, offset);
        body.setLongPlain(entry + 8, value);
        staged++;
    }

    /** Stages a copy of the payload area's first {@code length} bytes onto {@code offset}. */
    public void stageCopy(int offset, int length) {
        if (length > payloadLength) {
            throw new IllegalStateException(what + ": copy of " + length + " bytes");
        }
        stage(offset, 0);
        body.setLongPlain(base + ENTRIES_OFFSET + (staged - 1) * ENTRY_LENGTH, COPY | offset);
        body.setLongPlain(base + ENTRIES_OFFSET + (staged - 1) * ENTRY_LENGTH + 8, length);
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
        apply(count);
        Interleaving.at(Point.INTENT_APPLIED);
        body.setLongRelease(base + INTENT_OFFSET, 0);
        staged = 0;
    }

    private void apply(int count) {
        for (int i = 0; i < count; i++) {
            int entry = base + ENTRIES_OFFSET + i * ENTRY_LENGTH;
            long target = body.getLongPlain(entry);
            long value = body.getLongPlain(entry + 8);
            if ((target & COPY) != 0) {
                copy((int) (target & ~COPY), (int) value);
            } else {
                body.setLongRelease((int) target, value);
            }
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
                // Released again: every writer gets this error rather than a timeout behind us.
                OwnerRecord.release(body, base + OWNER_OFFSET, held);
                throw new CxcFormatException(
                        what
                                + ": the intent left by a dead writer is corrupt ("
                                + problem
                                + "); nothing of it was applied");
            }
            apply((int) count);
            body.getAndAddLong(base + REPAIRS_OFFSET, 1);
        }
        // Unsealed: the dead holder never reached its commit point; its entries are void.
        body.setLongRelease(base + INTENT_OFFSET, 0);
    }

    /** Every entry must land inside the body, outside this lock, 8-aligned (copies: in bounds). */
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
                    || (!copy && offset % 8 != 0)
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
