package io.subetha.cxc.claim;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The one slot-ownership protocol: how a process claims something in a shared body by PID (a
 * heartbeat slot, a barrier seat, the leader's seat, and every later claim: a drainer's turn, a
 * consumer's claim, a lease), proves who it is, keeps it, and how others judge and take it over.
 * Every primitive that lets a process own something keeps one record per ownable thing and goes
 * through these methods; none writes the words below by hand.
 *
 * <pre>
 * Owner record, at any 8-byte aligned offset of a body
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ -.
 * |                  Owner PID (u32, 0 = free)                0   |  | owner word:
 * +---------------------------------------------------------------+  | one aligned u64,
 * |                  Key: generation or term (u32)            4   |  | CAS'd as one
 * +---------------------------------------------------------------+ -'
 * |                  Owner start time, low 32 bits            8   |  | identity word:
 * +---------------------------------------------------------------+  | CAS'd as one, valid
 * |                  Key the start time belongs to (u32)     12   |  | only for that key
 * +---------------------------------------------------------------+ -'
 * |                  Heartbeat (u64: an epoch, or             16   |
 * |                  CLOCK_MONOTONIC ns; the primitive's unit)    |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p><b>Claim.</b> A claimant reads the owner word, judges it ({@link #judge}: free, stale, dead),
 * and CASes exactly that word to its own PID under the next key. Nothing is written before the CAS
 * is won: a claimant paused between judging and its CAS, whose CAS then fails, has changed nothing.
 * After winning it publishes its heartbeat as a monotonic maximum from a value read after the CAS
 * (so a late publisher can only make a record fresher, never older), then its identity.
 *
 * <p><b>Identity.</b> The owner's start time tells a dead owner from a new process that reused its
 * PID. It is published in one CAS'd word together with the key it belongs to, only while the owner
 * word is still the publisher's; a reader uses it only when that key equals the owner word's key. A
 * publisher paused past its ownership can therefore never pair its start time with the next owner:
 * either its CAS fails, or it writes a key the next owner's word does not carry (and the next
 * owner's own publication replaces it). Until the identity is published, readers treat the start
 * time as unknown: the PID's presence is still checked.
 *
 * <p><b>Judge and release.</b> An owner is stale when its heartbeat lags by more than a grace, dead
 * when {@code /proc} shows its PID gone, a zombie, or reused (per the published start time). The
 * heartbeat stays the authority: an unknown process status counts as alive. Releasing and taking
 * over are each one CAS from exactly the word that was judged, so an owner that re-claimed or was
 * replaced meanwhile is never released by mistake.
 *
 * <p>Start times are compared in their low 32 bits (clock ticks since boot on Linux: 497 days at
 * 100 Hz before two processes of one PID could collide).
 */
public final class OwnerRecord {

    public static final int OWNER_WORD_OFFSET = 0;
    public static final int IDENTITY_OFFSET = 8;
    public static final int HEARTBEAT_OFFSET = 16;

    /** Bytes of one record. */
    public static final int LENGTH = 24;

    /** An owner word's PID when nobody owns the record. */
    public static final long NO_OWNER = 0;

    private static final long LOW = 0xFFFF_FFFFL;
    private static final long OWN_PID = Pids.current();
    private static final long OWN_START_TIME = ProcessProbe.startTime(OWN_PID);

    private OwnerRecord() {}

    // ------------------------------------------------------------------------------ words

    public static long pid(long ownerWord) {
        return ownerWord & LOW;
    }

    /** The key (generation or term) of an owner word, as u32. */
    public static long key(long ownerWord) {
        return ownerWord >>> 32;
    }

    public static long ownerWord(long pid, long key) {
        return (key << 32) | (pid & LOW);
    }

    /** The key the next claim installs: one more (mod 2^32), skipping 0, "never claimed". */
    public static long nextGeneration(long ownerWord) {
        long next = (key(ownerWord) + 1) & LOW;
        return next == 0 ? 1 : next;
    }

    /** The word a release leaves: no PID, the key kept, so the next claim's key still rises. */
    public static long freed(long ownerWord) {
        return ownerWord & ~LOW;
    }

    /** The start time of {@code pid}, read once for this process. */
    public static long startTimeOf(long pid) {
        return pid == OWN_PID ? OWN_START_TIME : ProcessProbe.startTime(pid);
    }

    // ------------------------------------------------------------------------------ reads

    public static long ownerWord(AtomicBuffer body, int record) {
        return body.getLongVolatile(record + OWNER_WORD_OFFSET);
    }

    public static long heartbeat(AtomicBuffer body, int record) {
        return body.getLongAcquire(record + HEARTBEAT_OFFSET);
    }

    /**
     * The start time published for the owner of {@code ownerWord}, or {@link
     * ProcessProbe#UNKNOWN_START_TIME} when none is (yet) published for its key.
     */
    public static long startTime(AtomicBuffer body, int record, long ownerWord) {
        long identity = body.getLongAcquire(record + IDENTITY_OFFSET);
        return (identity >>> 32) == key(ownerWord)
                ? identity & LOW
                : ProcessProbe.UNKNOWN_START_TIME;
    }

    /**
     * Judges the owner of {@code ownerWord}: {@link OwnerStatus#STALE} if its heartbeat lags {@code
     * now} by more than {@code grace}, else {@link OwnerStatus#DEAD} if its process is provably
     * gone, else {@link OwnerStatus#LIVE}. Probes {@code /proc} (~10 µs) unless stale.
     *
     * @param now the current value in the heartbeat's unit (global epoch, or nanoTime)
     */
    public static OwnerStatus judge(
            AtomicBuffer body, int record, long ownerWord, long now, long grace) {
        if (pid(ownerWord) == NO_OWNER) {
            return OwnerStatus.FREE;
        }
        if (now - heartbeat(body, record) > grace) {
            return OwnerStatus.STALE;
        }
        return isDead(body, record, ownerWord) ? OwnerStatus.DEAD : OwnerStatus.LIVE;
    }

    /** Whether {@code /proc} shows the owner of {@code ownerWord} gone, a zombie, or replaced. */
    public static boolean isDead(AtomicBuffer body, int record, long ownerWord) {
        return status(body, record, ownerWord) == ProcessStatus.DEAD;
    }

    /** The {@link ProcessProbe} status of the owner of {@code ownerWord}. */
    public static ProcessStatus status(AtomicBuffer body, int record, long ownerWord) {
        return ProcessProbe.status(pid(ownerWord), startTime(body, record, ownerWord));
    }

    /**
     * Whether the owner of {@code ownerWord} is this very process, {@code pid} with {@code
     * startTime}, rather than an earlier process that had the same PID: its published identity
     * names this start time. False while the identity is unpublished, or when either start time is
     * unknown but not both.
     */
    public static boolean isOwnedBy(
            AtomicBuffer body, int record, long ownerWord, long pid, long startTime) {
        if (pid(ownerWord) != pid) {
            return false;
        }
        long identity = body.getLongAcquire(record + IDENTITY_OFFSET);
        return (identity >>> 32) == key(ownerWord) && (identity & LOW) == (startTime & LOW);
    }

    // ----------------------------------------------------------------------------- writes

    /** A record won in a table of records: its index and the owner word this process installed. */
    public record Claimed(int index, long ownerWord) {}

    /**
     * Claims the first free record of a table ({@code count} records, record {@code i} at body
     * offset {@code offsetOf.applyAsInt(i)}) for {@code pid}: a {@link #claim} from each free word
     * in turn, under that word's next generation.
     *
     * @return the record won, or null if every record was held (or every free one lost its CAS)
     */
    public static @Nullable Claimed claimFirstFree(
            AtomicBuffer body,
            int count,
            IntUnaryOperator offsetOf,
            long pid,
            long startTime,
            LongSupplier freshHeartbeat) {
        for (int i = 0; i < count; i++) {
            int record = offsetOf.applyAsInt(i);
            long word = ownerWord(body, record);
            if (pid(word) != NO_OWNER) {
                continue;
            }
            long mine = ownerWord(pid, nextGeneration(word));
            if (claim(body, record, word, mine, startTime, freshHeartbeat)) {
                return new Claimed(i, mine);
            }
        }
        return null;
    }

    /**
     * Installs {@code newWord} if the owner word is still {@code judged}; only if that CAS wins,
     * publishes the new owner's heartbeat (the maximum of the record's and a value {@code
     * freshHeartbeat} reads after the CAS) and then its identity.
     *
     * @param startTime the new owner's start time ({@link #startTimeOf})
     * @return whether this call installed {@code newWord}
     */
    public static boolean claim(
            AtomicBuffer body,
            int record,
            long judged,
            long newWord,
            long startTime,
            LongSupplier freshHeartbeat) {
        Interleaving.at(Point.JUDGED);
        if (!body.compareAndSetLong(record + OWNER_WORD_OFFSET, judged, newWord)) {
            return false;
        }
        Interleaving.at(Point.WON);
        raiseHeartbeat(body, record, freshHeartbeat.getAsLong());
        Interleaving.at(Point.HEARTBEAT_PUBLISHED);
        publishIdentity(body, record, newWord, startTime);
        return true;
    }

    /**
     * Claims the free record {@code judgedFree} for {@code pid}, as {@link #claim} does, with one
     * shortcut for a record taken and released at a high rate (a region's allocator lock): when the
     * identity word already publishes {@code startTime} for the free word's key, the last owner
     * under that key had this very start time, so the published identity stays true if the key is
     * kept, and the claim is the one CAS. Otherwise a full {@link #claim} under the next key.
     *
     * @return the owner word this call installed, or {@link #NO_OWNER} if the CAS lost
     */
    public static long claimFree(
            AtomicBuffer body,
            int record,
            long judgedFree,
            long pid,
            long startTime,
            LongSupplier freshHeartbeat) {
        long key = key(judgedFree);
        if (key != 0
                && body.getLongAcquire(record + IDENTITY_OFFSET)
                        == ((key << 32) | (startTime & LOW))) {
            long again = ownerWord(pid, key);
            return body.compareAndSetLong(record + OWNER_WORD_OFFSET, judgedFree, again)
                    ? again
                    : NO_OWNER;
        }
        long next = ownerWord(pid, nextGeneration(judgedFree));
        return claim(body, record, judgedFree, next, startTime, freshHeartbeat) ? next : NO_OWNER;
    }

    /**
     * Publishes {@code ownerWord}'s identity, unless the record has moved on to another owner. May
     * be called again by the owner (it is idempotent), e.g. by a process that found its own word
     * with no identity published.
     */
    public static void publishIdentity(
            AtomicBuffer body, int record, long ownerWord, long startTime) {
        long identity = (key(ownerWord) << 32) | (startTime & LOW);
        while (true) {
            long current = body.getLongVolatile(record + IDENTITY_OFFSET);
            if (current == identity || ownerWord(body, record) != ownerWord) {
                return;
            }
            // From exactly the value read: a later owner's publication in between wins.
            Interleaving.at(Point.IDENTITY_READ);
            if (body.compareAndSetLong(record + IDENTITY_OFFSET, current, identity)) {
                return;
            }
        }
    }

    /**
     * Raises the heartbeat to {@code value} unless it is already at or past it (wrap-around
     * compare): a late writer can only make a record fresher.
     */
    public static void raiseHeartbeat(AtomicBuffer body, int record, long value) {
        int offset = record + HEARTBEAT_OFFSET;
        long current = body.getLongVolatile(offset);
        while (value - current > 0) {
            Interleaving.at(Point.HEARTBEAT_READ);
            long witness = body.compareAndExchangeLong(offset, current, value);
            if (witness == current) {
                return;
            }
            current = witness;
        }
    }

    /**
     * The owner's own beat: a release store, one writer while it owns the record. The caller has
     * checked that it still owns it.
     */
    public static void beat(AtomicBuffer body, int record, long value) {
        body.setLongRelease(record + HEARTBEAT_OFFSET, value);
    }

    /**
     * Frees the record if its owner word is still {@code judged} (one CAS), keeping the key.
     *
     * @return whether this call freed it
     */
    public static boolean release(AtomicBuffer body, int record, long judged) {
        return body.compareAndSetLong(record + OWNER_WORD_OFFSET, judged, freed(judged));
    }
}
