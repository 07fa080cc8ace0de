package io.subetha.cxc.election;

import static io.subetha.cxc.election.LeaderElectionDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.internal.EpochPacer;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.observe.StateMaps;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

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
 *   <li>A new file's term starts at the seconds since boot, not 0 ({@link #bootTermSeed()}), and
 *       {@link #raiseTermFloor} lifts it above a term seen on a file it replaces: a downstream
 *       fence that saw term 40 on a file someone deleted does not see the new file's term 1.
 * </ul>
 *
 * <p><b>A file replaced under a running process.</b> A handle maps an inode, not a path: if the
 * file is deleted or replaced (an operator, a tmp cleaner, {@code RemoveIPC}), the handle keeps
 * working on the orphaned inode while newcomers elect on the new file. {@link ElectionParticipant}
 * checks the path every tick and then calls {@link #retire}: the orphan's leader word, if it names
 * this PID or no one, is set by CAS to {@link LeaderElectionDescriptor#RETIRED_WORD}, which no
 * claim ever replaces, so this handle's fast path (and every other process still on the orphan)
 * answers "not leader" with no extra check, and every call that does not find this PID leading
 * forwards to the handle now open on the path. A file found truncated under its mapping (reads past
 * its end fault) is retired without touching the mapping: the fast path's buffer is swapped for a
 * heap copy holding the retired word.
 *
 * <p>Thread-safe; one instance may serve every thread of a process.
 */
public final class SharedLeaderElection extends MappedPrimitive {

    /** The reserved "no leader" PID. */
    public static final long NO_LEADER = 0;

    /** Epochs a leader's heartbeat may lag before any participant may take over. */
    public static final long DEFAULT_GRACE_EPOCHS = 3;

    /** The ops an election counts, exported under these names. */
    public enum Op implements OpKind {
        TRY_CLAIM(1),
        BEAT(2),
        TICK_EPOCH(3),
        STEP_DOWN(4),
        READ(5),
        LIVENESS_CHECK(6);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /**
     * The settings every participant of one election runs at, written into the file when it is
     * created: the epoch's pace and how many epochs a leader's (or a candidate's) heartbeat may
     * lag. {@link ElectionParticipant} reads them from the file ({@link #settings()}) whatever it
     * was configured with, and warns naming both when they differ.
     *
     * @param tickInterval how often participants tick, and so the epoch's pace: 1 ms to 1 hour
     * @param graceEpochs epochs a heartbeat may lag before its holder is replaced: 0 to 1,000,000
     */
    public record Settings(Duration tickInterval, long graceEpochs) {

        /** 50 ms, 3 epochs: the starter's defaults. */
        public static final Settings DEFAULTS =
                new Settings(Duration.ofMillis(50), DEFAULT_GRACE_EPOCHS);

        public static final long MAX_GRACE_EPOCHS = 1_000_000;

        public Settings {
            if (tickInterval == null
                    || tickInterval.compareTo(Duration.ofMillis(1)) < 0
                    || tickInterval.compareTo(Duration.ofHours(1)) > 0) {
                throw new CxcSettingsException(
                        "tickInterval", "tickInterval must be 1 ms..1 h, got " + tickInterval);
            }
            if (graceEpochs < 0 || graceEpochs > MAX_GRACE_EPOCHS) {
                throw new CxcSettingsException(
                        "graceEpochs",
                        "graceEpochs must be 0.." + MAX_GRACE_EPOCHS + ", got " + graceEpochs);
            }
        }
    }

    private static final System.Logger logger =
            System.getLogger(SharedLeaderElection.class.getName());

    public static final PrimitiveType<SharedLeaderElection, Settings> TYPE =
            PrimitiveType.<SharedLeaderElection, Settings>define(
                            PrimitiveKinds.LEADER_ELECTION, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .fixedBody(BODY_LENGTH)
                    .defaults(Settings.DEFAULTS)
                    .initialiser(SharedLeaderElection::initialise)
                    .bodyCheck(SharedLeaderElection::bodyProblem)
                    .construct(
                            (file, settings, options) ->
                                    new SharedLeaderElection(file, options.readOnly()));

    private static void initialise(AtomicBuffer body, Settings settings) {
        body.setLongPlain(TICK_INTERVAL_OFFSET, settings.tickInterval().toNanos());
        body.setIntPlain(GRACE_OFFSET, (int) settings.graceEpochs());
        body.setIntPlain(CANDIDATE_CAPACITY_OFFSET, CANDIDATE_CAPACITY);
        body.setLongPlain(LEADER_WORD_OFFSET, packLeaderWord(NO_LEADER, bootTermSeed()));
        long incarnation;
        do {
            incarnation = new java.security.SecureRandom().nextLong();
        } while (incarnation == 0);
        body.setLongPlain(INCARNATION_OFFSET, incarnation);
    }

    private static @Nullable String bodyProblem(AtomicBuffer body) {
        long tick = body.getLongAcquire(TICK_INTERVAL_OFFSET);
        long grace = Integer.toUnsignedLong(body.getIntAcquire(GRACE_OFFSET));
        int candidates = body.getIntAcquire(CANDIDATE_CAPACITY_OFFSET);
        if (tick < Duration.ofMillis(1).toNanos() || tick > Duration.ofHours(1).toNanos()) {
            return "stored tick interval " + tick + " ns, expected 1 ms..1 h";
        }
        if (grace > Settings.MAX_GRACE_EPOCHS) {
            return "stored grace " + grace + " epochs, expected 0.." + Settings.MAX_GRACE_EPOCHS;
        }
        if (candidates != CANDIDATE_CAPACITY) {
            return "stored candidate capacity " + candidates + ", expected " + CANDIDATE_CAPACITY;
        }
        return null;
    }

    /**
     * The fast paths read the leader word straight from the body's buffer: one dependent load fewer
     * than through {@link AtomicBuffer}, which is a measurable share of a 1 ns read.
     */
    private static final VarHandle LONG =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * The body's bytes, read by the fast paths. Not final: a truncated file's is swapped for a heap
     * buffer holding {@link LeaderElectionDescriptor#RETIRED_WORD}, so the fast paths answer "not
     * leader" instead of faulting, with no extra check (a field load they do anyway).
     */
    private ByteBuffer bodyBytes;

    private final EpochPacer pacer;
    private final Settings settings;
    private final long incarnation;

    /** The handle open on the file now at the path, once this one's file was replaced. */
    private volatile @Nullable SharedLeaderElection successor;

    /** Set once this handle's file is known not to be the election at its path any more. */
    private volatile boolean retired;

    /** Set once this handle's mapping is known to fault (the file was truncated under it). */
    private volatile boolean damaged;

    /** How long an opener waits for a seat holding its own PID to show whose it is. */
    private static final long IDENTITY_WAIT_NANOS = 100_000_000;

    private SharedLeaderElection(MappedFile file, boolean readOnly) {
        super(file, TYPE);
        if (!readOnly) {
            reviveIfRetired();
            releaseSeatOfTheDeadHolderOfOurPid();
        }
        this.bodyBytes = body.byteBuffer();
        this.pacer = new EpochPacer(body, LAST_TICK_NANOS_OFFSET);
        this.settings =
                new Settings(
                        Duration.ofNanos(body.getLongAcquire(TICK_INTERVAL_OFFSET)),
                        Integer.toUnsignedLong(body.getIntAcquire(GRACE_OFFSET)));
        this.incarnation = body.getLongAcquire(INCARNATION_OFFSET);
    }

    /**
     * The term a new file starts from: the whole seconds since boot ({@code CLOCK_MONOTONIC}, which
     * is what {@link System#nanoTime()} reads on Linux and only grows on a host until it reboots),
     * so terms keep rising across a file recreated under running processes, as long as handovers
     * averaged under one a second. Participants that saw the old file also carry its term over
     * ({@link #raiseTermFloor}). Across a reboot terms may restart lower: see the README.
     */
    static long bootTermSeed() {
        long seconds = System.nanoTime() / 1_000_000_000L;
        return seconds <= 0 ? 0 : Math.min(seconds, 0x7FFF_FFFFL);
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

    /**
     * Opens the file, or creates it with {@code settings}; race-safe across processes. An existing
     * file keeps the settings it was created with: see {@link #settings()}.
     */
    public static SharedLeaderElection openOrCreate(
            Path path, Settings settings, CxcFileOptions options) {
        return TYPE.openOrCreate(path, settings, options);
    }

    /** Creates a new election file with {@code settings}; fails if it exists. */
    public static SharedLeaderElection create(
            Path path, Settings settings, CxcFileOptions options) {
        return TYPE.create(path, settings, options);
    }

    /** The tick interval and grace stored in the file when it was created. */
    public Settings settings() {
        return settings;
    }

    /**
     * The random value written into this file when it was created: another file at the same path
     * has another (see {@link LeaderElectionDescriptor}).
     */
    public long incarnation() {
        return incarnation;
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
            counters.increment(Op.TRY_CLAIM);
            return true; // already leader
        }
        if (myPid <= 0 || myPid > Pids.MAX_PID || graceEpochs < 0) {
            throw invalid(myPid, graceEpochs);
        }
        counters.increment(Op.TRY_CLAIM);
        return claimSlow(myPid, graceEpochs, true);
    }

    /**
     * {@link #tryClaimLeadership(long, long)}, but with {@link Preemption#NONE} a lower {@code
     * myPid} does not take the seat from a leader whose heartbeat is fresh.
     */
    public boolean tryClaimLeadership(long myPid, long graceEpochs, Preemption preemption) {
        if (preemption == Preemption.LOWEST_PID) {
            return tryClaimLeadership(myPid, graceEpochs);
        }
        if (leaderPid((long) LONG.getVolatile(bodyBytes, LEADER_WORD_OFFSET)) == myPid
                && myPid != NO_LEADER
                && graceEpochs >= 0) {
            counters.increment(Op.TRY_CLAIM);
            return true;
        }
        if (myPid <= 0 || myPid > Pids.MAX_PID || graceEpochs < 0) {
            throw invalid(myPid, graceEpochs);
        }
        counters.increment(Op.TRY_CLAIM);
        return claimSlow(myPid, graceEpochs, false);
    }

    /** {@link #tryClaimLeadership(long, long)} with {@link #DEFAULT_GRACE_EPOCHS}. */
    public boolean tryClaimLeadership(long myPid) {
        return tryClaimLeadership(myPid, DEFAULT_GRACE_EPOCHS);
    }

    private boolean claimSlow(long myPid, long graceEpochs, boolean preempt) {
        if (retired) { // counted already: the successor counts into these same counters
            SharedLeaderElection next = successor;
            return next != null
                    && (next.termIfLeaderUncounted(myPid) >= 0
                            || next.claimSlow(myPid, graceEpochs, preempt));
        }
        while (true) {
            long word = body.getLongVolatile(LEADER_WORD_OFFSET);
            if (word == RETIRED_WORD) {
                return false; // a file retired under running processes: nobody leads here again
            }
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
            if (leader != NO_LEADER && !stale && (myPid > leader || !preempt)) {
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
        SharedLeaderElection next = successor;
        if (retired) {
            return next != null && next.claimIfLeaderDead(myPid, graceEpochs);
        }
        counters.increment(Op.LIVENESS_CHECK);
        long word = body.getLongVolatile(LEADER_WORD_OFFSET);
        long leader = leaderPid(word);
        if (leader == myPid || leader == NO_LEADER) {
            return claimSlow(myPid, graceEpochs, true);
        }
        if (statusOf(word) != ProcessStatus.DEAD) {
            return false;
        }
        // CAS from exactly the dead leader's word: if anyone else changed it first, they won.
        return takeOver(word, myPid);
    }

    /** Whether the current leader's process is alive, per {@link ProcessProbe}. */
    public ProcessStatus leaderStatus() {
        if (retired) {
            return live().leaderStatus();
        }
        counters.increment(Op.LIVENESS_CHECK);
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
        if (retired) {
            SharedLeaderElection next = successor;
            return next != null && next.beatAsLeader(myPid);
        }
        counters.increment(Op.BEAT);
        if (leaderPid(body.getLongVolatile(LEADER_WORD_OFFSET)) != myPid) {
            return false;
        }
        OwnerRecord.beat(body, LEADER_RECORD_OFFSET, globalEpochRaw());
        return true;
    }

    /** Advances the global epoch by one. @return the new epoch */
    public long tickEpoch() {
        if (retired) {
            return live().tickEpoch();
        }
        counters.increment(Op.TICK_EPOCH);
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
        if (retired) {
            return live().tickEpochIfDue(interval);
        }
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
        if (retired) {
            SharedLeaderElection next = successor;
            return next != null && next.stepDown(myPid);
        }
        counters.increment(Op.STEP_DOWN);
        while (true) {
            long word = body.getLongVolatile(LEADER_WORD_OFFSET);
            if (leaderPid(word) != myPid) {
                return false;
            }
            Interleaving.at(Point.STEP_DOWN_JUDGED);
            if (body.compareAndSetLong(
                    LEADER_WORD_OFFSET, word, packLeaderWord(NO_LEADER, term(word)))) {
                return true;
            }
        }
    }

    // -------------------------------------------------------------------------- candidates

    /**
     * Takes (or finds again) a candidate seat for {@code myPid}: its own if it still holds one,
     * else a free one, or one whose holder is stale by {@code graceEpochs} or dead. Nothing is
     * written unless the seat's CAS wins ({@link OwnerRecord#claim}); a crash after it leaves a
     * seat that goes stale and is taken over.
     *
     * @return the seat's index, or -1 if every seat is held by a live candidate
     */
    public int registerCandidate(long myPid, long graceEpochs) {
        Pids.requireValid(myPid);
        if (retired) {
            return live().registerCandidate(myPid, graceEpochs);
        }
        long startTime = OwnerRecord.startTimeOf(myPid);
        for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
            int record = candidateRecordOffset(i);
            long word = OwnerRecord.ownerWord(body, record);
            if (OwnerRecord.isOwnedBy(body, record, word, myPid, startTime)) {
                return i;
            }
        }
        long epoch = globalEpochRaw();
        for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
            int record = candidateRecordOffset(i);
            long word = OwnerRecord.ownerWord(body, record);
            OwnerStatus status = OwnerRecord.judge(body, record, word, epoch, graceEpochs);
            if (status != OwnerStatus.LIVE
                    && OwnerRecord.claim(
                            body,
                            record,
                            word,
                            OwnerRecord.ownerWord(myPid, OwnerRecord.nextGeneration(word)),
                            startTime,
                            this::globalEpochRaw)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Beats candidate seat {@code index} with the current epoch, if {@code myPid} still holds it.
     *
     * @return false if the seat was taken over (register again)
     */
    public boolean beatCandidate(int index, long myPid) {
        if (index < 0 || index >= CANDIDATE_CAPACITY) {
            throw new IllegalArgumentException(
                    "candidate seat must be 0.." + (CANDIDATE_CAPACITY - 1) + ", got " + index);
        }
        if (retired) {
            return live().beatCandidate(index, myPid);
        }
        int record = candidateRecordOffset(index);
        if (OwnerRecord.pid(OwnerRecord.ownerWord(body, record)) != myPid) {
            return false;
        }
        OwnerRecord.beat(body, record, globalEpochRaw());
        return true;
    }

    /** Frees candidate seat {@code index} if {@code myPid} holds it (on leaving the election). */
    public void leaveCandidates(int index, long myPid) {
        if (index < 0 || index >= CANDIDATE_CAPACITY || retired) {
            return;
        }
        int record = candidateRecordOffset(index);
        long word = OwnerRecord.ownerWord(body, record);
        if (OwnerRecord.pid(word) == myPid) {
            OwnerRecord.release(body, record, word);
        }
    }

    /**
     * The lowest PID below {@code below}, other than {@code except}, holding a candidate seat whose
     * beat lags by at most {@code graceEpochs} and whose process is not provably dead; {@link
     * #NO_LEADER} if none. Probes {@code /proc} only for the PIDs it would return.
     */
    public long lowestLiveCandidateBelow(long below, long except, long graceEpochs) {
        if (retired) {
            return live().lowestLiveCandidateBelow(below, except, graceEpochs);
        }
        long epoch = globalEpochRaw();
        long[] words = new long[CANDIDATE_CAPACITY];
        for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
            int record = candidateRecordOffset(i);
            long word = OwnerRecord.ownerWord(body, record);
            long pid = OwnerRecord.pid(word);
            boolean fresh = epoch - OwnerRecord.heartbeat(body, record) <= graceEpochs;
            words[i] = pid != NO_LEADER && pid < below && pid != except && fresh ? word : 0;
        }
        while (true) {
            int best = -1;
            for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
                if (words[i] != 0
                        && (best < 0 || OwnerRecord.pid(words[i]) < OwnerRecord.pid(words[best]))) {
                    best = i;
                }
            }
            if (best < 0) {
                return NO_LEADER;
            }
            if (!OwnerRecord.isDead(body, candidateRecordOffset(best), words[best])) {
                return OwnerRecord.pid(words[best]);
            }
            words[best] = 0;
        }
    }

    /** The PIDs holding a candidate seat, fresh or not, lowest first: for display. */
    public long[] candidates() {
        if (retired) {
            return live().candidates();
        }
        long[] pids = new long[CANDIDATE_CAPACITY];
        int n = 0;
        for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
            long pid = OwnerRecord.pid(OwnerRecord.ownerWord(body, candidateRecordOffset(i)));
            if (pid != NO_LEADER) {
                pids[n++] = pid;
            }
        }
        long[] held = java.util.Arrays.copyOf(pids, n);
        java.util.Arrays.sort(held);
        return held;
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
        counters.increment(Op.READ);
        return term >= 0 ? term : termIfLeaderElsewhere(pid);
    }

    /** Off the fast path: a retired handle asks the one that replaced it (counted already). */
    private long termIfLeaderElsewhere(long pid) {
        SharedLeaderElection next = successor;
        return next == null ? -1 : next.termIfLeaderUncounted(pid);
    }

    private long termIfLeaderUncounted(long pid) {
        long word = (long) LONG.getVolatile(bodyBytes, LEADER_WORD_OFFSET);
        long term = leaderPid(word) == pid && pid != NO_LEADER ? term(word) : -1;
        return term >= 0 ? term : termIfLeaderElsewhere(pid);
    }

    /** The leader's PID, empty when there is no leader. */
    public OptionalLong currentLeader() {
        if (retired) {
            return live().currentLeader();
        }
        counters.increment(Op.READ);
        long leader = leaderPid(body.getLongVolatile(LEADER_WORD_OFFSET));
        return leader == NO_LEADER ? OptionalLong.empty() : OptionalLong.of(leader);
    }

    /** The election term: rises by one on each handover; the fencing token. */
    public long electionTerm() {
        if (retired) {
            return live().electionTerm();
        }
        counters.increment(Op.READ);
        return term(body.getLongVolatile(LEADER_WORD_OFFSET));
    }

    /**
     * The leader PID and term read together, as one value: {@code leaderPid(word)}, {@code
     * term(word)} in {@link LeaderElectionDescriptor}. A leader that reads its own PID here holds
     * exactly this term.
     */
    public long leaderWord() {
        if (retired) {
            return live().leaderWord();
        }
        long word = (long) LONG.getVolatile(bodyBytes, LEADER_WORD_OFFSET);
        counters.increment(Op.READ); // after the read, as in isLeader
        return word;
    }

    public long globalEpoch() {
        if (retired) {
            return live().globalEpoch();
        }
        counters.increment(Op.READ);
        return body.getLongVolatile(GLOBAL_EPOCH_OFFSET);
    }

    /** The global epoch at the leader's last beat. */
    public long leaderHeartbeat() {
        if (retired) {
            return live().leaderHeartbeat();
        }
        counters.increment(Op.READ);
        return body.getLongVolatile(LEADER_HEARTBEAT_OFFSET);
    }

    /** Leader, term, heartbeat, epoch and start time in one call. */
    public LeaderSnapshot snapshot() {
        if (retired) {
            return live().snapshot();
        }
        counters.increment(Op.READ);
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

    // ------------------------------------------------------------------- replaced or damaged

    /**
     * Lifts the term to at least {@code floor}: if the leader word's term is lower, replaces it by
     * CAS with no leader at term {@code floor}, so the next claim takes {@code floor + 1}. A leader
     * that held the lower term is deposed (a downstream fence that saw {@code floor} would refuse
     * its writes anyway) and claims again on its next tick under a higher term. Called by a
     * participant re-joining a file that replaced one whose terms it saw.
     *
     * @return whether the term was raised
     */
    public boolean raiseTermFloor(long floor) {
        if (floor < 0 || floor > 0xFFFF_FFFEL) {
            throw new IllegalArgumentException(
                    "floor must be 0.." + 0xFFFF_FFFEL + ", got " + floor);
        }
        if (retired) {
            return live().raiseTermFloor(floor);
        }
        while (true) {
            long word = body.getLongVolatile(LEADER_WORD_OFFSET);
            if (word == RETIRED_WORD || term(word) >= floor) {
                return false;
            }
            if (body.compareAndSetLong(
                    LEADER_WORD_OFFSET, word, packLeaderWord(NO_LEADER, floor))) {
                return true;
            }
        }
    }

    /**
     * Whether this handle's file is known not to be the election at its path any more (deleted,
     * replaced or truncated under it): it then never answers "leader" itself, and forwards to the
     * handle that replaced it, if any.
     */
    public boolean isRetired() {
        return retired;
    }

    /** Whether this handle's file was found truncated under its mapping. */
    public boolean isDamaged() {
        return damaged;
    }

    /**
     * The handle serving the election now: this one, or the one open on the file now at the path
     * after this handle's file was replaced.
     *
     * @throws CxcFormatException if this handle was retired and nothing replaced it yet
     */
    public SharedLeaderElection active() {
        return live();
    }

    /**
     * Stops this handle from ever leading again: the orphaned mapping's leader word, if it names
     * {@code myPid} or no one, becomes {@link LeaderElectionDescriptor#RETIRED_WORD} (one CAS from
     * exactly the word read, so a rival still on the orphan who claims first keeps its claim until
     * its own participant notices). With {@code truncated}, the mapping is not touched (it would
     * fault): the fast paths' buffer is swapped for a heap copy holding the retired word.
     *
     * @return the term this PID led under in the orphan, or -1
     */
    long retire(long myPid, boolean truncated) {
        retired = true; // first: every call that misses from now on forwards or refuses
        if (truncated) {
            damaged = true;
            return retireDamaged();
        }
        try {
            while (true) {
                long word = body.getLongVolatile(LEADER_WORD_OFFSET);
                long leader = leaderPid(word);
                if (word == RETIRED_WORD || (leader != myPid && leader != NO_LEADER)) {
                    return -1;
                }
                // Before the CAS: a reviver must find the term the retired word hides. Only ever
                // raised, to a term that was issued, so a crash before the CAS leaves no harm.
                raiseRetiredTerm(term(word));
                if (body.compareAndSetLong(LEADER_WORD_OFFSET, word, RETIRED_WORD)) {
                    return leader == myPid ? term(word) : -1;
                }
            }
        } catch (InternalError fault) { // truncated after all: reads past its end fault
            damaged = true;
            return retireDamaged();
        }
    }

    private void raiseRetiredTerm(long term) {
        long seen = body.getLongVolatile(RETIRED_TERM_OFFSET);
        while (seen < term && !body.compareAndSetLong(RETIRED_TERM_OFFSET, seen, term)) {
            seen = body.getLongVolatile(RETIRED_TERM_OFFSET);
        }
    }

    /**
     * A retired file opened for writing is in use again: whoever opens a path means the file there,
     * and a participant that retired it may have raced a replacement (an open that mapped the new
     * file while it judged the old one) or the file was moved back. Left retired, it refused every
     * participant until someone deleted it (the 1,000-handover chaos run ended so once). Only if
     * the file at its path is this one (by incarnation). Revived by one CAS from exactly the
     * retired word to no leader above the term it replaced (or the boot seed, if higher); a
     * participant still on a replaced orphan notices on its next tick as ever.
     */
    private void reviveIfRetired() {
        if (body.getLongVolatile(LEADER_WORD_OFFSET) != RETIRED_WORD) {
            return;
        }
        // Only a file still at its path: an open that mapped a file just before it was replaced
        // (slow, on a loaded host) must leave the orphan retired, or it claims there a term the
        // file at the path also issues (the 1,000-handover chaos run saw it once).
        if (incarnationAt(file.path()) != body.getLongAcquire(INCARNATION_OFFSET)) {
            return;
        }
        long floor =
                Math.min(
                        Math.max(body.getLongVolatile(RETIRED_TERM_OFFSET), bootTermSeed()),
                        0xFFFF_FFFEL);
        if (body.compareAndSetLong(
                LEADER_WORD_OFFSET, RETIRED_WORD, packLeaderWord(NO_LEADER, floor))) {
            logger.log(
                    System.Logger.Level.WARNING,
                    "cxc: the leader-election file "
                            + file()
                            + " was retired (judged deleted or replaced under a running process)"
                            + " but is at its path and opened again: revived, terms above "
                            + floor);
        }
    }

    /**
     * The incarnation of the election file now at {@code path}, read from the file (8 bytes), or 0
     * if it cannot be read: what tells for sure whether the path still names a mapped file, where a
     * file key can be a moment late or reused by a new file.
     */
    public static long incarnationAt(Path path) {
        try (FileChannel channel =
                FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer word = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            long at = HeaderDescriptor.HEADER_LENGTH + INCARNATION_OFFSET;
            while (word.hasRemaining() && channel.read(word, at + word.position()) >= 0) {
                // read all 8 bytes
            }
            return word.hasRemaining() ? 0 : word.getLong(0);
        } catch (IOException e) {
            return 0;
        }
    }

    private long retireDamaged() {
        ByteBuffer tombstone = ByteBuffer.allocate(BODY_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        tombstone.putLong(LEADER_WORD_OFFSET, RETIRED_WORD);
        bodyBytes = tombstone;
        VarHandle.fullFence(); // publish the swap before anyone relies on the flags
        return -1;
    }

    /**
     * Forwards every later call to {@code next} (the handle open on the file now at the path),
     * which counts from then on into this handle's counters (each op once). Only after {@link
     * #retire}.
     */
    void forwardTo(SharedLeaderElection next) {
        if (next != this) {
            next.countInto(this); // the meters bound to this handle go on counting
            successor = next;
        }
    }

    private SharedLeaderElection live() {
        if (!retired) {
            return this;
        }
        SharedLeaderElection next = successor;
        if (next == null) {
            throw new CxcFormatException(
                    "the leader-election file "
                            + file()
                            + " is no longer the election this handle mapped (it was deleted,"
                            + " replaced or truncated under a running process); this process does"
                            + " not lead. Its participant re-joins the file at the path on its next"
                            + " tick.");
        }
        return next.live();
    }

    // ----------------------------------------------------------------------------- lifecycle

    /**
     * Leader, term, heartbeat, epoch, heartbeat lag and the leader's recorded start time, read from
     * shared memory without probing the leader's process.
     */

    /** {@link #describe()} with whether the leader's process is live, stale or dead. */
    @Override
    public Map<String, Object> inspect(long graceEpochs) {
        Map<String, Object> state = describe();
        long leader = StateMaps.number(state.get("leaderPid"));
        String status = leader == NO_LEADER ? "NONE" : leaderStatus().name();
        return StateMaps.insertAfter(state, "leaderPid", "leaderStatus", status);
    }

    @Override
    public Map<String, Object> describe() {
        if (retired) {
            SharedLeaderElection next = successor;
            return next != null
                    ? next.describe()
                    : fields("retired", true, "damaged", damaged, "file", String.valueOf(file()));
        }
        long word = body.getLongVolatile(LEADER_WORD_OFFSET);
        long heartbeat = OwnerRecord.heartbeat(body, LEADER_RECORD_OFFSET);
        long epoch = globalEpochRaw();
        return fields(
                "leaderPid", leaderPid(word),
                "term", term(word),
                "globalEpoch", epoch,
                "leaderHeartbeat", heartbeat,
                "heartbeatLagEpochs", Math.max(0, epoch - heartbeat),
                "leaderStartTime", OwnerRecord.startTime(body, LEADER_RECORD_OFFSET, word),
                "tickIntervalMillis", settings.tickInterval().toMillis(),
                "graceEpochs", settings.graceEpochs(),
                "candidates", java.util.Arrays.toString(candidates()));
    }

    /** Closing marks this handle closed; leadership is not released (call {@link #stepDown}). */
    @Override
    public void close() {
        SharedLeaderElection next = successor;
        if (next != null) {
            next.close();
        }
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
