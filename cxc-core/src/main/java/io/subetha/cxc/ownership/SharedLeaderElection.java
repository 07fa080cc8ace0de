package io.subetha.cxc.ownership;

import static io.subetha.cxc.ownership.LeaderElectionDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.internal.EpochPacer;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.OpCounters;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessStatus;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
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
 * <p>Beyond the seed:
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
        TRY_CLAIM(OP_TRY_CLAIM),
        BEAT(OP_BEAT),
        TICK_EPOCH(OP_TICK_EPOCH),
        STEP_DOWN(OP_STEP_DOWN),
        READ(OP_READ),
        LIVENESS_CHECK(OP_LIVENESS_CHECK);

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
     * The settings every participant of one election must share, written into the file when it is
     * created: the epoch's pace and how many epochs a leader's heartbeat may lag. Participants read
     * them from the file ({@link #settings()}) and run at them, whatever they were configured with;
     * see {@link ElectionParticipant}.
     *
     * @param tickInterval how often participants tick, and so the epoch's pace: 1 ms to 1 hour
     * @param graceEpochs epochs a leader's (or a candidate's) heartbeat may lag before it is
     *     replaced: 0 to 1,000,000
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

    public static final PrimitiveType<SharedLeaderElection, Settings> TYPE =
            PrimitiveType.<SharedLeaderElection, Settings>define(
                            PrimitiveKinds.LEADER_ELECTION, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .fixedBody(BODY_LENGTH)
                    .defaults(Settings.DEFAULTS)
                    .initialiser(SharedLeaderElection::initialise)
                    .bodyCheck(SharedLeaderElection::settingsProblem)
                    .wrap((file, options) -> new SharedLeaderElection(file));

    private static void initialise(AtomicBuffer body, Settings settings) {
        body.setLongPlain(TICK_INTERVAL_OFFSET, settings.tickInterval().toNanos());
        body.setIntPlain(GRACE_OFFSET, (int) settings.graceEpochs());
        body.setIntPlain(CANDIDATE_CAPACITY_OFFSET, CANDIDATE_CAPACITY);
        body.setLongPlain(LEADER_WORD_OFFSET, packLeaderWord(NO_LEADER, bootTermSeed()));
    }

    private static @Nullable String settingsProblem(AtomicBuffer body) {
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
     * The term a new file starts from: the seconds since boot ({@code CLOCK_MONOTONIC}, which only
     * grows on a host until it reboots), so terms keep rising across a file recreated under running
     * processes as long as handovers are rarer than one a second on average. Participants that were
     * running carry their old file's term over on top ({@link #raiseTermFloor}). 0 where {@code
     * nanoTime} is not time since boot and reads negative.
     */
    static long bootTermSeed() {
        long seconds = System.nanoTime() / 1_000_000_000L;
        return seconds <= 0 ? 0 : Math.min(seconds, 0x7FFF_FFFFL);
    }

    /**
     * The fast paths read the leader word straight from the body's buffer: one dependent load fewer
     * than through {@link AtomicBuffer}, which is a measurable share of a 1 ns read.
     */
    private static final VarHandle LONG =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final ByteBuffer bodyBytes;
    private final EpochPacer pacer;
    private final Settings settings;

    /** Where this handle counts: its own counters, or those of the handle it replaced. */
    private OpCounters ops;

    /**
     * Set once the file this handle maps is known not to be the election any more (deleted,
     * replaced, truncated): this handle then never answers "leader" again, and forwards to {@link
     * #successor} if there is one. Checked off the fast paths only: retiring also clears {@link
     * #confirmedWord}, so the fast paths fail and reach the check.
     */
    private volatile boolean retired;

    private volatile @Nullable SharedLeaderElection successor;

    /**
     * The leader word this handle installed, or confirmed to be this very process's (its published
     * identity names this process's start time): only then does a PID match mean "I lead". A
     * process that inherited a dead leader's PID finds that PID in the word but not its identity,
     * and takes the next term instead of continuing the dead leader's. Checked once per word, not
     * per call: the fast paths compare the word with this field.
     */
    private volatile long confirmedWord;

    private SharedLeaderElection(MappedFile file) {
        super(file, TYPE);
        this.bodyBytes = body.byteBuffer();
        this.pacer = new EpochPacer(body, LAST_TICK_NANOS_OFFSET);
        this.ops = counters;
        this.settings =
                new Settings(
                        Duration.ofNanos(body.getLongAcquire(TICK_INTERVAL_OFFSET)),
                        Integer.toUnsignedLong(body.getIntAcquire(GRACE_OFFSET)));
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
        long word = (long) LONG.getVolatile(bodyBytes, LEADER_WORD_OFFSET);
        if (word == confirmedWord
                && leaderPid(word) == myPid
                && myPid != NO_LEADER
                && graceEpochs >= 0) {
            ops.increment(OP_TRY_CLAIM);
            return true; // already leader
        }
        return tryClaimSlow(myPid, graceEpochs, Preemption.LOWEST_PID);
    }

    /**
     * {@link #tryClaimLeadership(long, long)}, but with {@link Preemption#NONE} a lower {@code
     * myPid} does not take the seat from a leader whose heartbeat is fresh.
     */
    public boolean tryClaimLeadership(long myPid, long graceEpochs, Preemption preemption) {
        long word = (long) LONG.getVolatile(bodyBytes, LEADER_WORD_OFFSET);
        if (word == confirmedWord
                && leaderPid(word) == myPid
                && myPid != NO_LEADER
                && graceEpochs >= 0) {
            ops.increment(OP_TRY_CLAIM);
            return true;
        }
        return tryClaimSlow(myPid, graceEpochs, preemption);
    }

    private boolean tryClaimSlow(long myPid, long graceEpochs, Preemption preemption) {
        if (myPid <= 0 || myPid > Pids.MAX_PID || graceEpochs < 0) {
            throw invalid(myPid, graceEpochs);
        }
        if (retired) {
            SharedLeaderElection next = successor;
            return next != null && next.tryClaimLeadership(myPid, graceEpochs, preemption);
        }
        ops.increment(OP_TRY_CLAIM);
        try {
            return claimSlow(myPid, graceEpochs, preemption == Preemption.LOWEST_PID);
        } catch (InternalError truncated) {
            return damaged(truncated);
        }
    }

    /** {@link #tryClaimLeadership(long, long)} with {@link #DEFAULT_GRACE_EPOCHS}. */
    public boolean tryClaimLeadership(long myPid) {
        return tryClaimLeadership(myPid, DEFAULT_GRACE_EPOCHS);
    }

    private boolean claimSlow(long myPid, long graceEpochs, boolean preempt) {
        while (true) {
            long word = body.getLongVolatile(LEADER_WORD_OFFSET);
            long leader = leaderPid(word);
            if (leader == myPid) {
                // Ours, or a dead process's that had our PID: that one's term is not ours to
                // continue (its fencing token would be accepted twice), so take the next.
                if (confirm(word, myPid) || takeOver(word, myPid)) {
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
        // Before the CAS, so this handle's other threads take the fast path at once. Only this
        // PID can ever install this word, and a term is installed once: if the CAS fails, no
        // leader word will equal it.
        if (!remember(mine)) {
            return false;
        }
        return OwnerRecord.claim(
                body,
                LEADER_RECORD_OFFSET,
                expected,
                mine,
                OwnerRecord.startTimeOf(myPid),
                this::globalEpochRaw);
    }

    /**
     * Whether {@code word}, which holds {@code pid}, is this very process's; remembers it if so.
     */
    private boolean confirm(long word, long pid) {
        if (word == confirmedWord) {
            return true;
        }
        if (OwnerRecord.isOwnedBy(
                body, LEADER_RECORD_OFFSET, word, pid, OwnerRecord.startTimeOf(pid))) {
            return remember(word);
        }
        return false;
    }

    /**
     * Sets {@link #confirmedWord}, unless this handle is retired. Store, then check: {@link
     * #retire} sets the flag, then clears the word, so of a racing pair either this call sees the
     * flag, or the clear comes after this store; the fast paths can never keep a retired handle's
     * word.
     */
    private boolean remember(long word) {
        confirmedWord = word;
        if (retired) {
            confirmedWord = 0;
            return false;
        }
        return true;
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
     * {@link #claimIfLeaderDead(long)} with the caller's grace, used when there is no leader (or
     * the seat holds the caller's PID) and it claims as {@link #tryClaimLeadership(long, long)}
     * would.
     */
    public boolean claimIfLeaderDead(long myPid, long graceEpochs) {
        Pids.requireValid(myPid);
        if (graceEpochs < 0) {
            throw invalid(myPid, graceEpochs);
        }
        if (retired) {
            SharedLeaderElection next = successor;
            return next != null && next.claimIfLeaderDead(myPid, graceEpochs);
        }
        ops.increment(OP_LIVENESS_CHECK);
        try {
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
        } catch (InternalError truncated) {
            return damaged(truncated);
        }
    }

    /** Whether the current leader's process is alive, per {@link ProcessProbe}. */
    public ProcessStatus leaderStatus() {
        if (retired) {
            return live().leaderStatus();
        }
        ops.increment(OP_LIVENESS_CHECK);
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
        ops.increment(OP_BEAT);
        try {
            long word = body.getLongVolatile(LEADER_WORD_OFFSET);
            if (leaderPid(word) != myPid || !confirm(word, myPid)) {
                return false;
            }
            OwnerRecord.beat(body, LEADER_RECORD_OFFSET, globalEpochRaw());
            return true;
        } catch (InternalError truncated) {
            return damaged(truncated);
        }
    }

    /** Advances the global epoch by one. @return the new epoch */
    public long tickEpoch() {
        if (retired) {
            return live().tickEpoch();
        }
        ops.increment(OP_TICK_EPOCH);
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
        ops.increment(OP_STEP_DOWN);
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

    /**
     * Raises the term to at least {@code floor}: if it is lower, the seat is set to no leader under
     * term {@code floor} (one CAS from exactly the word read), so the next claim takes {@code floor
     * + 1}. A participant that re-joins an election whose file was replaced carries its old file's
     * term over this way: a downstream fence that saw term 40 refuses term 1 forever, so a leader
     * seated under a lower term than one already issued on this host is deposed (its fencing token
     * could never be accepted where the older one was seen).
     *
     * @param floor a term (u32)
     * @return whether this call changed the term
     */
    public boolean raiseTermFloor(long floor) {
        if (floor < 0 || floor > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("term floor must be a u32, got " + floor);
        }
        if (retired) {
            return live().raiseTermFloor(floor);
        }
        while (true) {
            long word = body.getLongVolatile(LEADER_WORD_OFFSET);
            if (term(word) >= floor) {
                return false;
            }
            if (body.compareAndSetLong(
                    LEADER_WORD_OFFSET, word, packLeaderWord(NO_LEADER, floor))) {
                return true;
            }
        }
    }

    // -------------------------------------------------------------------------- candidates

    /**
     * Takes (or finds again) a candidate seat for {@code myPid}: its own if it still holds one,
     * else a free one, or one whose holder is stale by {@code graceEpochs} or dead. Nothing is
     * written unless the seat's CAS wins ({@link OwnerRecord#claim}).
     *
     * @return the seat's index, or -1 if every seat is held by a live candidate
     */
    public int registerCandidate(long myPid, long graceEpochs) {
        Pids.requireValid(myPid);
        if (retired) {
            return live().registerCandidate(myPid, graceEpochs);
        }
        long startTime = OwnerRecord.startTimeOf(myPid);
        long epoch = globalEpochRaw();
        for (int i = 0; i < CANDIDATE_CAPACITY; i++) {
            int record = candidateRecordOffset(i);
            long word = OwnerRecord.ownerWord(body, record);
            if (OwnerRecord.isOwnedBy(body, record, word, myPid, startTime)) {
                return i;
            }
        }
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
     * The lowest PID below {@code below} holding a candidate seat whose beat lags by at most {@code
     * graceEpochs} and whose process is not provably dead, other than {@code except}; {@link
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
        return java.util.stream.IntStream.range(0, CANDIDATE_CAPACITY)
                .mapToLong(
                        i -> OwnerRecord.pid(OwnerRecord.ownerWord(body, candidateRecordOffset(i))))
                .filter(pid -> pid != NO_LEADER)
                .sorted()
                .toArray();
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
     * does not lead: what a caller binds as its fencing token. A PID found in the leader word
     * counts only when the word is this process's own (see {@link #isLeader}).
     */
    public long termIfLeader(long pid) {
        // Read, then count: the count's loads and store then overlap the read (measured: the
        // counted fast path 0.3 ns faster than counting first).
        long word = (long) LONG.getVolatile(bodyBytes, LEADER_WORD_OFFSET);
        long term =
                word == confirmedWord && leaderPid(word) == pid && pid != NO_LEADER
                        ? term(word)
                        : termIfConfirmed(word, pid);
        ops.increment(OP_READ);
        return term;
    }

    private long termIfConfirmed(long word, long pid) {
        if (retired) {
            SharedLeaderElection next = successor;
            return next == null ? -1 : next.termIfLeader(pid);
        }
        try {
            return leaderPid(word) == pid && pid != NO_LEADER && confirm(word, pid)
                    ? term(word)
                    : -1;
        } catch (InternalError truncated) {
            damaged(truncated);
            return -1;
        }
    }

    /** The leader's PID, empty when there is no leader. */
    public OptionalLong currentLeader() {
        if (retired) {
            return live().currentLeader();
        }
        ops.increment(OP_READ);
        long leader = leaderPid(body.getLongVolatile(LEADER_WORD_OFFSET));
        return leader == NO_LEADER ? OptionalLong.empty() : OptionalLong.of(leader);
    }

    /** The election term: rises by one on each handover; the fencing token. */
    public long electionTerm() {
        if (retired) {
            return live().electionTerm();
        }
        ops.increment(OP_READ);
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
        ops.increment(OP_READ); // after the read, as in isLeader
        return word;
    }

    public long globalEpoch() {
        if (retired) {
            return live().globalEpoch();
        }
        ops.increment(OP_READ);
        return body.getLongVolatile(GLOBAL_EPOCH_OFFSET);
    }

    /** The global epoch at the leader's last beat. */
    public long leaderHeartbeat() {
        if (retired) {
            return live().leaderHeartbeat();
        }
        ops.increment(OP_READ);
        return body.getLongVolatile(LEADER_HEARTBEAT_OFFSET);
    }

    /** Leader, term, heartbeat, epoch and start time in one call. */
    public LeaderSnapshot snapshot() {
        if (retired) {
            return live().snapshot();
        }
        ops.increment(OP_READ);
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
     * Whether this handle's file is known not to be the election any more (deleted, replaced or
     * truncated under it): it then never answers "leader", and forwards to its {@link #active()}
     * successor if a participant re-joined the election at the path.
     */
    public boolean isRetired() {
        return retired;
    }

    /**
     * The handle that serves the election now: this one, or the one a participant opened on the
     * file now at the path after this handle's file was replaced.
     *
     * @throws CxcFormatException if the file is damaged and nothing replaced it yet
     */
    public SharedLeaderElection active() {
        return live();
    }

    /**
     * Stops this handle from ever answering "leader" again and, if {@code next} is given, forwards
     * every later call to it (counting into this handle's counters, so metrics stay whole). Called
     * by {@link ElectionParticipant} when the path no longer names the file this handle maps.
     */
    void retire(@Nullable SharedLeaderElection next) {
        if (next != null && next != this) {
            next.ops = ops; // before the volatile publication below
            successor = next;
        }
        retired = true;
        confirmedWord = 0; // after the flag: see remember()
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

    /** A truncated mapping faulted ({@code SIGBUS}): retire, answer "not leader". */
    private boolean damaged(InternalError fault) {
        retire(null);
        return false;
    }

    // ----------------------------------------------------------------------------- lifecycle

    /**
     * Leader, term, heartbeat, epoch, heartbeat lag, the leader's recorded start time, the stored
     * settings and the candidates, read from shared memory without probing the leader's process.
     */
    @Override
    public Map<String, Object> describe() {
        if (retired) {
            SharedLeaderElection next = successor;
            return next != null
                    ? next.describe()
                    : fields("damaged", true, "file", String.valueOf(file()));
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
