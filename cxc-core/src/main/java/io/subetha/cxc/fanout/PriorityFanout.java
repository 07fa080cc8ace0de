package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.FanoutLevels.as;
import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.participant.ParticipantRecord;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.wait.Deadline;
import io.subetha.cxc.wake.Doorbell;
import io.subetha.cxc.wake.WaitPhases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Multi-priority work distribution across processes: producers {@link #submit} an item at a
 * priority {@code 0 .. MAX_PRIORITIES - 1}, consumers take from the highest non-empty level, FIFO
 * within a level. Each level is a bounded ring of {@code capacityPerPriority} slots. Layout: {@link
 * PriorityFanoutDescriptor}.
 *
 * <p><b>Two ways to take.</b> {@link #drainHighest}/{@link #drainPriority} deliver each item to
 * exactly one caller and forget it (at most once: a consumer killed inside a drain loses the items
 * it had taken). {@link #claimHighest} delivers at least once: the items stay in their slots, owned
 * by this handle, until {@link FanoutClaim#ack()}; a claim whose owner died (seen through {@code
 * /proc}) or went silent beyond the grace returns to its level on the next {@link #scan()}, ahead
 * of the level's later items and in its original order, and the late owner's {@code ack} is
 * refused.
 *
 * <p><b>Participants.</b> A handle that writes or takes first claims a participant record through
 * {@link OwnerRecord} (PID, start time, generation, heartbeat in {@code CLOCK_MONOTONIC} ns); every
 * slot it holds names that record and generation. The handle beats as it works; a consumer that
 * holds a claim longer than the grace calls {@link #heartbeat()}.
 *
 * <p><b>Protocol: one CAS per step, on the slot word.</b>
 *
 * <ul>
 *   <li><b>Submit.</b> Read the tail {@code t}; CAS slot {@code t} from {@code EMPTY(lap t)} to
 *       {@code WRITING(me)}; CAS the tail to {@code t + 1} (anyone who sees the slot taken helps);
 *       write the payload; CAS to {@code FULL}. Killed after the slot CAS, the slot stays {@code
 *       WRITING} under a dead participant: a scan marks it {@code ABANDONED} and takers step over
 *       it (the submit never returned, so nothing acknowledged is lost). A slot of the previous lap
 *       still held is "full": {@link CxcCapacityException} or {@code false}.
 *   <li><b>Take.</b> At the head {@code h}: copy the payload of the {@code FULL} slot, then CAS the
 *       slot from the word copied under straight to {@code EMPTY} of the next lap (drain) or to
 *       {@code CLAIMED(me)} (claim), then CAS the head to {@code h + 1} (anyone who sees the slot
 *       taken, or of the next lap already, helps). The CAS is the take's one step: a drain that
 *       returned its item has given its slot's room back, and a copy made while another taker won
 *       the slot is dropped with the failed CAS. A claim leaves the slot until {@code ack} frees
 *       it. Killed (or silent) while {@code CLAIMED}: a scan CASes it back to {@code FULL} behind
 *       the head, and counts it in the level's returned-items hint; takers take such items first,
 *       lowest position first.
 *   <li><b>No inversion, at one instant.</b> Takers read the levels from the highest. A take from a
 *       level below others it found with nothing committed first reserves its slot ({@code
 *       TAKING(me)}), then reads those levels again ({@link LevelsAbove}): unchanged, the take
 *       stands (the reservation's CAS is the instant at which no higher item existed) and a second
 *       CAS completes it; changed, it gives the slot back as it was and starts from the top. A
 *       taker or producer that meets a reservation waits the few reads it lasts, then undoes it
 *       (back to {@code FULL}), which makes that take fail: nobody passes over an item whose take
 *       might still be undone, and nobody waits on a stopped taker. When a level's head is still
 *       being written while later positions are reserved, a taker spins briefly and then returns
 *       nothing rather than a lower level's item. (A producer stopped mid-write, e.g. by {@code
 *       SIGSTOP}, holds its level until it resumes or dies.)
 *   <li><b>Repair is by CAS from the judged word.</b> {@link #scan()} judges each held participant
 *       record; a dead one's {@code WRITING} and {@code CLAIMED} slots are repaired as above, its
 *       {@code TAKING} reservations undone, and its record released; a stale one's {@code CLAIMED}
 *       slots are returned (a stale writer or taker may still be copying its payload, so its other
 *       slots are left alone). A scanner killed midway leaves the record held by a dead PID: the
 *       next scan finishes.
 * </ul>
 *
 * <p>Claims and drains scan on their own at most every {@link #SCAN_INTERVAL}. The returned-items
 * hint is raised before the CAS that returns an item and lowered after the CAS that takes it, so a
 * crash can only leave it too high, which costs a taker's look behind the head, never an item. A
 * handle whose look found nothing looks again only once the hint differs from what that look read:
 * an item returned since and not yet taken keeps it above that. (A return whose raise came before
 * the look read the hint and whose CAS came after the look passed its position is seen at the
 * hint's next change or the handle's next scan.)
 *
 * <p><b>Waiting for an item.</b> {@link #claimHighest(int, Duration)} sleeps on the file's {@link
 * Doorbell} until there is something to take: it notes every level's head, tail, head slot word and
 * returned-items hint, looks, and if it found nothing announces itself and sleeps until one of
 * those words moves. A submit rings after the CAS that commits its item (with nobody announced, a
 * fence and one read), and so do a scan that returned claims and a {@link FanoutClaim#release}. A
 * ring lost (its ringer killed, a waiter killed while announced) costs a waiter one safety look:
 * each sleep lasts at most {@link #SCAN_INTERVAL}, after which the waiter looks (and scans, so a
 * dead claimer's items come back even while every process sleeps).
 *
 * <p><b>Attempts.</b> Each slot keeps how many claims of its item were made, in every process
 * ({@link FanoutClaim#attempt}); the claimer raises it after its claim's CAS, keyed by the lap it
 * claimed, so a claimer whose claim was returned meanwhile cannot touch a later item's count
 * ({@link FanoutAttempts}).
 *
 * <p>Thread-safe: a handle's threads share its participant record.
 */
public final class PriorityFanout<T> extends MappedPrimitive {

    /** Levels: priorities {@code 0 .. MAX_PRIORITIES - 1}, higher drains first. */
    public static final int MAX_PRIORITIES = PriorityFanoutDescriptor.MAX_PRIORITIES;

    /** How long a participant may stay silent before its claims return, unless set at creation. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);

    /** The longest a claim or drain waits between two scans of its own. */
    public static final Duration SCAN_INTERVAL = Duration.ofMillis(100);

    /**
     * How long an idle taker sleeps without scanning while another taker of its handle scans: idle
     * takers wake about once a second, not ten times each, and one of them keeps the scans.
     */
    static final long OTHERS_SCAN_CHECK_NANOS = 1_000_000_000;

    /** The ops a fan-out counts. */
    public enum Op implements OpKind {
        SUBMIT(1),
        DRAIN_HIGHEST(2),
        DRAIN_PRIORITY(3),
        CLAIM(4),
        ACK(5),
        SCAN(6);

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
     * A fan-out's creation settings.
     *
     * @param capacityPerPriority items each level holds, 1..{@value
     *     PriorityFanoutDescriptor#MAX_CAPACITY_PER_PRIORITY}
     * @param codec the items' codec, at most {@value PriorityFanoutDescriptor#MAX_PAYLOAD} bytes
     * @param grace how long a participant may stay silent before its claims return to their level
     */
    public record Settings<T>(int capacityPerPriority, FixedCodec<T> codec, Duration grace) {
        public Settings {
            CxcSettingsException.requireInRange(
                    "capacityPerPriority",
                    capacityPerPriority,
                    1,
                    MAX_CAPACITY_PER_PRIORITY,
                    " items per level");
            if (codec.size() < 0 || codec.size() > MAX_PAYLOAD) {
                throw new CxcSettingsException(
                        "codec",
                        "codec must encode at most "
                                + MAX_PAYLOAD
                                + " bytes, got "
                                + codec.size()
                                + " ("
                                + codec.describe()
                                + ")");
            }
            if (grace.isNegative() || grace.isZero() || grace.compareTo(Duration.ofDays(1)) > 0) {
                throw new CxcSettingsException(
                        "grace", "grace must be more than 0 and at most 1 day, got " + grace);
            }
            CxcSettingsException.requireBodyFits(
                    "capacityPerPriority",
                    MAX_PRIORITIES
                            + " levels of capacityPerPriority "
                            + capacityPerPriority
                            + " "
                            + codec.size()
                            + "-byte items",
                    BODY_LAYOUT.bodyLength(capacityPerPriority, slotStride(codec.size())),
                    HeaderDescriptor.MAX_BODY_LENGTH);
        }

        public Settings(int capacityPerPriority, FixedCodec<T> codec) {
            this(capacityPerPriority, codec, DEFAULT_GRACE);
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final PrimitiveType<PriorityFanout<?>, Settings<?>> TYPE =
            (PrimitiveType)
                    PrimitiveType.<PriorityFanout, Settings>define(
                                    PrimitiveKinds.PRIORITY_FANOUT, Settings.class)
                            .layoutVersion(LAYOUT_VERSION)
                            .bodyMagic(MAGIC)
                            .ops(Op.class)
                            .shape(
                                    s ->
                                            new PrimitiveType.Shape(
                                                    s.capacityPerPriority(),
                                                    slotStride(s.codec().size())),
                                    BODY_LAYOUT)
                            .codecs(s -> List.of(s.codec()))
                            .initialiser(
                                    (body, s) ->
                                            body.setLongPlain(
                                                    GRACE_NANOS_OFFSET, s.grace().toNanos()))
                            .bodyCheck(PriorityFanout::bodyProblem)
                            .defaults(new Settings<>(1024, FixedCodec.INT64))
                            .construct(
                                    (file, settings, options) ->
                                            new PriorityFanout(file, settings));

    private static final long OWN_PID = Pids.current();

    private final int capacity;
    private final int stride;
    private final int payloadSize;
    private final long graceNanos;
    private final FixedCodec<T> codec;
    // This handle's participant record, claimed when it first writes or takes.
    private final ParticipantRecord participant;
    private final FanoutLevels levels;
    private final LevelTakes<T> takes;
    private final Doorbell doorbell;
    private volatile long lastScan = System.nanoTime();

    private PriorityFanout(MappedFile file, Settings<T> settings) {
        super(file, TYPE);
        this.codec = settings.codec();
        // Both checked against BODY_LAYOUT and the real file size on open.
        this.capacity = file.header().capacity();
        this.stride = file.header().slotSize();
        this.payloadSize = body.getIntAcquire(PrimitiveType.CODEC_SIZES_OFFSET);
        if (slotStride(payloadSize) != stride) {
            throw TYPE.corrupt(
                    file.path(),
                    "it declares "
                            + Integer.toUnsignedString(payloadSize)
                            + "-byte items in "
                            + stride
                            + "-byte slots, which cannot hold them");
        }
        this.graceNanos = body.getLongAcquire(GRACE_NANOS_OFFSET);
        this.participant =
                new ParticipantRecord(
                        body,
                        MAX_PARTICIPANTS,
                        PriorityFanoutDescriptor::participantOffset,
                        graceNanos,
                        OWN_PID,
                        file.path(),
                        this::requireOpen,
                        this::scan);
        this.levels = new FanoutLevels(body, capacity, stride, this::damaged);
        this.takes = new LevelTakes<>(levels, codec, participant);
        this.doorbell = new Doorbell(body, DOORBELL_OFFSET, file.path());
    }

    private static @Nullable String bodyProblem(AtomicBuffer body) {
        long grace = body.getLongAcquire(GRACE_NANOS_OFFSET);
        if (grace <= 0 || grace > Duration.ofDays(1).toNanos()) {
            return "it declares a grace of " + grace + " ns, outside 1 ns .. 1 day";
        }
        return null;
    }

    // ---------------------------------------------------------------------------- factories

    /**
     * Opens an existing fan-out created with {@code settings}' capacity and codec layout (its grace
     * is the one the file records).
     */
    public static <T> PriorityFanout<T> open(Path path, Settings<T> settings) {
        return TYPE.open(path, settings);
    }

    /** Opens the fan-out, or creates it with {@code settings}; race-safe across processes. */
    public static <T> PriorityFanout<T> openOrCreate(Path path, Settings<T> settings) {
        return TYPE.openOrCreate(path, settings);
    }

    // ------------------------------------------------------------------------------ submit

    /**
     * Appends {@code item} to level {@code priority}.
     *
     * @throws CxcCapacityException if that level already holds {@code capacityPerPriority} items
     */
    public void submit(int priority, T item) {
        if (!trySubmit(priority, item)) {
            throw new CxcCapacityException(
                    "priority level "
                            + priority
                            + " of "
                            + file.path()
                            + " is full: it holds "
                            + capacity
                            + " items (capacityPerPriority), taken or not yet acknowledged;"
                            + " drain or ack first, or create the fan-out with a larger"
                            + " capacityPerPriority in a new file");
        }
    }

    /** Appends {@code item} to level {@code priority}; false if that level is full. */
    public boolean trySubmit(int priority, T item) {
        checkPriority("priority", priority);
        if (item == null) {
            throw new IllegalArgumentException("item must not be null");
        }
        enter();
        try {
            return submitEntered(priority, item);
        } finally {
            participant.exit();
        }
    }

    private boolean submitEntered(int priority, T item) {
        FixedCodec<T> c = codec;
        countOp(Op.SUBMIT);
        long me = participant.tag();
        int level = levelOffset(priority);
        int spins = 0;
        while (true) {
            long t = levels.position(priority, TAIL_OFFSET, "tail");
            long lap = t / capacity;
            int slot = levels.slotOffset(priority, t);
            long word = body.getLongVolatile(slot);
            if (word == empty(lap)) {
                long writing = as(lap, WRITING, me);
                if (!body.compareAndSetLong(slot, word, writing)) {
                    continue;
                }
                body.compareAndSetLong(level + TAIL_OFFSET, t, t + 1);
                try {
                    c.write(body, slot + PAYLOAD_OFFSET, item);
                } catch (RuntimeException e) {
                    // Our own WRITING slot: step aside, or it would hold the level forever.
                    body.compareAndSetLong(slot, writing, pack(lap, ABANDONED, 0, 0));
                    doorbell.ringIfAnnounced(); // the items behind it may be taken now
                    throw e;
                }
                body.compareAndSetLong(slot, writing, as(lap, FULL, me));
                doorbell.ringIfAnnounced();
                return true;
            }
            if (lapTag(word) == (lap & 0xFFFF_FFFFL)) {
                body.compareAndSetLong(level + TAIL_OFFSET, t, t + 1); // reserved by another
            } else if (lapTag(word) == ((lap - 1) & 0xFFFF_FFFFL)) {
                if (state(word) == TAKING) {
                    // Full unless that take stands: wait for it, or undo it, before saying so.
                    levels.awaitOrUndoTake(slot, word, lap - 1, ++spins);
                } else if (body.getLongVolatile(level + TAIL_OFFSET) == t) {
                    return false; // the previous lap's item is still held
                }
            } else if (body.getLongVolatile(level + TAIL_OFFSET) == t) {
                // A slot holds its position's lap or the one before while the tail names it;
                // anything else would be read again and again, forever.
                throw levels.lapProblem(priority, "tail", t, lapTag(word));
            }
        }
    }

    // ------------------------------------------------------------------------------- take

    /** Up to {@code max} items from the highest non-empty level, taken at most once. */
    public List<T> drainHighest(int max) {
        checkMax(max);
        countOp(Op.DRAIN_HIGHEST);
        List<T> out = new ArrayList<>();
        enter();
        try {
            scanIfDue();
            takes.takeHighest(max, false, out, null);
        } finally {
            participant.exit();
        }
        return out;
    }

    /** Up to {@code max} items from level {@code priority}, taken at most once. */
    public List<T> drainPriority(int priority, int max) {
        checkPriority("priority", priority);
        checkMax(max);
        countOp(Op.DRAIN_PRIORITY);
        List<T> out = new ArrayList<>();
        enter();
        try {
            scanIfDue();
            takes.takeFrom(priority, max, false, out, null, null);
        } finally {
            participant.exit();
        }
        return out;
    }

    /**
     * Claims up to {@code max} items from the highest non-empty level: they stay this handle's
     * until {@link FanoutClaim#ack()}, and return to their level if this process dies or stays
     * silent beyond the grace first. An empty claim when every level is empty.
     */
    public FanoutClaim<T> claimHighest(int max) {
        checkMax(max);
        countOp(Op.CLAIM);
        List<T> items = new ArrayList<>();
        List<long[]> held = new ArrayList<>();
        int level;
        enter();
        try {
            scanIfDue();
            level = takes.takeHighest(max, true, items, held);
        } finally {
            participant.exit();
        }
        return new FanoutClaim<>(this, level, items, held);
    }

    /**
     * Claims up to {@code max} items from the highest non-empty level as {@link #claimHighest(int)}
     * does, waiting up to {@code timeout} for one if every level is empty: asleep on the file's
     * doorbell, woken by the submit or the return that gives it an item, in any process. An empty
     * claim if none came within {@code timeout}, or the calling thread was interrupted (its flag
     * stays set).
     *
     * @throws IllegalStateException if this handle is closed, or closes while waiting
     */
    public FanoutClaim<T> claimHighest(int max, Duration timeout) {
        checkMax(max);
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be 0 or more, got " + timeout);
        }
        long deadline = System.nanoTime() + Deadline.nanos(timeout);
        // Spin and yield before the first sleep only: a submit just behind this claim is caught
        // without a system call, while an idle taker's looks at each scan cost no spinning.
        WaitPhases phases = WaitPhases.DEFAULT;
        // Whether another taker of this handle scanned while this one slept through the scan's
        // time: it then leaves the scans to that one, looking every OTHERS_SCAN_CHECK that they
        // go on (the one that scans keeps the pace; a sleeper that finds them stopped scans).
        boolean othersScan = false;
        while (true) {
            // Seen before the look: whatever makes an item takeable after it moves one of these.
            LevelsAbove seen = LevelsAbove.all(levels);
            FanoutClaim<T> claim = claimHighest(max);
            long scanned = lastScan;
            long left = deadline - System.nanoTime();
            if (!claim.isEmpty() || left <= 0 || Thread.currentThread().isInterrupted()) {
                return claim;
            }
            // At most a scan interval: the next look scans, and returns a dead claimer's items.
            long bound = othersScan ? OTHERS_SCAN_CHECK_NANOS : SCAN_INTERVAL.toNanos();
            doorbell.await(
                    phases,
                    () -> isClosed() || !seen.unchanged(body),
                    Duration.ofNanos(Math.min(left, bound)));
            if (System.nanoTime() - (scanned + SCAN_INTERVAL.toNanos()) > 0) {
                othersScan = lastScan != scanned;
            }
            phases = WaitPhases.SLEEP_AT_ONCE;
        }
    }

    /** Acknowledges what {@code claim} still holds; the count of items it no longer held. */
    int ack(List<long[]> held) {
        countOp(Op.ACK);
        int refused = 0;
        for (long[] h : held) {
            if (!body.compareAndSetLong((int) h[0], h[1], empty(h[2] + 1))) {
                refused++;
            }
        }
        return refused;
    }

    /** Returns what {@code claim} still holds to its level at once. */
    int release(List<long[]> held, int priority) {
        int returned = 0;
        int level = levelOffset(priority);
        for (long[] h : held) {
            if (levels.returnToLevel(level, (int) h[0], h[1], h[2])) {
                returned++;
            }
        }
        if (returned > 0) {
            doorbell.ringIfAnnounced();
        }
        return returned;
    }

    // ------------------------------------------------------------------------------- scan

    /** What one {@link #scan()} did. */
    public record ScanReport(
            int deadParticipants, int returnedClaims, int abandonedWrites, int undoneTakes) {
        public boolean changedAnything() {
            return deadParticipants + returnedClaims + abandonedWrites + undoneTakes > 0;
        }
    }

    /**
     * Judges every held participant record and repairs what dead or silent ones hold: a dead one's
     * half-written items are stepped over, its reservations undone, its claims returned, its record
     * freed; a silent one's claims are returned.
     */
    public ScanReport scan() {
        countOp(Op.SCAN);
        lastScan = System.nanoTime();
        int[] repaired = new int[3];
        int dead =
                participant.judgeAll(
                        (record, generation, isDead) ->
                                sweep(record, generation, isDead, repaired));
        takes.forgetLooks(); // a look missed by a return racing it: look again
        ScanReport report = new ScanReport(dead, repaired[0], repaired[1], repaired[2]);
        if (report.changedAnything()) {
            doorbell.ringIfAnnounced(); // returned items, or a level no longer held up
        }
        return report;
    }

    private void sweep(int r, long key, boolean dead, int[] repaired) {
        long gen = generationTag(key);
        for (int priority = 0; priority < MAX_PRIORITIES; priority++) {
            int level = levelOffset(priority);
            for (int i = 0; i < capacity; i++) {
                int slot = levels.slotOffset(priority, i);
                long word = body.getLongVolatile(slot);
                int state = state(word);
                if (participant(word) != r
                        || generation(word) != gen
                        || (state != WRITING && state != TAKING && state != CLAIMED)) {
                    continue;
                }
                long lap = lapTag(word);
                long fullLap = levels.fullLap(level, lap);
                if (state == CLAIMED) {
                    if (levels.returnToLevel(level, slot, word, fullLap)) {
                        repaired[0]++;
                    }
                } else if (dead && state == WRITING) {
                    if (body.compareAndSetLong(slot, word, pack(fullLap, ABANDONED, 0, 0))) {
                        repaired[1]++;
                    }
                } else if (dead) {
                    // A reservation its taker never completed: the item was not taken.
                    if (body.compareAndSetLong(slot, word, pack(fullLap, FULL, 0, 0))) {
                        repaired[2]++;
                    }
                }
            }
        }
    }

    private void scanIfDue() {
        long now = System.nanoTime();
        if (now - lastScan > SCAN_INTERVAL.toNanos()) {
            scan();
        }
    }

    // ------------------------------------------------------------------------ participants

    /**
     * Beats this handle's participant record: a consumer holding a claim for longer than the grace
     * calls this, or its claim returns to the level.
     */
    public void heartbeat() {
        participant.heartbeat();
    }

    // ------------------------------------------------------------------------------ reads

    /**
     * Items in level {@code priority} not yet taken: reserved, being written, ready or returned (a
     * moment's view while others work).
     */
    public long depth(int priority) {
        passFileCheck();
        checkPriority("priority", priority);
        int level = levelOffset(priority);
        long head = body.getLongVolatile(level + HEAD_OFFSET);
        long tail = body.getLongVolatile(level + TAIL_OFFSET);
        // The returned-items hint may be left too high by a crash (it costs takers a look, never an
        // item): when it says there are any, count the returned items themselves.
        long hint = body.getLongVolatile(level + RETURNED_OFFSET);
        long returned = hint > 0 ? levels.returnedBehind(priority, head) : 0;
        return Math.max(0, tail - head) + returned;
    }

    public int capacityPerPriority() {
        return capacity;
    }

    public Duration grace() {
        return Duration.ofNanos(graceNanos);
    }

    @Override
    public Map<String, Object> describe() {
        List<Long> depths = new ArrayList<>();
        long total = 0;
        for (int p = 0; p < MAX_PRIORITIES; p++) {
            long d = depth(p);
            depths.add(d);
            total += d;
        }
        int held = participant.held();
        return fields(
                "capacityPerPriority", capacity,
                "itemBytes", payloadSize,
                "depth", total,
                "depthByPriority", List.copyOf(depths),
                "participants", held,
                "waiters", doorbell.announcedCount(),
                "graceMillis", Duration.ofNanos(graceNanos).toMillis());
    }

    /**
     * Returns this handle's claims to their levels and frees its participant record. The mapping
     * stays valid until the handle is unreachable; a submit or a take on it afterwards is an {@link
     * IllegalStateException} (it would take a record no close frees). An operation of this handle
     * still in flight on another thread (a submit between its two CASes, a take copying its item)
     * ends first: the last of them returns the claims and frees the record on close's behalf, so no
     * slot is left naming a free record (see {@link ParticipantRecord}); close itself never waits.
     */
    @Override
    public synchronized void close() {
        boolean wasOpen = !isClosed();
        super.close(); // first: an operation refused from here on is refused as closed
        doorbell.close(); // ends this handle's waits; their next look is refused as closed
        if (wasOpen) {
            participant.leave(
                    (record, generation, dead) -> sweep(record, generation, dead, new int[3]));
        }
    }

    /** Starts an operation of this handle, or refuses it once the handle is closed. */
    private void enter() {
        passFileCheck();
        if (!participant.enter()) {
            requireOpen();
            throw new IllegalStateException(file.path() + " is closing: open a new handle");
        }
    }

    // ----------------------------------------------------------------------------- helpers

    private static void checkPriority(String argument, int priority) {
        if (priority < 0 || priority >= MAX_PRIORITIES) {
            throw new IllegalArgumentException(
                    argument
                            + " must be 0.."
                            + (MAX_PRIORITIES - 1)
                            + " (MAX_PRIORITIES - 1), got "
                            + priority);
        }
    }

    private static void checkMax(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be 1 or more, got " + max);
        }
    }
}
