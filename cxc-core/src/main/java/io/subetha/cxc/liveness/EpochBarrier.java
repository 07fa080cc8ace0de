package io.subetha.cxc.liveness;

import static io.subetha.cxc.claim.OwnerRecord.pid;
import static io.subetha.cxc.liveness.EpochBarrierDescriptor.*;
import static io.subetha.cxc.liveness.HeartbeatTableDescriptor.generation;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.claim.OwnerStatus;
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
import io.subetha.cxc.wait.Deadline;
import io.subetha.cxc.wake.Doorbell;
import io.subetha.cxc.wake.WaitPhases;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * A phase barrier across processes: every participant calls {@link #await(int)} with the epoch it
 * has finished and blocks until every live participant has arrived at that epoch; then the epoch
 * advances by one and all are released. Useful where every process must finish phase {@code n}
 * before any starts phase {@code n + 1}. Layout: {@link EpochBarrierDescriptor}.
 *
 * <pre>{@code
 * try (EpochBarrier barrier = EpochBarrier.openOrCreate(path, new EpochBarrier.Settings(8))) {
 *     int epoch = barrier.join();
 *     while (running) {
 *         doPhase(epoch);
 *         barrier.await(epoch, Duration.ofSeconds(5));
 *         epoch++;
 *     }
 * } // close() leaves the barrier, so the others are not held up
 * }</pre>
 *
 * <p><b>One handle, one participant.</b> {@link #join()} claims a participant slot (one CAS) for
 * this handle; several handles (threads, processes) on one file are several participants. A
 * participant's calls come from one thread at a time; the reads ({@link #currentEpoch}, {@link
 * #livePeerCount}) are thread-safe.
 *
 * <p><b>{@code await}, not {@code wait}.</b> Barriers elsewhere call it {@code wait(epoch)}. In
 * Java {@code wait} is taken by the final {@link Object#wait(long)}: {@code barrier.wait(3)} would
 * resolve to a new {@code wait(int)} but {@code barrier.wait(3L)} to the monitor wait, which throws
 * {@link IllegalMonitorStateException}. {@code await} is also what {@link
 * java.util.concurrent.CyclicBarrier} and {@link java.util.concurrent.CountDownLatch} call it; the
 * quorum form is {@link #awaitQuorum} for the same reason.
 *
 * <p><b>Epochs.</b> Pass the epoch {@link #join()} returned, then one more after each release.
 * Calling with an epoch this participant already completed is a stale-epoch error, with one ahead
 * of the barrier a future-epoch error. An epoch between the two (the barrier passed it without this
 * participant: a quorum release, or a release while it was joining) returns at once. Epochs are u32
 * and compare with wrap-around arithmetic.
 *
 * <p><b>Dropping the silent.</b> Each participant stamps a heartbeat (CLOCK_MONOTONIC, comparable
 * across the host's processes) when it joins, arrives, {@linkplain #beat() beats}, and periodically
 * while it waits. A waiter drops a participant that has not arrived when its process is provably
 * dead (gone, a zombie, or its PID reused; checked at most every {@value #PROBE_PERIOD_MILLIS} ms,
 * so a killed peer releases the others within milliseconds), or when its heartbeat is older than
 * the grace: {@code graceEpochs × heartbeatInterval}, both fixed at creation ({@link
 * #DEFAULT_BARRIER_GRACE_EPOCHS} × {@link #DEFAULT_HEARTBEAT_INTERVAL} = 1 s by default). Here one
 * grace "epoch" is one heartbeat interval, because a barrier's own epoch cannot advance while a
 * participant is missing. A participant whose phase may run longer than the grace must call {@link
 * #beat()} at least once per heartbeat interval during it; a dropped participant's next call throws
 * {@link SlotLostException}, and it may {@link #join()} again.
 *
 * <p><b>Waiting on the doorbell.</b> A waiter spins, then yields ({@link WaitPhases#DEFAULT}), then
 * sleeps on the barrier's {@link Doorbell}: the arrival whose CAS advances the epoch rings it, and
 * so does a {@link #leave()}, which may leave the others complete. Its sleep is bounded by the next
 * PID probe of the missing participants ({@value #PROBE_PERIOD_MILLIS} ms) and its own next
 * heartbeat, so a killed participant is noticed as before; a lost ring (a ringer killed mid-ring)
 * costs at most that bound. Every blocking call has a form with a timeout that throws {@link
 * CxcTimeoutException} naming the participants that have not arrived.
 */
public final class EpochBarrier extends MappedPrimitive {

    /** Heartbeat intervals a participant may stay silent before waiters drop it. */
    public static final int DEFAULT_BARRIER_GRACE_EPOCHS = 5;

    /** The heartbeat interval of a barrier created without one. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofMillis(200);

    /** How often a waiter checks whether missing participants' processes still exist. */
    public static final long PROBE_PERIOD_MILLIS = 5;

    private static final Duration PROBE_PERIOD = Duration.ofMillis(PROBE_PERIOD_MILLIS);
    private static final long PROBE_PERIOD_NANOS = PROBE_PERIOD.toNanos();
    private static final long NO_DEADLINE = Long.MAX_VALUE / 2;
    private static final long MAX_INTERVAL = Duration.ofHours(1).toNanos();

    /** The shortest sleep between two rounds: a heartbeat interval of nanoseconds spins no core. */
    private static final long SHORTEST_SLEEP_NANOS = 50_000;

    /** The ops a barrier counts, exported under these names. */
    public enum Op implements OpKind {
        BEAT(1),
        REGISTER(2),
        WAIT(3),
        SCAN(5),
        UNREGISTER(6),
        READ(7);

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
     * A barrier's creation settings; the grace and interval are stored in the file, so every
     * participant uses the creator's.
     *
     * @param capacity participant slots, 1..{@link HeartbeatTable#IN_FLIGHT_SLOTS}
     * @param heartbeatInterval how often a waiting participant refreshes its heartbeat (and a
     *     participant in a long phase must {@link #beat()}), 1 ns..1 h
     * @param graceEpochs heartbeat intervals of silence after which a participant is dropped, 1 or
     *     more
     */
    public record Settings(int capacity, Duration heartbeatInterval, int graceEpochs) {
        public Settings {
            CxcSettingsException.requireInRange(
                    "capacity",
                    capacity,
                    1,
                    HeartbeatTable.IN_FLIGHT_SLOTS,
                    " (HeartbeatTable.IN_FLIGHT_SLOTS)");
            long nanos = heartbeatInterval.toNanos();
            if (nanos < 1 || nanos > MAX_INTERVAL) {
                throw new CxcSettingsException(
                        "heartbeatInterval",
                        "heartbeatInterval must be positive and at most 1 h, got "
                                + heartbeatInterval);
            }
            if (graceEpochs < 1) {
                throw new CxcSettingsException(
                        "graceEpochs", "graceEpochs must be 1 or more, got " + graceEpochs);
            }
        }

        /** {@code capacity} slots with the default interval and grace. */
        public Settings(int capacity) {
            this(capacity, DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_BARRIER_GRACE_EPOCHS);
        }
    }

    public static final PrimitiveType<EpochBarrier, Settings> TYPE =
            PrimitiveType.<EpochBarrier, Settings>define(
                            PrimitiveKinds.EPOCH_BARRIER, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .shape(
                            settings -> new PrimitiveType.Shape(settings.capacity(), SLOT_LENGTH),
                            BODY_LAYOUT)
                    .initialiser(
                            (body, settings) -> {
                                body.setIntPlain(GRACE_EPOCHS_OFFSET, settings.graceEpochs());
                                body.setLongPlain(
                                        HEARTBEAT_INTERVAL_OFFSET,
                                        settings.heartbeatInterval().toNanos());
                            })
                    .bodyCheck(EpochBarrier::timingProblem)
                    .defaults(new Settings(HeartbeatTable.Settings.DEFAULT_CAPACITY))
                    .recorded(
                            file ->
                                    new Settings(
                                            file.header().capacity(),
                                            Duration.ofNanos(
                                                    file.body()
                                                            .getLongAcquire(
                                                                    HEARTBEAT_INTERVAL_OFFSET)),
                                            file.body().getIntAcquire(GRACE_EPOCHS_OFFSET)))
                    .construct((file, settings, options) -> new EpochBarrier(file));

    private final int capacity;
    private final long heartbeatIntervalNanos;
    private final long graceNanos;
    private final int graceEpochs;

    /** Rung by the arrival that advances the epoch and by a leave; waiters sleep on it. */
    private final Doorbell doorbell;

    // This handle's participation; written by join/leave, read by the participant's own thread.
    private volatile int slot = -1;
    private volatile long ownerWord;
    private volatile int lastCompleted;
    private volatile long lastBeatNanos;

    private EpochBarrier(MappedFile file) {
        super(file, TYPE);
        this.capacity = file.header().capacity(); // validated: 1..IN_FLIGHT_SLOTS
        // Checked by timingProblem before this constructor runs.
        this.graceEpochs = body.getIntAcquire(GRACE_EPOCHS_OFFSET);
        this.heartbeatIntervalNanos = body.getLongAcquire(HEARTBEAT_INTERVAL_OFFSET);
        this.graceNanos =
                Math.multiplyHigh(graceEpochs, heartbeatIntervalNanos) != 0
                        ? Long.MAX_VALUE
                        : graceEpochs * heartbeatIntervalNanos;
        this.doorbell = new Doorbell(body, doorbellOffset(capacity), file.path());
    }

    /** The grace and interval a file declares must be ones a barrier may be created with. */
    private static @Nullable String timingProblem(AtomicBuffer body) {
        int grace = body.getIntAcquire(GRACE_EPOCHS_OFFSET);
        long interval = body.getLongAcquire(HEARTBEAT_INTERVAL_OFFSET);
        try {
            new Settings(1, Duration.ofNanos(interval), grace);
            return null;
        } catch (CxcSettingsException e) {
            return "it declares a grace of "
                    + Integer.toUnsignedString(grace)
                    + " epochs and a heartbeat interval of "
                    + interval
                    + " ns ("
                    + e.getMessage()
                    + ")";
        }
    }

    /**
     * Opens an existing barrier, whatever its capacity: the file records every setting, and its
     * grace and heartbeat interval are the creator's for every participant.
     */
    public static EpochBarrier open(Path path) {
        return TYPE.openAsRecorded(path, CxcFileOptions.defaults());
    }

    /**
     * Opens the barrier, or creates it with {@code settings}; race-safe across processes. An
     * existing barrier keeps the grace and heartbeat interval it was created with.
     *
     * @throws CxcCapacityException if it was created with another capacity
     */
    public static EpochBarrier openOrCreate(Path path, Settings settings) {
        return TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
    }

    // -------------------------------------------------------------------------- membership

    /**
     * Joins this handle as a participant of this process: claims a free slot, or one whose
     * participant is dead or silent beyond the grace. From now on the others wait for it.
     *
     * @return the epoch to pass to the first {@link #await}
     * @throws IllegalStateException if this handle already joined
     * @throws CxcCapacityException if every slot is held by a live participant
     */
    public synchronized int join() {
        if (slot >= 0) {
            throw new IllegalStateException(
                    "this handle already joined " + file.path() + " as slot " + slot);
        }
        countOp(Op.REGISTER);
        long pid = Pids.current();
        for (int pass = 0; pass < 2; pass++) {
            for (int s = 0; s < capacity; s++) {
                long word = ownerWord(s);
                boolean candidate =
                        pass == 0 ? pid(word) == 0 : pid(word) != 0 && isSilentOrDead(s, word);
                if (candidate && claim(s, word, pid)) {
                    int epoch = currentEpochRaw();
                    lastCompleted = epoch - 1;
                    return epoch;
                }
            }
        }
        throw new CxcCapacityException(
                file.path()
                        + " is full: all "
                        + capacity
                        + " participant slots are held by live participants; create the barrier"
                        + " with a larger capacity (up to IN_FLIGHT_SLOTS = "
                        + HeartbeatTable.IN_FLIGHT_SLOTS
                        + ") in a new file, or leave() participants that are done");
    }

    private boolean claim(int s, long expected, long pid) {
        long word = OwnerRecord.ownerWord(pid, OwnerRecord.nextGeneration(expected));
        if (!OwnerRecord.claim(
                body,
                slotOffset(s),
                expected,
                word,
                OwnerRecord.startTimeOf(pid),
                System::nanoTime)) {
            return false;
        }
        ownerWord = word;
        slot = s;
        beatNow(System.nanoTime());
        return true;
    }

    /**
     * Leaves the barrier for a clean exit: waiters stop waiting for this participant at once.
     *
     * @return false if this handle had not joined or had been dropped
     */
    public synchronized boolean leave() {
        int s = slot;
        if (s < 0) {
            return false;
        }
        countOp(Op.UNREGISTER);
        slot = -1;
        boolean released = OwnerRecord.release(body, slotOffset(s), ownerWord);
        doorbell.ringIfAnnounced(); // the others may all have arrived: a woken one advances it
        return released;
    }

    /** Whether this handle is a participant (joined and not dropped). */
    public boolean isParticipant() {
        int s = slot;
        return s >= 0 && ownerWord(s) == ownerWord;
    }

    /**
     * Refreshes this participant's heartbeat. Call it at least once per heartbeat interval during a
     * phase longer than the grace, or the waiters drop this participant.
     *
     * @throws SlotLostException if this participant was dropped
     */
    public void beat() {
        int s = requireParticipant();
        countOp(Op.BEAT);
        OwnerRecord.beat(body, slotOffset(s), System.nanoTime());
    }

    private void beatNow(long now) {
        lastBeatNanos = now;
        OwnerRecord.beat(body, slotOffset(slot), now);
    }

    // -------------------------------------------------------------------------------- wait

    /**
     * Arrives at {@code myEpoch} and blocks until every live participant has arrived at it (the a
     * barrier's {@code wait}); then the epoch is {@code myEpoch + 1}.
     *
     * @throws IllegalArgumentException for a stale or future epoch
     * @throws SlotLostException if this participant was dropped
     */
    public void await(int myEpoch) {
        arriveAndAwait(myEpoch, 0, NO_DEADLINE, null);
    }

    /** {@link #await(int)}, giving up after {@code timeout}. */
    public void await(int myEpoch, Duration timeout) {
        arriveAndAwait(myEpoch, 0, deadline(timeout), timeout);
    }

    /**
     * Arrives at {@code myEpoch} and blocks until at least {@code quorum} participants (this one
     * included) have arrived at it; then the epoch advances, and the participants that had not
     * arrived pass that epoch at once when they do.
     */
    public void awaitQuorum(int myEpoch, int quorum) {
        checkQuorum(quorum);
        arriveAndAwait(myEpoch, quorum, NO_DEADLINE, null);
    }

    /** {@link #awaitQuorum(int, int)}, giving up after {@code timeout}. */
    public void awaitQuorum(int myEpoch, int quorum, Duration timeout) {
        checkQuorum(quorum);
        arriveAndAwait(myEpoch, quorum, deadline(timeout), timeout);
    }

    /**
     * @param quorum 0 for every live participant
     */
    private void arriveAndAwait(
            int myEpoch, int quorum, long deadline, @Nullable Duration timeout) {
        int s = requireParticipant();
        countOp(Op.WAIT);
        int current = currentEpochRaw();
        checkEpoch(myEpoch, current);
        if (myEpoch - current < 0) {
            lastCompleted = myEpoch; // the barrier passed this epoch without us
            return;
        }
        int base = slotOffset(s);
        int generation = generation(ownerWord);
        beatNow(System.nanoTime());
        body.setLongRelease(base + ARRIVAL_WORD_OFFSET, packArrivalWord(myEpoch, generation));
        // Two last arrivals each reading the other's slot before its store lands would both sleep
        // (store-load reordering): the fence keeps this store before the scan below.
        VarHandle.fullFence();
        long nextProbe = System.nanoTime() + PROBE_PERIOD_NANOS;
        WaitPhases phases = WaitPhases.DEFAULT; // the first sleep only: later ones sleep at once
        while (true) {
            if (currentEpochRaw() != myEpoch) {
                if (ownerWord(s) != ownerWord) {
                    // Dropped while it waited (frozen beyond the grace): the others went on
                    // without it, so it must not start the next phase as if in step with them.
                    slot = -1;
                    throw dropped(s);
                }
                lastCompleted = myEpoch; // released: only a full arrival advances it
                return;
            }
            long now = System.nanoTime();
            boolean probe = now - nextProbe >= 0;
            if (probe) {
                nextProbe = now + PROBE_PERIOD_NANOS;
            }
            int arrived = 0;
            int live = 0;
            for (int peer = 0; peer < capacity; peer++) {
                long word = ownerWord(peer);
                if (pid(word) == 0) {
                    continue;
                }
                if (hasArrived(peer, word, myEpoch)) {
                    arrived++;
                    live++;
                } else if (!(peer != s && dropIfSilentOrDead(peer, word, now, probe))) {
                    live++;
                }
            }
            if (quorum == 0 ? arrived >= live : arrived >= quorum) {
                // Any arrived participant may advance it: one CAS wins, and rings the sleepers.
                if (body.compareAndSetInt(CURRENT_EPOCH_OFFSET, myEpoch, myEpoch + 1)) {
                    doorbell.ringIfAnnounced();
                }
                continue;
            }
            if (ownerWord(s) != ownerWord) {
                slot = -1;
                throw dropped(s);
            }
            if (now - lastBeatNanos >= heartbeatIntervalNanos / 2) {
                beatNow(now);
            }
            if (timeout != null && now - deadline >= 0) {
                throw timedOut(myEpoch, quorum, timeout, arrived, live);
            }
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new CxcException(
                        "interrupted while waiting at epoch "
                                + Integer.toUnsignedString(myEpoch)
                                + " of "
                                + file.path()
                                + "; this participant has arrived, call await again to keep"
                                + " waiting");
            }
            long due = Math.min(nextProbe, lastBeatNanos + heartbeatIntervalNanos / 2);
            sleep(myEpoch, quorum, s, Math.max(due, now + SHORTEST_SLEEP_NANOS), deadline, phases);
            phases = WaitPhases.SLEEP_AT_ONCE;
        }
    }

    /**
     * Sleeps on the doorbell until the epoch moves, this participant is dropped, the arrivals
     * complete it (a leave rang), or {@code due}: announced all the while.
     */
    private void sleep(int myEpoch, int quorum, int s, long due, long deadline, WaitPhases w) {
        doorbell.await(
                w,
                () ->
                        currentEpochRaw() != myEpoch
                                || ownerWord(s) != ownerWord
                                || releasable(myEpoch, quorum)
                                || System.nanoTime() - due >= 0,
                Duration.ofNanos(Math.max(deadline - System.nanoTime(), 0)),
                PROBE_PERIOD);
    }

    /** Whether the arrivals complete {@code epoch} among the joined; reads only, drops no one. */
    private boolean releasable(int epoch, int quorum) {
        int arrived = 0;
        int joined = 0;
        for (int peer = 0; peer < capacity; peer++) {
            long word = ownerWord(peer);
            if (pid(word) != 0) {
                joined++;
                if (hasArrived(peer, word, epoch)) {
                    arrived++;
                }
            }
        }
        return quorum == 0 ? arrived >= joined : arrived >= quorum;
    }

    private boolean hasArrived(int peer, long ownerWord, int epoch) {
        long arrival = body.getLongAcquire(slotOffset(peer) + ARRIVAL_WORD_OFFSET);
        return arrivalGeneration(arrival) == generation(ownerWord)
                && arrivalEpoch(arrival) - epoch >= 0;
    }

    /** Drops {@code peer} if it is silent beyond the grace or (when probing) provably dead. */
    private boolean dropIfSilentOrDead(int peer, long word, long now, boolean probe) {
        int record = slotOffset(peer);
        boolean drop =
                now - OwnerRecord.heartbeat(body, record) > graceNanos
                        || (probe && OwnerRecord.isDead(body, record, word));
        // From exactly the word judged: a peer that rejoined meanwhile is not dropped.
        return drop && OwnerRecord.release(body, record, word);
    }

    private boolean isSilentOrDead(int peer, long word) {
        return OwnerRecord.judge(body, slotOffset(peer), word, System.nanoTime(), graceNanos)
                .isReclaimable();
    }

    private void checkEpoch(int myEpoch, int current) {
        if (myEpoch - lastCompleted <= 0) {
            throw new IllegalArgumentException(
                    "stale epoch "
                            + Integer.toUnsignedString(myEpoch)
                            + ": this participant already passed it (the barrier of "
                            + file.path()
                            + " is at epoch "
                            + Integer.toUnsignedString(current)
                            + "); pass "
                            + Integer.toUnsignedString(lastCompleted + 1)
                            + ", one more than the epoch of the last release");
        }
        if (myEpoch - current > 0) {
            throw new IllegalArgumentException(
                    "future epoch "
                            + Integer.toUnsignedString(myEpoch)
                            + ": the barrier of "
                            + file.path()
                            + " is only at epoch "
                            + Integer.toUnsignedString(current)
                            + "; pass the epoch join() returned, plus one per release");
        }
    }

    private void checkQuorum(int quorum) {
        if (quorum < 1 || quorum > capacity) {
            throw new IllegalArgumentException(
                    "quorum must be 1.." + capacity + " (the capacity), got " + quorum);
        }
    }

    private static long deadline(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, got " + timeout);
        }
        return System.nanoTime() + Deadline.nanos(timeout); // an endless one: about 73 years
    }

    private CxcTimeoutException timedOut(
            int epoch, int quorum, Duration timeout, int arrived, int live) {
        List<String> missing = new ArrayList<>();
        long now = System.nanoTime();
        for (int peer = 0; peer < capacity; peer++) {
            long word = ownerWord(peer);
            if (pid(word) != 0 && !hasArrived(peer, word, epoch)) {
                int base = slotOffset(peer);
                long arrival = body.getLongAcquire(base + ARRIVAL_WORD_OFFSET);
                long silentMillis =
                        (now - body.getLongAcquire(base + HEARTBEAT_NANOS_OFFSET)) / 1_000_000;
                missing.add(
                        "slot "
                                + peer
                                + " (PID "
                                + pid(word)
                                + ", last heartbeat "
                                + silentMillis
                                + " ms ago"
                                + (arrivalGeneration(arrival) == generation(word)
                                        ? ", last arrived at epoch "
                                                + Integer.toUnsignedString(arrivalEpoch(arrival))
                                        : ", not arrived since joining")
                                + ")");
            }
        }
        return new CxcTimeoutException(
                "epoch "
                        + Integer.toUnsignedString(epoch)
                        + " of "
                        + file.path()
                        + " was not released within "
                        + timeout.toMillis()
                        + " ms: "
                        + arrived
                        + " of "
                        + (quorum == 0 ? live + " live participants" : "a quorum of " + quorum)
                        + " arrived; not arrived: "
                        + String.join(", ", missing)
                        + ". This participant stays arrived; call await again to keep waiting");
    }

    private SlotLostException dropped(int s) {
        return new SlotLostException(
                "this participant (slot "
                        + s
                        + " of "
                        + file.path()
                        + ") was dropped: its heartbeat was silent for more than the grace of "
                        + graceEpochs
                        + " × "
                        + heartbeatIntervalNanos / 1_000_000
                        + " ms, or it left; join() again");
    }

    private int requireParticipant() {
        int s = slot;
        if (s < 0) {
            throw new IllegalStateException(
                    "this handle is not a participant of " + file.path() + "; call join() first");
        }
        if (ownerWord(s) != ownerWord) {
            slot = -1;
            throw dropped(s);
        }
        return s;
    }

    // ------------------------------------------------------------------------------- reads

    /** The epoch the barrier waits at now. */
    public int currentEpoch() {
        countOp(Op.READ);
        return currentEpochRaw();
    }

    private int currentEpochRaw() {
        return body.getIntVolatile(CURRENT_EPOCH_OFFSET);
    }

    /**
     * Participants whose heartbeat is within the grace (including this one, if joined). Reads
     * shared memory only; a killed participant counts until a waiter drops it or its grace ends.
     */
    public int livePeerCount() {
        countOp(Op.READ);
        long now = System.nanoTime();
        int live = 0;
        for (int peer = 0; peer < capacity; peer++) {
            if (pid(ownerWord(peer)) != 0
                    && now - body.getLongAcquire(slotOffset(peer) + HEARTBEAT_NANOS_OFFSET)
                            <= graceNanos) {
                live++;
            }
        }
        return live;
    }

    /** Every joined participant, in slot order. Reads shared memory only. */
    public List<BarrierParticipant> participants() {
        countOp(Op.SCAN);
        long now = System.nanoTime();
        List<BarrierParticipant> participants = new ArrayList<>();
        for (int peer = 0; peer < capacity; peer++) {
            long word = ownerWord(peer);
            if (pid(word) == 0) {
                continue;
            }
            int base = slotOffset(peer);
            long arrival = body.getLongAcquire(base + ARRIVAL_WORD_OFFSET);
            participants.add(
                    new BarrierParticipant(
                            peer,
                            pid(word),
                            generation(word),
                            arrivalGeneration(arrival) == generation(word)
                                    ? OptionalInt.of(arrivalEpoch(arrival))
                                    : OptionalInt.empty(),
                            Math.max(0, now - body.getLongAcquire(base + HEARTBEAT_NANOS_OFFSET))));
        }
        return participants;
    }

    /** This handle's participant slot, or -1 if it has not joined. */
    public int slot() {
        return slot;
    }

    public int capacity() {
        return capacity;
    }

    public Duration heartbeatInterval() {
        return Duration.ofNanos(heartbeatIntervalNanos);
    }

    public int graceEpochs() {
        return graceEpochs;
    }

    /** {@code graceEpochs × heartbeatInterval}: how long a silent participant is waited for. */
    public Duration grace() {
        return Duration.ofNanos(graceNanos);
    }

    private long ownerWord(int s) {
        return body.getLongVolatile(slotOffset(s) + OWNER_WORD_OFFSET);
    }

    // ----------------------------------------------------------------------------- lifecycle

    /**
     * Leaves the barrier (if joined), so no one waits for this participant, frees the doorbell
     * slots its waits kept, and closes.
     */
    @Override
    public void close() {
        if (!file.isClosed()) {
            leave();
            doorbell.close();
            file.close();
        }
    }

    /**
     * {@link #describe()} with each participant judged: stale once silent longer than the grace,
     * dead once its process is gone. The barrier's slot keeps no start time a reused PID could be
     * told apart by; epochs play no part ({@code graceEpochs} is unused).
     */
    @Override
    public Map<String, Object> inspect(long graceEpochs) {
        long graceMillis = grace().toMillis();
        return StateMaps.withEach(
                describe(),
                "participants",
                p -> {
                    OwnerStatus status;
                    if (StateMaps.number(p.get("silentMillis")) > graceMillis) {
                        status = OwnerStatus.STALE;
                    } else if (ProcessProbe.status(
                                    StateMaps.number(p.get("pid")), ProcessProbe.UNKNOWN_START_TIME)
                            == ProcessStatus.DEAD) {
                        status = OwnerStatus.DEAD;
                    } else {
                        status = OwnerStatus.LIVE;
                    }
                    return StateMaps.orderedOf(
                            "status", status.name(), "alive", status == OwnerStatus.LIVE);
                });
    }

    @Override
    public Map<String, Object> describe() {
        long now = System.nanoTime();
        List<Map<String, Object>> joined = new ArrayList<>();
        for (int peer = 0; peer < capacity; peer++) {
            long word = ownerWord(peer);
            if (pid(word) == 0) {
                continue;
            }
            long arrival = body.getLongAcquire(slotOffset(peer) + ARRIVAL_WORD_OFFSET);
            joined.add(
                    fields(
                            "slot",
                            peer,
                            "pid",
                            pid(word),
                            "arrivedAt",
                            arrivalGeneration(arrival) == generation(word)
                                    ? Integer.toUnsignedLong(arrivalEpoch(arrival))
                                    : -1L,
                            "silentMillis",
                            Math.max(0, now - OwnerRecord.heartbeat(body, slotOffset(peer)))
                                    / 1_000_000));
        }
        return fields(
                "capacity",
                capacity,
                "epoch",
                Integer.toUnsignedLong(currentEpochRaw()),
                "heartbeatIntervalMillis",
                heartbeatIntervalNanos / 1_000_000,
                "graceEpochs",
                graceEpochs,
                "participants",
                List.copyOf(joined),
                "sleepingWaiters",
                doorbell.announcedCount());
    }
}
