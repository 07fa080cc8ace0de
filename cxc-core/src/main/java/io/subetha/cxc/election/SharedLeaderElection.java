package io.subetha.cxc.election;

import static io.subetha.cxc.election.LeaderElectionDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.EpochPacer;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.observe.StateMaps;
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
import java.util.Arrays;
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
 *   <li>A new file's term starts at the seconds since boot, not 0 ({@link
 *       LeaderSeat#bootTermSeed()}), and {@link #raiseTermFloor} lifts it above a term seen on a
 *       file it replaces: a downstream fence that saw term 40 on a file someone deleted does not
 *       see the new file's term 1.
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
 * <p>The protocol runs in parts this class hands the body to: the leader's seat ({@link
 * LeaderSeat}), the candidate table ({@link CandidateSeats}), and the mapping with its retirement
 * and forwarding ({@link ElectionFile}); the fast paths stay here, on fields of this class.
 *
 * <p>Thread-safe; one instance may serve every thread of a process.
 */
public final class SharedLeaderElection extends MappedPrimitive {

    /** The reserved "no leader" PID. */
    public static final long NO_LEADER = LeaderElectionDescriptor.NO_LEADER;

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

    // The fast paths count by int code: a constant the JIT folds, where {@code op.code()} through
    // the OpKind interface cost the counted leader check 2 ns (measured, JMH A/B).
    private static final int TRY_CLAIM_CODE = Op.TRY_CLAIM.code();
    private static final int BEAT_CODE = Op.BEAT.code();
    private static final int READ_CODE = Op.READ.code();

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
                    .recorded(SharedLeaderElection::recordedSettings)
                    // An existing file keeps the settings it was created with: a handle runs at
                    // the file's, whatever its opener asked for.
                    .construct(
                            (file, requested, options) ->
                                    new SharedLeaderElection(
                                            file, recordedSettings(file), options));

    private static void initialise(AtomicBuffer body, Settings settings) {
        body.setLongPlain(TICK_INTERVAL_OFFSET, settings.tickInterval().toNanos());
        body.setIntPlain(GRACE_OFFSET, (int) settings.graceEpochs());
        body.setIntPlain(CANDIDATE_CAPACITY_OFFSET, CANDIDATE_CAPACITY);
        body.setLongPlain(LEADER_WORD_OFFSET, packLeaderWord(NO_LEADER, LeaderSeat.bootTermSeed()));
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

    /** The settings a file records: what every handle on it runs at, whatever it asked for. */
    private static Settings recordedSettings(MappedFile file) {
        AtomicBuffer body = file.body();
        return new Settings(
                Duration.ofNanos(body.getLongAcquire(TICK_INTERVAL_OFFSET)),
                Integer.toUnsignedLong(body.getIntAcquire(GRACE_OFFSET)));
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

    /** This handle's file: its seats, its epoch, and where its work went once it was replaced. */
    private final ElectionFile mapped;

    private final Settings settings;

    /**
     * The handle open on the file now at the path, once this one's file was replaced: what {@link
     * #active()} returns, {@link #describe()} reads and {@link #close()} closes. The calls
     * themselves forward on the files ({@link ElectionFile#live}).
     */
    private volatile @Nullable SharedLeaderElection successor;

    /**
     * @param settings the ones the file records: an existing file keeps those it was created with
     */
    private SharedLeaderElection(MappedFile file, Settings settings, CxcFileOptions options) {
        super(file, TYPE);
        this.settings = settings;
        this.mapped = new ElectionFile(file.path(), body, !options.readOnly());
        this.bodyBytes = body.byteBuffer();
    }

    /** Opens and validates an existing election file; fails if it does not exist. */
    public static SharedLeaderElection open(Path path) {
        return TYPE.open(path, Settings.DEFAULTS);
    }

    /**
     * Opens the file, or creates it with {@link Settings#DEFAULTS}; race-safe across processes. An
     * existing file keeps the settings it was created with: see {@link #settings()}.
     */
    public static SharedLeaderElection openOrCreate(Path path) {
        return TYPE.openOrCreate(path, Settings.DEFAULTS);
    }

    /** {@link #openOrCreate(Path)}, creating a new file with {@code settings}. */
    public static SharedLeaderElection openOrCreate(Path path, Settings settings) {
        return TYPE.openOrCreate(path, settings);
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
        return mapped.incarnation();
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
            counters.increment(TRY_CLAIM_CODE);
            return true; // already leader
        }
        if (myPid <= 0 || myPid > Pids.MAX_PID || graceEpochs < 0) {
            throw invalid(myPid, graceEpochs);
        }
        counters.increment(TRY_CLAIM_CODE);
        return mapped.claim(myPid, graceEpochs, true);
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
            counters.increment(TRY_CLAIM_CODE);
            return true;
        }
        if (myPid <= 0 || myPid > Pids.MAX_PID || graceEpochs < 0) {
            throw invalid(myPid, graceEpochs);
        }
        counters.increment(TRY_CLAIM_CODE);
        return mapped.claim(myPid, graceEpochs, false);
    }

    /** {@link #tryClaimLeadership(long, long)} with {@link #DEFAULT_GRACE_EPOCHS}. */
    public boolean tryClaimLeadership(long myPid) {
        return tryClaimLeadership(myPid, DEFAULT_GRACE_EPOCHS);
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
        ElectionFile at = mapped.last();
        if (at.isRetired()) {
            return false;
        }
        counters.increment(Op.LIVENESS_CHECK);
        LeaderSeat seat = at.seat();
        long word = seat.word();
        long leader = leaderPid(word);
        if (leader == myPid || leader == NO_LEADER) {
            return at.claim(myPid, graceEpochs, true);
        }
        if (seat.status(word) != ProcessStatus.DEAD) {
            return false;
        }
        // CAS from exactly the dead leader's word: if anyone else changed it first, they won.
        return seat.takeOver(word, myPid);
    }

    /** Whether the current leader's process is alive, per {@link ProcessProbe}. */
    public ProcessStatus leaderStatus() {
        LeaderSeat seat = mapped.live().seat();
        counters.increment(Op.LIVENESS_CHECK);
        long word = seat.word();
        return leaderPid(word) == NO_LEADER ? ProcessStatus.DEAD : seat.status(word);
    }

    /**
     * Refreshes the leader's heartbeat to the current global epoch, if {@code myPid} leads.
     *
     * @return false if {@code myPid} is not the leader (it lost leadership)
     */
    public boolean beatAsLeader(long myPid) {
        Pids.requireValid(myPid);
        // The word first, from the fast paths' buffer (a truncated file's names no one); a retired
        // handle whose orphan still names the caller goes on like any other miss.
        if (leaderPid((long) LONG.getVolatile(bodyBytes, LEADER_WORD_OFFSET)) == myPid
                && !mapped.isRetired()) {
            counters.increment(BEAT_CODE);
            OwnerRecord.beat(body, LEADER_RECORD_OFFSET, body.getLongVolatile(GLOBAL_EPOCH_OFFSET));
            return true;
        }
        ElectionFile at = mapped.last();
        if (at.isRetired()) {
            return false;
        }
        counters.increment(BEAT_CODE);
        LeaderSeat seat = at.seat();
        if (leaderPid(seat.word()) != myPid) {
            return false;
        }
        seat.beat();
        return true;
    }

    /** Advances the global epoch by one. @return the new epoch */
    public long tickEpoch() {
        LeaderSeat seat = mapped.live().seat();
        counters.increment(Op.TICK_EPOCH);
        return seat.tickEpoch();
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
        ElectionFile at = mapped.live();
        if (!at.pacer().claimTick(interval)) {
            return false;
        }
        counters.increment(Op.TICK_EPOCH);
        at.seat().tickEpoch();
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
        ElectionFile at = mapped.last();
        if (at.isRetired()) {
            return false;
        }
        counters.increment(Op.STEP_DOWN);
        return at.seat().stepDown(myPid);
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
        return mapped.live().candidates().register(myPid, graceEpochs);
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
        return mapped.live().candidates().beat(index, myPid);
    }

    /** Frees candidate seat {@code index} if {@code myPid} holds it (on leaving the election). */
    public void leaveCandidates(int index, long myPid) {
        if (index < 0 || index >= CANDIDATE_CAPACITY || mapped.isRetired()) {
            return;
        }
        mapped.candidates().leave(index, myPid);
    }

    /**
     * The lowest PID below {@code below}, other than {@code except}, holding a candidate seat whose
     * beat lags by at most {@code graceEpochs} and whose process is not provably dead; {@link
     * #NO_LEADER} if none. Probes {@code /proc} only for the PIDs it would return.
     */
    public long lowestLiveCandidateBelow(long below, long except, long graceEpochs) {
        return mapped.live().candidates().lowestLiveBelow(below, except, graceEpochs);
    }

    /** The PIDs holding a candidate seat, fresh or not, lowest first: for display. */
    public long[] candidates() {
        return mapped.live().candidates().pids();
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
        counters.increment(READ_CODE);
        // Off the fast path: a retired handle asks the files that replaced it (counted already).
        return term >= 0 ? term : mapped.termIfLeaderInSuccessors(pid);
    }

    /** The leader's PID, empty when there is no leader. */
    public OptionalLong currentLeader() {
        LeaderSeat seat = mapped.live().seat();
        counters.increment(READ_CODE);
        long leader = leaderPid(seat.word());
        return leader == NO_LEADER ? OptionalLong.empty() : OptionalLong.of(leader);
    }

    /** The election term: rises by one on each handover; the fencing token. */
    public long electionTerm() {
        LeaderSeat seat = mapped.live().seat();
        counters.increment(READ_CODE);
        return term(seat.word());
    }

    /**
     * The leader PID and term read together, as one value: {@code leaderPid(word)}, {@code
     * term(word)} in {@link LeaderElectionDescriptor}. A leader that reads its own PID here holds
     * exactly this term.
     */
    public long leaderWord() {
        if (mapped.isRetired()) {
            LeaderSeat seat = mapped.live().seat();
            counters.increment(READ_CODE);
            return seat.word();
        }
        long word = (long) LONG.getVolatile(bodyBytes, LEADER_WORD_OFFSET);
        counters.increment(READ_CODE); // after the read, as in isLeader
        return word;
    }

    public long globalEpoch() {
        LeaderSeat seat = mapped.live().seat();
        counters.increment(READ_CODE);
        return seat.globalEpoch();
    }

    /** The global epoch at the leader's last beat. */
    public long leaderHeartbeat() {
        LeaderSeat seat = mapped.live().seat();
        counters.increment(READ_CODE);
        return seat.heartbeatWord();
    }

    /** Leader, term, heartbeat, epoch and start time in one call. */
    public LeaderSnapshot snapshot() {
        LeaderSeat seat = mapped.live().seat();
        counters.increment(READ_CODE);
        long word = seat.word();
        long heartbeat = seat.heartbeatWord();
        long epoch = seat.globalEpoch();
        return new LeaderSnapshot(
                leaderPid(word), term(word), heartbeat, epoch, seat.startTime(word));
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
        if (floor < 0 || floor > MAX_TERM_FLOOR) {
            throw new IllegalArgumentException(
                    "floor must be 0.." + MAX_TERM_FLOOR + ", got " + floor);
        }
        return mapped.live().seat().raiseTermFloor(floor);
    }

    /**
     * Whether this handle's file is known not to be the election at its path any more (deleted,
     * replaced or truncated under it): it then never answers "leader" itself, and forwards to the
     * handle that replaced it, if any.
     */
    public boolean isRetired() {
        return mapped.isRetired();
    }

    /**
     * Whether the mapping still holds the incarnation it was opened with: a file truncated and
     * grown back under it (the same inode, its pages zero now) does not. Only once the file is
     * known to be its full length; a read that faults anyway counts as not.
     */
    boolean mappingHoldsItsIncarnation() {
        try {
            return body.getLongVolatile(INCARNATION_OFFSET) == mapped.incarnation();
        } catch (InternalError truncatedSinceItsSizeWasRead) {
            return false;
        }
    }

    /** Whether this handle's file was found truncated under its mapping. */
    public boolean isDamaged() {
        return mapped.isDamaged();
    }

    /**
     * The handle serving the election now: this one, or the one open on the file now at the path
     * after this handle's file was replaced.
     *
     * @throws CxcFormatException if this handle was retired and nothing replaced it yet
     */
    public SharedLeaderElection active() {
        SharedLeaderElection at = this;
        while (at.mapped.isRetired()) {
            SharedLeaderElection next = at.successor;
            if (next == null) {
                throw at.mapped.noLongerTheElection();
            }
            at = next;
        }
        return at;
    }

    /**
     * Stops this handle from ever leading again ({@link ElectionFile#retire}). With {@code
     * truncated}, or if the mapping faults, the fast paths' buffer is swapped for a heap copy
     * holding the retired word.
     *
     * @return the term this PID led under in the orphan, or -1
     */
    long retire(long myPid, boolean truncated) {
        long term = mapped.retire(myPid, truncated);
        if (mapped.isDamaged()) {
            ByteBuffer tombstone = ByteBuffer.allocate(BODY_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            tombstone.putLong(LEADER_WORD_OFFSET, RETIRED_WORD);
            bodyBytes = tombstone;
            VarHandle.fullFence(); // publish the swap before anyone relies on the flags
        }
        return term;
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
            mapped.forwardTo(next.mapped);
        }
    }

    /**
     * The incarnation of the election file now at {@code path}, read from the file (8 bytes), or 0
     * if it cannot be read: what tells for sure whether the path still names a mapped file, where a
     * file key can be a moment late or reused by a new file.
     */
    public static long incarnationAt(Path path) {
        return ElectionFile.incarnationAt(path);
    }

    // ----------------------------------------------------------------------------- lifecycle

    /** {@link #describe()} with whether the leader's process is live, stale or dead. */
    @Override
    public Map<String, Object> inspect(long graceEpochs) {
        Map<String, Object> state = describe();
        long leader = StateMaps.number(state.get("leaderPid"));
        String status = leader == NO_LEADER ? "NONE" : leaderStatus().name();
        return StateMaps.insertAfter(state, "leaderPid", "leaderStatus", status);
    }

    /**
     * Leader, term, heartbeat, epoch, heartbeat lag and the leader's recorded start time, read from
     * shared memory without probing the leader's process.
     */
    @Override
    public Map<String, Object> describe() {
        if (mapped.isRetired()) {
            SharedLeaderElection next = successor;
            return next != null
                    ? next.describe()
                    : fields(
                            "retired", true,
                            "damaged", mapped.isDamaged(),
                            "file", String.valueOf(file()));
        }
        LeaderSeat seat = mapped.seat();
        long word = seat.word();
        long heartbeat = seat.heartbeat();
        long epoch = seat.globalEpoch();
        return fields(
                "leaderPid", leaderPid(word),
                "term", term(word),
                "globalEpoch", epoch,
                "leaderHeartbeat", heartbeat,
                "heartbeatLagEpochs", Math.max(0, epoch - heartbeat),
                "leaderStartTime", seat.startTime(word),
                "tickIntervalMillis", settings.tickInterval().toMillis(),
                "graceEpochs", settings.graceEpochs(),
                "candidates", Arrays.toString(mapped.candidates().pids()));
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
