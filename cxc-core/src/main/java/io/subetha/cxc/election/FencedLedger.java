package io.subetha.cxc.election;

import static io.subetha.cxc.election.FencedLedgerDescriptor.*;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.util.Map;

/**
 * A fence in a memory-mapped file: the downstream end of a fencing token. A leader stamps each
 * write with its election term ({@link SharedLeaderElection#electionTerm()}); the ledger accepts it
 * only if no higher term has been seen, so an ex-leader that was paused (a long GC, SIGSTOP) and
 * still believes it leads is refused the moment its successor has written. Layout: {@link
 * FencedLedgerDescriptor}.
 *
 * <p>Rules of {@link #write(long, long)}, decided atomically on one 64-bit word holding the highest
 * term seen and the PID that wrote under it:
 *
 * <ul>
 *   <li>a term <b>higher</b> than the highest seen is accepted and becomes the highest (one CAS);
 *   <li>the <b>same</b> term from the PID that holds it is accepted: a leader writes many times in
 *       its term;
 *   <li>a <b>lower</b> term is rejected ({@link WriteOutcome#REJECTED_STALE_TERM});
 *   <li>the same term from <b>another</b> PID is rejected ({@link
 *       WriteOutcome#REJECTED_TERM_CONFLICT}): one term has one holder, so two writers under one
 *       term mean a split brain or a misused token, and the ledger refuses rather than interleave.
 * </ul>
 *
 * <p>The high-water mark never goes down, and in the order the ledger accepts writes their terms
 * never decrease. A ledger belongs to one election file: terms restart at 1 in a new election, so
 * recreate the ledger with it. Thread-safe; any number of processes may map the file.
 */
public final class FencedLedger extends MappedPrimitive {

    /** What the ledger did with one write. */
    public enum WriteOutcome {
        ACCEPTED,
        /** A higher term was already seen: the writer is a deposed leader. */
        REJECTED_STALE_TERM,
        /** The term is held by another PID. */
        REJECTED_TERM_CONFLICT;

        public boolean accepted() {
            return this == ACCEPTED;
        }
    }

    /** The ops a ledger counts, exported under these names. */
    public enum Op implements OpKind {
        WRITE(1),
        READ(2);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** A ledger's creation settings: it has none. */
    public record Settings() {
        /** The only settings a ledger has. */
        public static final Settings NONE = new Settings();
    }

    public static final PrimitiveType<FencedLedger, Settings> TYPE =
            PrimitiveType.<FencedLedger, Settings>define(
                            PrimitiveKinds.FENCED_LEDGER, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .fixedBody(BODY_LENGTH)
                    .defaults(Settings.NONE)
                    .construct((file, settings, options) -> new FencedLedger(file));

    private FencedLedger(MappedFile file) {
        super(file, TYPE);
    }

    /** Opens and validates an existing ledger file; fails if it does not exist. */
    public static FencedLedger open(Path path) {
        return TYPE.open(path, Settings.NONE);
    }

    /** Opens the file, or creates it if absent; race-safe across processes. */
    public static FencedLedger openOrCreate(Path path) {
        return TYPE.openOrCreate(path, Settings.NONE);
    }

    // ------------------------------------------------------------------------------- writes

    /**
     * Offers a write by {@code pid} under {@code term}; see the class comment for the rules.
     * Allocation-free.
     *
     * @param term the writer's fencing token, 1..2^32-1 (an election term)
     * @param pid the writer's PID
     * @throws IllegalArgumentException for a term outside 1..2^32-1, PID 0 or a PID outside
     *     1..2^32-1
     */
    public WriteOutcome write(long term, long pid) {
        if (term < 1 || term > MAX_TERM) {
            throw new IllegalArgumentException(
                    "term " + term + " is outside 1.." + MAX_TERM + "; pass the election term");
        }
        Pids.requireValid(pid);
        countOp(Op.WRITE);
        while (true) {
            long word = body.getLongVolatile(FENCE_WORD_OFFSET);
            long highest = FencedLedgerDescriptor.highestTerm(word);
            if (term < highest) {
                body.getAndAddLong(REJECTED_STALE_OFFSET, 1);
                return WriteOutcome.REJECTED_STALE_TERM;
            }
            if (term == highest) {
                // Decided on this read: the word held exactly (term, holder) at that instant.
                if (FencedLedgerDescriptor.holderPid(word) != pid) {
                    body.getAndAddLong(REJECTED_CONFLICT_OFFSET, 1);
                    return WriteOutcome.REJECTED_TERM_CONFLICT;
                }
                body.getAndAddLong(ACCEPTED_OFFSET, 1);
                return WriteOutcome.ACCEPTED;
            }
            Interleaving.at(Point.FENCE_READ);
            requireIntactHeader(); // a zeroed ledger would accept a term below one it accepted
            if (body.compareAndSetLong(FENCE_WORD_OFFSET, word, packFenceWord(pid, term))) {
                body.getAndAddLong(ACCEPTED_OFFSET, 1);
                return WriteOutcome.ACCEPTED;
            }
            // Another write raised the mark first: decide again against the new one.
        }
    }

    // -------------------------------------------------------------------------------- reads

    /** The highest term any accepted write carried; 0 before the first. */
    public long highestTerm() {
        countOp(Op.READ);
        return FencedLedgerDescriptor.highestTerm(body.getLongVolatile(FENCE_WORD_OFFSET));
    }

    /** The PID that writes under {@link #highestTerm()}; 0 before the first write. */
    public long holderPid() {
        countOp(Op.READ);
        return FencedLedgerDescriptor.holderPid(body.getLongVolatile(FENCE_WORD_OFFSET));
    }

    /** Writes accepted so far, by every process. */
    public long acceptedWrites() {
        countOp(Op.READ);
        return body.getLongVolatile(ACCEPTED_OFFSET);
    }

    /** Writes refused because a higher term had been seen, by every process. */
    public long rejectedStaleWrites() {
        countOp(Op.READ);
        return body.getLongVolatile(REJECTED_STALE_OFFSET);
    }

    /** Writes refused because another PID held their term, by every process. */
    public long rejectedConflictingWrites() {
        countOp(Op.READ);
        return body.getLongVolatile(REJECTED_CONFLICT_OFFSET);
    }

    /** The fence and the write counts, as every process sees them. */
    @Override
    public Map<String, Object> describe() {
        long word = body.getLongVolatile(FENCE_WORD_OFFSET);
        return fields(
                "highestTerm", FencedLedgerDescriptor.highestTerm(word),
                "holderPid", FencedLedgerDescriptor.holderPid(word),
                "acceptedWrites", body.getLongVolatile(ACCEPTED_OFFSET),
                "rejectedStaleWrites", body.getLongVolatile(REJECTED_STALE_OFFSET),
                "rejectedConflictingWrites", body.getLongVolatile(REJECTED_CONFLICT_OFFSET));
    }
}
