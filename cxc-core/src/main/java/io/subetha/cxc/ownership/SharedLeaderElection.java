package io.subetha.cxc.ownership;

import static io.subetha.cxc.ownership.LeaderElectionDescriptor.*;

import io.subetha.cxc.internal.EpochPacer;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Cross-process leader election in a memory-mapped file: lowest live PID wins, heartbeat-driven
 * failover, no quorum, no broker. Any process that maps the file can claim; every process agrees on
 * the leader because every decision is one compare-and-set on shared memory. Layout: {@link
 * LeaderElectionDescriptor}.
 *
 * <p>A claim succeeds when there is no leader, when the caller's PID is lower than the leader's, or
 * when the leader's heartbeat is more than {@code graceEpochs} behind the global epoch. Claiming
 * while already leader is an idempotent success and the fast path: one volatile read, one compare
 * and an op count. Each handover raises the election term; the leader PID and the term change in
 * one CAS, so the term is a <b>fencing token</b>: hand it to downstream writes, which reject any
 * term lower than the highest they have seen.
 *
 * <p>Beyond the basic rules:
 *
 * <ul>
 *   <li>{@link #claimIfLeaderDead} takes over at once from a leader whose process is gone, a
 *       zombie, or replaced by a new process reusing its PID (told apart by start time), instead of
 *       waiting out the grace window. The check only ever speeds up declaring a leader dead; the
 *       heartbeat stays the authority.
 *   <li>{@link #tickEpochIfDue} lets every participant advance the epoch, at most once per interval
 *       in total, so the epoch does not freeze when the leader dies.
 *   <li>A file from another PID namespace is refused on open (see {@link
 *       io.subetha.cxc.CxcPidNamespaceException}).
 * </ul>
 *
 * <p>Thread-safe; one instance may serve every thread of a process.
 */
public final class SharedLeaderElection extends MappedPrimitive {

    /** The reserved "no leader" PID. */
    public static final long NO_LEADER = 0;

    /** Epochs a leader's heartbeat may lag before any participant may take over. */
    public static final long DEFAULT_GRACE_EPOCHS = 3;

    public static final int OP_TRY_CLAIM = 1;
    public static final int OP_BEAT = 2;
    public static final int OP_TICK_EPOCH = 3;
    public static final int OP_STEP_DOWN = 4;
    public static final int OP_READ = 5;
    public static final int OP_LIVENESS_CHECK = 6;

    /** The ops an election counts, exported under these names. */
    public enum Op implements OpKind {
        TRY_CLAIM,
        BEAT,
        TICK_EPOCH,
        STEP_DOWN,
        READ,
        LIVENESS_CHECK
    }

    /** An election's creation settings: it has none (yet). */
    public record Settings() {}

    public static final PrimitiveType<SharedLeaderElection, Settings> TYPE =
            PrimitiveType.<SharedLeaderElection, Settings>define(
                            PrimitiveKinds.LEADER_ELECTION, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .fixedBody(BODY_LENGTH)
                    .defaults(new Settings())
                    .wrap((file, options) -> new SharedLeaderElection(file, options.readOnly()));

    /**
     * The fast paths read the leader word straight from the body's buffer: one dependent load fewer
     * than through {@link AtomicBuffer}, which is a measurable share of a 1 ns read.
     */
    private static final VarHandle LONG =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final ByteBuffer bodyBytes;
    private final EpochPacer pacer;

    /** How long an opener waits for a seat holding its own PID to show whose it is. */
    private static final long IDENTITY_WAIT_NANOS = 100_000_000;

    private SharedLeaderElection(MappedFile file, boolean readOnly) {
        super(file, TYPE);
        if (!readOnly) {
            releaseSeatOfTheDeadHolderOfOurPid();
        }
        this.bodyBytes = body.byteBuffer();
        this.pacer = new EpochPacer(body, LAST_TICK_NANOS_OFFSET);
    }

    /** Creates a new election file with owner-only permissions; fails if it exists. */
    public static SharedLeaderElection create(Path path) {
        return create(path, CxcFileOptions.defaults());
    }

    public static SharedLeaderElection create(Path path, CxcFileOptions options) {
        return TYPE.create(path, TYPE.defaults(), options);
    }

    /** Opens and validates an existing election file; fails if it does not exist. */
    public static SharedLeaderElection open(Path path) {
        return open(path, CxcFileOptions.defaults());
    }

    public static SharedLeaderElection open(Path path, CxcFileOptions options) {
        return TYPE.open(path, TYPE.defaults(), options);
    }

    /** Opens the file, or creates it if absent; race-safe across processes. */
    public static SharedLeaderElection openOrCreate(Path path) {
        return openOrCreate(path, CxcFileOptions.defaults());
    }

    public static SharedLeaderElection openOrCreate(Path path, CxcFileOptions options) {
        return TYPE.openOrCreate(path, TYPE.defaults(), options);
    }

    // --------------------------------------------------------------------------- election

    /**
     * Claims leadership for {@code myPid} if there is no leader, {@code myPid} is lower than the
     * leader's, or the leader's heartbeat is more than {@code graceEpochs} behind the global epoch.
     *
     * @return true if {@code myPid} leads after the call (including when it already led)
     * @throws IllegalArgumentException for PID 0, a PID outside 1..2^32-1, or a negative grace
     */
    public boolean tryClaimLeadership(long myPid, long graceEpochs) {
        // The fast path first, counted after its read (the count then overlaps the read): a
        // leader PID read from the file is u32, so a match already puts myPid in range but for 0
        // (no leader), and a constant grace folds away. Anything else is checked below.
        if (leaderPid((long) LONG.getVolatile(bodyBytes, LEADER_WORD_OFFSET)) == myPid
                && myPid != NO_LEADER
                && graceEpochs >= 0) {
            counters.increment(OP_TRY_CLAIM);
            return true; // already leader
        }
        if (myPid <= 0 || myPid > Pids.MAX_PID || graceEpochs < 0) {
            throw invalid(myPid, graceEpochs);
        }
        counters.increment(OP_TRY_CLAIM);
        return claimSlow(myPid, graceEpochs);
    }

    /** {@link #tryClaimLeadership(long, long)} with {@link #DEFAULT_GRACE_EPOCHS}. */
    public boolean tryClaimLeadership(long myPid) {
        return tryClaimLeadership(myPid, DEFAULT_GRACE_EPOCHS);
    }

    private boolean claimSlow(long myPid, long graceEpochs) {
        while (true) {
            long word = body.getLongVolatile(LEADER_WORD_OFFSET);
            long leader = leaderPid(word);
            if (leader == myPid) {
                // Ours, or a dead process's that had our PID: that one's term is not ours to
                // continue (its fencing token would be accepted twice), so take the next.
                if (ownedByThisProcessOrUnknown(word, myPid) || takeOver(word, myPid)) {
                    return true;
                }
                continue;
            }
            long epoch = body.getLongVolatile(GLOBAL_EPOCH_OFFSET);
            boolean stale = epoch - OwnerRecord.heartbeat(body, LEADER_RECORD_OFFSET) > graceEpochs;
            if (leader != NO_LEADER && myPid > leader && !stale) {
                return false;
            }
            if (takeOver(word, myPid)) {
                return true;
            }
            // Lost the CAS to another claimant or a step-down: decide again on the new state.
        }
    }

    /**
     * Replaces exactly the leader word {@code expected} with {@code myPid} under the next term,
     * through {@link OwnerRecord#claim}: nothing is written unless the CAS wins.
     */
    private boolean takeOver(long expected, long myPid) {
        long mine = packLeaderWord(myPid, (term(expected) + 1) & 0xFFFF_FFFFL);
        return OwnerRecord.claim(
                body,
                LEADER_RECORD_OFFSET,
                expected,
                mine,
                OwnerRecord.startTimeOf(myPid),
                this::globalEpochRaw);
    }

    /**
     * Whether {@code word}, which holds {@code pid}, is that process's own: its identity names the
     * process's start time, or is not published yet (a claim of this process in flight).
     */
    private boolean ownedByThisProcessOrUnknown(long word, long pid) {
        return OwnerRecord.startTime(body, LEADER_RECORD_OFFSET, word)
                        == ProcessProbe.UNKNOWN_START_TIME
                || ownedByThisProcess(word, pid);
    }

    private long globalEpochRaw() {
        return body.getLongVolatile(GLOBAL_EPOCH_OFFSET);
    }

    /**
     * Takes over at once if the leader's process is dead: gone, a zombie, or a new process that
     * reused its PID. Off the fast path (it reads {@code /proc}, about 10 µs): call it on the
     * ticker's cadence, not per request. If there is no leader, claims as {@link
     * #tryClaimLeadership} would.
     *
     * @return true if {@code myPid} leads after the call
     */
    public boolean claimIfLeaderDead(long myPid) {
        return claimIfLeaderDead(myPid, DEFAULT_GRACE_EPOCHS);
    }

    /**
     * {@link #claimIfLeaderDead(long)} with the caller's grace: when there is no leader (or the
     * seat holds the caller's PID) it claims as {@link #tryClaimLeadership(long, long)} would with
     * {@code graceEpochs}, so a rival that claims meanwhile is judged stale or not by the caller's
     * own rule.
     *
     * @return true if {@code myPid} leads after the call
     */
    public boolean claimIfLeaderDead(long myPid, long graceEpochs) {
        Pids.requireValid(myPid);
        if (graceEpochs < 0) {
            throw invalid(myPid, graceEpochs);
        }
        counters.increment(OP_LIVENESS_CHECK);
        long word = body.getLongVolatile(LEADER_WORD_OFFSET);
        long leader = leaderPid(word);
        if (leader == myPid || leader == NO_LEADER) {
            return claimSlow(myPid, graceEpochs);
        }
        if (statusOf(word) != ProcessStatus.DEAD) {
            return false;
        }
        // CAS from exactly the dead leader's word: if anyone else changed it first, they won.
        return takeOver(word, myPid);
    }

    /** Whether the current leader's process is alive, per {@link ProcessProbe}. */
    public ProcessStatus leaderStatus() {
        counters.increment(OP_LIVENESS_CHECK);
        long word = body.getLongVolatile(LEADER_WORD_OFFSET);
        return leaderPid(word) == NO_LEADER ? ProcessStatus.DEAD : statusOf(word);
    }

    private ProcessStatus statusOf(long word) {
        return OwnerRecord.status(body, LEADER_RECORD_OFFSET, word);
    }

    /**
     * Refreshes the leader's heartbeat to the current global epoch, if {@code myPid} leads.
     *
     * @return false if {@code myPid} is not the leader (it lost leadership)
     */
    public boolean beatAsLeader(long myPid) {
        Pids.requireValid(myPid);
        counters.increment(OP_BEAT);
        if (leaderPid(body.getLongVolatile(LEADER_WORD_OFFSET)) != myPid) {
            return false;
        }
        OwnerRecord.beat(body, LEADER_RECORD_OFFSET, globalEpochRaw());
        return true;
    }

    /** Advances the global epoch by one. @return the new epoch */
    public long tickEpoch() {
        counters.increment(OP_TICK_EPOCH);
        return body.getAndAddLong(GLOBAL_EPOCH_OFFSET, 1) + 1;
    }

    /**
     * Advances the global epoch if no participant has done so within {@code interval}. Every
     * participant may call this on its own schedule; together they advance the epoch about once per
     * interval, whatever their number, and a dead leader cannot freeze it.
     *
     * <p>See {@link EpochPacer} for the clock it relies on.
     *
     * @return true if this call advanced the epoch
     */
    public boolean tickEpochIfDue(Duration interval) {
        if (!pacer.claimTick(interval)) {
            return false;
        }
        tickEpoch();
        return true;
    }

    /**
     * Releases leadership so the next claim wins at once, without waiting for the grace window. The
     * term is kept; the next claim raises it.
     *
     * @return false if {@code myPid} was not the leader
     */
    public boolean stepDown(long myPid) {
        Pids.requireValid(myPid);
        counters.increment(OP_STEP_DOWN);
        while (true) {
            long word = body.getLongVolatile(LEADER_WORD_OFFSET);
            if (leaderPid(word) != myPid) {
                return false;
            }
            if (body.compareAndSetLong(
                    LEADER_WORD_OFFSET, word, packLeaderWord(NO_LEADER, term(word)))) {
                return true;
            }
        }
    }

    // ------------------------------------------------------------------------------- reads

    /**
     * Whether {@code pid} is the leader now: one volatile read and a compare (the first time after
     * a handover, also a check that the leader word is this very process's, not a dead process's
     * that had the same PID).
     */
    public boolean isLeader(long pid) {
        return termIfLeader(pid) >= 0;
    }

    /**
     * The term {@code pid} leads under, read in the same load as the leadership check, or -1 if it
     * does not lead: what a caller binds as its fencing token.
     */
    public long termIfLeader(long pid) {
        // Read, then count: the count's loads and store then overlap the read (measured: the
        // counted fast path 0.3 ns faster than counting first).
        long word = (long) LONG.getVolatile(bodyBytes, LEADER_WORD_OFFSET);
        long term = leaderPid(word) == pid && pid != NO_LEADER ? term(word) : -1;
        counters.increment(OP_READ);
        return term;
    }

    /** The leader's PID, empty when there is no leader. */
    public OptionalLong currentLeader() {
        counters.increment(OP_READ);
        long leader = leaderPid(body.getLongVolatile(LEADER_WORD_OFFSET));
        return leader == NO_LEADER ? OptionalLong.empty() : OptionalLong.of(leader);
    }

    /** The election term: rises by one on each handover; the fencing token. */
    public long electionTerm() {
        counters.increment(OP_READ);
        return term(body.getLongVolatile(LEADER_WORD_OFFSET));
    }

    /**
     * The leader PID and term read together, as one value: {@code leaderPid(word)}, {@code
     * term(word)} in {@link LeaderElectionDescriptor}. A leader that reads its own PID here holds
     * exactly this term.
     */
    public long leaderWord() {
        long word = (long) LONG.getVolatile(bodyBytes, LEADER_WORD_OFFSET);
        counters.increment(OP_READ); // after the read, as in isLeader
        return word;
    }

    public long globalEpoch() {
        counters.increment(OP_READ);
        return body.getLongVolatile(GLOBAL_EPOCH_OFFSET);
    }

    /** The global epoch at the leader's last beat. */
    public long leaderHeartbeat() {
        counters.increment(OP_READ);
        return body.getLongVolatile(LEADER_HEARTBEAT_OFFSET);
    }

    /** Leader, term, heartbeat, epoch and start time in one call. */
    public LeaderSnapshot snapshot() {
        counters.increment(OP_READ);
        long word = body.getLongVolatile(LEADER_WORD_OFFSET);
        long heartbeat = body.getLongVolatile(LEADER_HEARTBEAT_OFFSET);
        long epoch = body.getLongVolatile(GLOBAL_EPOCH_OFFSET);
        return new LeaderSnapshot(
                leaderPid(word),
                term(word),
                heartbeat,
                epoch,
                OwnerRecord.startTime(body, LEADER_RECORD_OFFSET, word));
    }

    // ----------------------------------------------------------------------------- lifecycle

    /**
     * Leader, term, heartbeat, epoch, heartbeat lag and the leader's recorded start time, read from
     * shared memory without probing the leader's process.
     */
    @Override
    public Map<String, Object> describe() {
        long word = body.getLongVolatile(LEADER_WORD_OFFSET);
        long heartbeat = OwnerRecord.heartbeat(body, LEADER_RECORD_OFFSET);
        long epoch = globalEpochRaw();
        return fields(
                "leaderPid", leaderPid(word),
                "term", term(word),
                "globalEpoch", epoch,
                "leaderHeartbeat", heartbeat,
                "heartbeatLagEpochs", Math.max(0, epoch - heartbeat),
                "leaderStartTime", OwnerRecord.startTime(body, LEADER_RECORD_OFFSET, word));
    }

    /** Closing marks this handle closed; leadership is not released (call {@link #stepDown}). */
    @Override
    public void close() {
        super.close();
    }

    /**
     * A PID names one live process at a time, and a process's PID can only have been another's
     * before this process existed: so a seat that holds this process's PID but not its identity
     * belongs to a dead process, whose term this one must not continue (its fencing token would be
     * accepted twice). Released here, once per handle, with one CAS from exactly that word; the
     * fast paths can then trust a PID match. A seat this process's other handle is taking shows its
     * identity within microseconds; a dead one's never will.
     */
    private void releaseSeatOfTheDeadHolderOfOurPid() {
        long me = Pids.current();
        long word = body.getLongVolatile(LEADER_WORD_OFFSET);
        long deadline = System.nanoTime() + IDENTITY_WAIT_NANOS;
        while (leaderPid(word) == me && !ownedByThisProcess(word, me)) {
            if (OwnerRecord.startTime(body, LEADER_RECORD_OFFSET, word)
                            != ProcessProbe.UNKNOWN_START_TIME
                    || System.nanoTime() - deadline >= 0) {
                OwnerRecord.release(body, LEADER_RECORD_OFFSET, word);
                return;
            }
            Thread.onSpinWait();
            word = body.getLongVolatile(LEADER_WORD_OFFSET);
        }
    }

    private boolean ownedByThisProcess(long word, long pid) {
        return OwnerRecord.isOwnedBy(
                body, LEADER_RECORD_OFFSET, word, pid, OwnerRecord.startTimeOf(pid));
    }

    private static IllegalArgumentException invalid(long pid, long graceEpochs) {
        if (graceEpochs < 0) {
            return new IllegalArgumentException(
                    "graceEpochs must be 0 or more, got " + graceEpochs);
        }
        try {
            Pids.requireValid(pid);
        } catch (IllegalArgumentException e) {
            return e;
        }
        return new IllegalArgumentException("invalid PID " + pid);
    }
}
