package io.subetha.cxc.participant;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * One handle's participant record in a table of {@link OwnerRecord}s (PID, start time, generation,
 * heartbeat in {@code CLOCK_MONOTONIC} ns), for a primitive whose slot words name the participant
 * that holds them by record index and generation.
 *
 * <p>The handle claims the first free record when it first writes or takes ({@link #tag()}), beats
 * it as it works (at most every eighth of the grace) and frees it on {@link #leave}. Anyone {@link
 * #judgeAll judges} the table: a record whose PID is dead, or whose heartbeat is older than the
 * grace, has its slots repaired by the primitive, and a dead one's record is freed after them, so a
 * judge killed midway leaves the record held by a dead PID and the next judge finishes.
 *
 * <p><b>Leaving with operations in flight.</b> A handle's operations run between {@link #enter} and
 * {@link #exit}, and while any is in flight {@link #leave} does not free the record: the last
 * operation out does it, on close's behalf. A slot one of them holds mid-step (a submit between its
 * two CASes, a completer writing its result) names this record; freed under it, the slot would name
 * a free record, which no scan repairs, and a process that exits then leaves it held for good. The
 * other design, a scan repairing slots that name a free record, would CAS a live thread's slot out
 * from under it while it still writes: a write on behalf of a CAS the scanner never won. Here every
 * slot is repaired only by its own thread's next CAS, or by a scan once the record is judged dead
 * or silent, and close never blocks: an operation that never ends (its thread stopped for good)
 * keeps the record held by this process until it exits, when scans find it dead.
 *
 * <p>The primitive hands in its buffer and table offsets, its refusal of a closed handle and its
 * own scan (which frees dead participants' records when the table is full); this class knows no
 * primitive. Thread-safe: a handle's threads share its record.
 */
public final class ParticipantRecord {

    /** Repairs the slots one judged participant holds. */
    @FunctionalInterface
    public interface Repair {
        /**
         * @param index the participant's record index, as slot words name it
         * @param generation the record's generation (u32), of which slot words keep the low bits
         * @param dead whether its process is gone (else it is only silent beyond the grace)
         */
        void repair(int index, long generation, boolean dead);
    }

    private final AtomicBuffer body;
    private final int count;
    private final IntUnaryOperator offsetOf;
    private final long graceNanos;
    private final long pid;
    private final Path file;
    private final Runnable requireOpen;
    private final Runnable freeDeadRecords;

    // -1 until the handle first writes or takes, and again once it left.
    private volatile int index = -1;
    private volatile long ownerWord;
    private volatile long lastBeat;
    // Operations of this handle between enter and exit; the repair close handed to the last of
    // them.
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile @Nullable Repair leaving;

    /**
     * @param body the primitive's body
     * @param count records in its table
     * @param offsetOf the body offset of record {@code i}
     * @param graceNanos how long a participant may stay silent before its slots are repaired
     * @param pid the process this handle runs in, which its record names
     * @param file the primitive's file, for errors
     * @param requireOpen refuses a closed handle, which must claim no record its close would free
     * @param freeDeadRecords the primitive's scan, run when every record is held
     */
    public ParticipantRecord(
            AtomicBuffer body,
            int count,
            IntUnaryOperator offsetOf,
            long graceNanos,
            long pid,
            Path file,
            Runnable requireOpen,
            Runnable freeDeadRecords) {
        this.body = body;
        this.count = count;
        this.offsetOf = offsetOf;
        this.graceNanos = graceNanos;
        this.pid = pid;
        this.file = file;
        this.requireOpen = requireOpen;
        this.freeDeadRecords = freeDeadRecords;
    }

    /** A participant as slot words name it: record index and generation, in one long. */
    public static long tag(int index, long ownerWord) {
        return ((long) index << 32) | OwnerRecord.key(ownerWord);
    }

    /** A participant tag's record index. */
    public static int indexOf(long tag) {
        return (int) (tag >>> 32);
    }

    /** A participant tag's generation (u32). */
    public static long generationOf(long tag) {
        return tag & 0xFFFF_FFFFL;
    }

    /** This handle's participant {@link #tag(int, long) tag}, claiming a record first if needed. */
    public long tag() {
        int r = index;
        long word = ownerWord;
        if (r >= 0 && OwnerRecord.ownerWord(body, offsetOf.applyAsInt(r)) == word) {
            beatIfDue();
            return tag(r, word);
        }
        return register();
    }

    /** This handle's tag if it still holds its record, else -1; claims nothing. */
    public long heldTag() {
        int r = index;
        long word = ownerWord;
        if (r >= 0 && OwnerRecord.ownerWord(body, offsetOf.applyAsInt(r)) == word) {
            return tag(r, word);
        }
        return -1;
    }

    /** Beats this handle's record now, claiming it first if needed. */
    public void heartbeat() {
        long self = tag();
        long now = System.nanoTime();
        OwnerRecord.beat(body, offsetOf.applyAsInt(indexOf(self)), now);
        lastBeat = now;
    }

    /** Beats this handle's record if an eighth of the grace has passed, and it is still its own. */
    public void beatIfDue() {
        int r = index;
        long now = System.nanoTime();
        if (r >= 0 && now - lastBeat > graceNanos / 8) {
            if (OwnerRecord.ownerWord(body, offsetOf.applyAsInt(r)) == ownerWord) {
                OwnerRecord.beat(body, offsetOf.applyAsInt(r), now);
            }
            lastBeat = now;
        }
    }

    private synchronized long register() {
        requireOpen.run(); // a closed handle's record was freed: claiming another would leak it
        if (index >= 0 && OwnerRecord.ownerWord(body, offsetOf.applyAsInt(index)) == ownerWord) {
            return tag(index, ownerWord);
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            OwnerRecord.Claimed won =
                    OwnerRecord.claimFirstFree(
                            body,
                            count,
                            offsetOf,
                            pid,
                            OwnerRecord.startTimeOf(pid),
                            System::nanoTime);
            if (won != null) {
                ownerWord = won.ownerWord();
                index = won.index();
                lastBeat = System.nanoTime();
                return tag(won.index(), won.ownerWord());
            }
            freeDeadRecords.run();
        }
        throw new CxcCapacityException(
                file
                        + " has no free participant record: all "
                        + count
                        + " are held by live handles; close handles you no longer use");
    }

    /**
     * Judges every held record, this handle's own beaten first: hands each dead or silent
     * participant to {@code repair}, then frees a dead one's record (after its slots, so a judge
     * killed midway leaves it for the next).
     *
     * @return how many dead participants' records this call freed
     */
    public int judgeAll(Repair repair) {
        // The judge is alive: its own record is beaten first, or a handle that paused past the
        // grace (a GC, a loaded machine) would take back what it holds itself and hand it out
        // again.
        beatIfDue();
        int freed = 0;
        for (int r = 0; r < count; r++) {
            int record = offsetOf.applyAsInt(r);
            long word = OwnerRecord.ownerWord(body, record);
            if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER) {
                continue;
            }
            boolean dead = OwnerRecord.isDead(body, record, word);
            boolean stale = System.nanoTime() - OwnerRecord.heartbeat(body, record) > graceNanos;
            if (!dead && !stale) {
                continue;
            }
            repair.repair(r, OwnerRecord.key(word), dead);
            if (dead && OwnerRecord.release(body, record, word)) {
                freed++;
            }
        }
        return freed;
    }

    /**
     * Starts one of this handle's operations; {@link #exit} must follow. While any is in flight,
     * {@link #leave} leaves the record to the last of them.
     *
     * @return false once the handle is leaving: the operation must not start (nothing to exit)
     */
    public boolean enter() {
        // Raised before the check, and close sets leaving before it reads the count: either close
        // sees this operation in flight, or this operation sees close.
        inFlight.incrementAndGet();
        if (leaving != null) {
            exit();
            return false;
        }
        return true;
    }

    /** Ends an operation {@link #enter} started; the last one out after close leaves. */
    public void exit() {
        if (inFlight.decrementAndGet() == 0) {
            Repair repair = leaving;
            if (repair != null) {
                leaveNow(repair);
            }
        }
    }

    /**
     * Hands this handle's own slots to {@code repair} (as a live participant's) and frees its
     * record, if it holds one still its own; from then on it holds none. With operations in flight,
     * the last of them does it as it ends, and no new one starts.
     */
    public void leave(Repair repair) {
        leaving = repair;
        if (inFlight.get() == 0) {
            leaveNow(repair);
        }
    }

    // Both close and the last operation out may get here: the first leaves, the second finds no
    // record (index -1) and does nothing.
    private synchronized void leaveNow(Repair repair) {
        int r = index;
        if (r < 0) {
            return;
        }
        int record = offsetOf.applyAsInt(r);
        long word = ownerWord;
        if (OwnerRecord.ownerWord(body, record) == word) {
            repair.repair(r, OwnerRecord.key(word), false);
            OwnerRecord.release(body, record, word);
        }
        index = -1;
    }

    /** Records of the table held by some process, a moment's view. */
    public int held() {
        int held = 0;
        for (int r = 0; r < count; r++) {
            if (OwnerRecord.pid(OwnerRecord.ownerWord(body, offsetOf.applyAsInt(r)))
                    != OwnerRecord.NO_OWNER) {
                held++;
            }
        }
        return held;
    }
}
