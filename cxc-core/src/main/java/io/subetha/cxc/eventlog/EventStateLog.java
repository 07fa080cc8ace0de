package io.subetha.cxc.eventlog;

import static io.subetha.cxc.eventlog.EventStateLogDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.wake.Doorbell;
import io.subetha.cxc.wake.DoorbellWaiter;
import io.subetha.cxc.wake.WaitPhases;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * An append-only event log with fold semantics, shared by every process that maps its file:
 * producers anywhere {@linkplain #emit emit} events of type {@code E}; one drainer at a time
 * {@linkplain #drainAndFold folds} the pending events, in sequence order, into the log's
 * materialised state {@code S}, which any process {@linkplain #readCurrent reads}; any number of
 * {@linkplain #reader() readers} follow the events without consuming them (each observer projects
 * its own state, the read side of CQRS). The log retains the last {@code capacity} events; at most
 * {@code capacity} may be pending (emitted, not yet folded). Layout: {@link
 * EventStateLogDescriptor}.
 *
 * <h2>Protocol</h2>
 *
 * <b>Emit.</b> An emitter reads the reserve cursor {@code t} and the slot of {@code t}; if the
 * slot's owner key is the previous lap's and {@code t} is less than a capacity past the folded read
 * position, it reserves {@code t} by an {@link OwnerRecord#claim} of the slot (its PID under {@code
 * t}'s lap key). That CAS is the reservation: two emitters never win the same sequence, and the
 * winner's PID and start time say whom the reservation waits for. It then advances the cursor (any
 * emitter that finds the cursor's slot reserved advances it for it), writes the event with plain
 * stores and publishes it with one release store of the content word ({@code t + 1}). Per producer,
 * sequences rise in program order; the sequence is the global order folding follows.
 *
 * <ul>
 *   <li>Killed before the claim: nothing changed.
 *   <li>Killed after the claim, before the content word: the sequence is reserved by a dead PID;
 *       the drainer that reaches it judges the owner dead through {@code /proc}, frees the record
 *       (one CAS from exactly the judged word) and marks the sequence a gap. A reader never sees
 *       the half-written bytes: they are published only by the content word, which is never
 *       written.
 *   <li>Killed after the content word: the event is whole and is folded like any other. The drainer
 *       reads the content word again after judging the owner dead (a dead process writes no more,
 *       so that read is final): an emitter that committed, then died, between the drainer's first
 *       read and its judgment is never turned into a gap.
 * </ul>
 *
 * A live emitter's reservation is never taken from it: a stopped (SIGSTOP) emitter holds the drain
 * at its sequence until it runs again or dies, and then the log fills; {@link #drainAndFold}
 * returns with the events before it folded, never waits for it.
 *
 * <p><b>Drain.</b> The drain turn is an {@link OwnerRecord}: claimed by CAS when free or when its
 * owner is dead (at once, through {@code /proc}; a live drainer is waited for, with a bound). The
 * drainer reads the published state copy (position {@code p} and state), folds the committed events
 * from {@code p} on into a new state, writes the new position and state into the other copy, and
 * publishes both with one CAS of the generation. Killed at any point before that CAS, it leaves the
 * old state and the old position (the next drainer folds the same events again, into the old state:
 * never half, never twice into the published state); after it, the new ones. A gap it marked before
 * dying stays a gap. {@link #setState} publishes a state the same way.
 *
 * <p><b>Read.</b> {@link #readCurrent} reads the copy the generation names, then the generation
 * again: unchanged means no drainer wrote that copy meanwhile (a drainer writes only the copy that
 * is not published), else it reads again.
 *
 * <p>Thread-safe; one instance may serve every thread of a process.
 *
 * @param <E> the event type, stored by its {@link FixedCodec}
 * @param <S> the state type, stored by its {@link FixedCodec}
 */
public final class EventStateLog<E, S> extends MappedPrimitive {

    /** The ops a log counts, exported under these names. */
    public enum Op implements OpKind {
        EMIT(1),
        DRAIN_FOLD(2),
        READ_CURRENT(3);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** How long {@link #drainAndFold(BiFunction)} waits for another live drainer to finish. */
    public static final Duration DEFAULT_DRAIN_WAIT = Duration.ofSeconds(10);

    /**
     * A log's creation settings.
     *
     * @param capacity the most events pending at once and the events retained for readers,
     *     1..{@link EventStateLogDescriptor#MAX_CAPACITY}
     * @param events the events' codec, at most {@link EventStateLogDescriptor#MAX_PAYLOAD} bytes
     * @param state the state's codec, at most {@link EventStateLogDescriptor#MAX_PAYLOAD} bytes
     * @param initial the state of a new log
     */
    public record Settings<E, S>(
            int capacity, FixedCodec<E> events, FixedCodec<S> state, S initial) {
        /** The capacity of the type's defaults (the bad-input catalogue's files). */
        static final int DEFAULT_CAPACITY = 16;

        public Settings {
            CxcSettingsException.requireInRange(
                    "capacity", capacity, 1, MAX_CAPACITY, " (MAX_CAPACITY)");
            Objects.requireNonNull(events, "events");
            Objects.requireNonNull(state, "state");
            if (events.size() > MAX_PAYLOAD) {
                throw new CxcSettingsException(
                        "events",
                        "events must be at most "
                                + MAX_PAYLOAD
                                + " bytes (MAX_PAYLOAD), got "
                                + events.describe()
                                + " of "
                                + events.size());
            }
            if (state.size() > MAX_PAYLOAD) {
                throw new CxcSettingsException(
                        "state",
                        "state must be at most "
                                + MAX_PAYLOAD
                                + " bytes (MAX_PAYLOAD), got "
                                + state.describe()
                                + " of "
                                + state.size());
            }
            if (initial == null) {
                throw new CxcSettingsException("initial", "initial state must not be null");
            }
            CxcSettingsException.requireBodyFits(
                    "capacity",
                    "capacity "
                            + capacity
                            + " of "
                            + events.size()
                            + "-byte events with a "
                            + state.size()
                            + "-byte state",
                    bodyLength(capacity, strideFor(events.size(), state.size())),
                    HeaderDescriptor.MAX_BODY_LENGTH);
        }

        int stride() {
            return strideFor(events.size(), state.size());
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final PrimitiveType<EventStateLog<?, ?>, Settings<?, ?>> TYPE =
            (PrimitiveType)
                    PrimitiveType.<EventStateLog, Settings>define(
                                    PrimitiveKinds.EVENT_STATE_LOG, Settings.class)
                            .layoutVersion(LAYOUT_VERSION)
                            .bodyMagic(MAGIC)
                            .ops(Op.class)
                            .shape(
                                    settings ->
                                            new PrimitiveType.Shape(
                                                    settings.capacity(), settings.stride()),
                                    BODY_LAYOUT)
                            .codecs(settings -> List.of(settings.events(), settings.state()))
                            .initialiser(EventStateLog::initialise)
                            .bodyCheck(EventStateLog::problem)
                            .defaults(
                                    new Settings<>(
                                            Settings.DEFAULT_CAPACITY,
                                            FixedCodec.INT64,
                                            FixedCodec.INT64,
                                            0L))
                            .recorded(
                                    file ->
                                            new Settings<>(
                                                    file.header().capacity(),
                                                    PrimitiveType.recordedCodec(file, 0),
                                                    PrimitiveType.recordedCodec(file, 1),
                                                    new byte[0]))
                            .construct(
                                    (file, settings, options) -> new EventStateLog(file, settings));

    private static final long PID = Pids.current();
    private static final long START_TIME = OwnerRecord.startTimeOf(PID);

    /** Spins a drainer waits for a live emitter that reserved a sequence to commit it. */
    private static final int COMMIT_SPINS = 2_000;

    private final int capacity;
    private final int stride;
    private final FixedCodec<E> events;
    private final FixedCodec<S> state;
    private final Doorbell doorbell;

    /** The waiters of this handle's readers: closed with it. */
    private final Set<DoorbellWaiter> waiters = ConcurrentHashMap.newKeySet();

    private EventStateLog(MappedFile file, Settings<E, S> settings) {
        super(file, TYPE);
        // Both validated by BODY_LAYOUT against the file's size; the codec sizes by problem().
        this.capacity = file.header().capacity();
        this.stride = file.header().slotSize();
        this.events = settings.events();
        this.state = settings.state();
        this.doorbell = new Doorbell(body, (int) doorbellOffset(capacity, stride), file.path());
    }

    // ---------------------------------------------------------------------------- factories

    /**
     * Opens an existing log of {@code expected}'s capacity and codecs; its state is the one it
     * holds ({@code expected}'s initial state is not used).
     *
     * @throws io.subetha.cxc.CxcCapacityException if it was created with another capacity
     * @throws CxcFormatException if it was created with other codecs
     */
    public static <E, S> EventStateLog<E, S> open(Path path, Settings<E, S> expected) {
        return TYPE.open(path, expected, CxcFileOptions.defaults());
    }

    /**
     * Opens the log, or creates it with {@code settings}, its state {@code settings.initial()};
     * race-safe across processes.
     */
    public static <E, S> EventStateLog<E, S> openOrCreate(Path path, Settings<E, S> settings) {
        return TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void initialise(AtomicBuffer body, Settings<?, ?> settings) {
        int stride = settings.stride();
        body.setIntPlain(CAPACITY_OFFSET, settings.capacity());
        body.setIntPlain(SLOT_STRIDE_OFFSET, stride);
        int copy = stateCopyOffset(0, stride);
        body.setLongPlain(copy + POSITION_OFFSET, 0);
        ((FixedCodec) settings.state()).write(body, copy + STATE_OFFSET, settings.initial());
    }

    private static @Nullable String problem(AtomicBuffer body) {
        int capacity = body.getIntPlain(CAPACITY_OFFSET);
        int stride = body.getIntPlain(SLOT_STRIDE_OFFSET);
        int eventSize = body.getIntPlain(EVENT_SIZE_OFFSET);
        int stateSize = body.getIntPlain(STATE_SIZE_OFFSET);
        if (capacity < 1 || capacity > MAX_CAPACITY || stride < 64 || stride % 64 != 0) {
            return "the body declares capacity " + capacity + " and slot stride " + stride;
        }
        if (bodyLength(capacity, stride) != body.capacity()) {
            return "the body declares capacity "
                    + capacity
                    + " and slot stride "
                    + stride
                    + ", which need "
                    + bodyLength(capacity, stride)
                    + " bytes, but it has "
                    + body.capacity();
        }
        if (eventSize < 1
                || stateSize < 1
                || eventSize > MAX_PAYLOAD
                || stateSize > MAX_PAYLOAD
                || strideFor(eventSize, stateSize) != stride) {
            return "event size "
                    + eventSize
                    + " and state size "
                    + stateSize
                    + " do not fit slot stride "
                    + stride;
        }
        return null;
    }

    // ------------------------------------------------------------------------------- emit

    /**
     * Appends {@code event} after every event already emitted by this thread.
     *
     * @throws CxcCapacityException if {@code capacity} events are pending (not yet folded)
     * @throws IllegalArgumentException if the codec refuses the event (its sequence becomes a gap)
     */
    public void emit(E event) {
        if (!tryEmit(event)) {
            throw new CxcCapacityException(
                    "event log "
                            + file.path()
                            + " is full: "
                            + capacity
                            + " events (its capacity) are pending, not yet folded; drain it"
                            + " (drainAndFold) or create it with a larger capacity");
        }
    }

    /**
     * {@link #emit}, answering false instead of throwing when {@code capacity} events are pending.
     */
    public boolean tryEmit(E event) {
        if (event == null) {
            throw new IllegalArgumentException("event must not be null");
        }
        countOp(Op.EMIT);
        return tryAppend(events, event) >= 0;
    }

    /** Reserves a sequence and commits {@code event} to it; -1 when full. */
    private long tryAppend(FixedCodec<E> codec, E event) {
        long unchangedReads = 0;
        while (true) {
            long t = cursor();
            int slot = eventSlotOffset(t, capacity, stride);
            long word = OwnerRecord.ownerWord(body, slot);
            long key = OwnerRecord.key(word);
            long lap = lapKey(t, capacity);
            if (key == lap) {
                // Reserved by someone who has not advanced the cursor yet: do it for them.
                body.compareAndSetLong(CURSOR_OFFSET, t, t + 1);
                continue;
            }
            if (key != previousLapKey(t, capacity)) {
                if (body.getLongVolatile(CURSOR_OFFSET) == t && ++unchangedReads > 1_000_000) {
                    throw damaged(
                            "the slot of sequence "
                                    + t
                                    + " holds owner key "
                                    + key
                                    + ", not a lap");
                }
                continue; // the cursor moved on since we read it
            }
            if (t - foldedCount() >= capacity) {
                return -1;
            }
            long mine = OwnerRecord.ownerWord(PID, lap);
            if (OwnerRecord.claim(body, slot, word, mine, START_TIME, () -> t)) {
                body.compareAndSetLong(CURSOR_OFFSET, t, t + 1);
                Interleaving.at(Point.SLOT_RESERVED);
                try {
                    codec.write(body, slot + EVENT_OFFSET, event);
                } catch (RuntimeException refused) {
                    // The sequence is ours: say it holds nothing, so nobody waits for it.
                    body.setLongRelease(slot + CONTENT_OFFSET, gap(t));
                    doorbell.ringIfAnnounced();
                    throw refused;
                }
                body.setLongRelease(slot + CONTENT_OFFSET, committed(t));
                doorbell.ringIfAnnounced();
                return t;
            }
        }
    }

    // ------------------------------------------------------------------------------ drain

    /** {@link #drainAndFold(BiFunction, Duration)} waiting {@link #DEFAULT_DRAIN_WAIT}. */
    public int drainAndFold(BiFunction<S, E, S> fold) {
        return drainAndFold(fold, DEFAULT_DRAIN_WAIT);
    }

    /**
     * Folds every pending event, in sequence order, into the state, and publishes the new state
     * with the new read position. Stops early at a sequence whose live emitter has not committed it
     * yet. If {@code fold} throws, nothing is published and the exception propagates.
     *
     * @param wait how long to wait for a live drainer in another process (or thread) to finish
     * @return how many events were folded (gaps are not counted)
     * @throws CxcTimeoutException if another live drainer held the turn for all of {@code wait}
     */
    public int drainAndFold(BiFunction<S, E, S> fold, Duration wait) {
        Objects.requireNonNull(fold, "fold");
        countOp(Op.DRAIN_FOLD);
        long turn = claimTurn(wait);
        try {
            long generation = body.getLongVolatile(GENERATION_OFFSET);
            int copy = stateCopyOffset(generation, stride);
            long position = body.getLongAcquire(copy + POSITION_OFFSET);
            S current = state.read(body, copy + STATE_OFFSET);
            long end = emittedCount();
            if (position < 0 || position > end) {
                throw TYPE.corrupt(
                        file.path(),
                        "read position " + position + " is outside 0.." + end + " (emitted)");
            }
            int folded = 0;
            long s = position;
            int spins = 0;
            while (s < end) {
                int slot = eventSlotOffset(s, capacity, stride);
                long content = body.getLongAcquire(slot + CONTENT_OFFSET);
                if (content == committed(s)) {
                    current = fold.apply(current, events.read(body, slot + EVENT_OFFSET));
                    folded++;
                } else if (content != gap(s)) {
                    long word = OwnerRecord.ownerWord(body, slot);
                    if (OwnerRecord.key(word) != lapKey(s, capacity)) {
                        break; // not reserved yet (the cursor ran ahead of a claim): impossible
                    }
                    if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER) {
                        markGap(slot, s); // freed by a drainer that died before marking it
                    } else if (OwnerRecord.isDead(body, slot, word)) {
                        // It may have committed, then died, since we read its content word: a
                        // dead emitter writes no more, so the content word read now is final.
                        if (body.getLongAcquire(slot + CONTENT_OFFSET) == committed(s)) {
                            continue;
                        }
                        if (!OwnerRecord.release(body, slot, word)) {
                            continue; // judge it again
                        }
                        markGap(slot, s);
                    } else if (++spins < COMMIT_SPINS) {
                        Thread.onSpinWait(); // a live emitter between reserve and commit
                        continue;
                    } else {
                        break;
                    }
                }
                spins = 0;
                s++;
            }
            Interleaving.at(Point.FOLD_COMPUTED);
            if (s != position || folded > 0) {
                publish(generation, s, current);
            }
            return folded;
        } finally {
            OwnerRecord.release(body, DRAIN_TURN_OFFSET, turn);
        }
    }

    /**
     * Replaces the state, keeping the read position: under the drain turn, so never between a
     * drainer's read of the old state and its publication.
     */
    public void setState(S newState) {
        if (newState == null) {
            throw new IllegalArgumentException("state must not be null");
        }
        long turn = claimTurn(DEFAULT_DRAIN_WAIT);
        try {
            long generation = body.getLongVolatile(GENERATION_OFFSET);
            long position =
                    body.getLongAcquire(stateCopyOffset(generation, stride) + POSITION_OFFSET);
            publish(generation, position, newState);
        } finally {
            OwnerRecord.release(body, DRAIN_TURN_OFFSET, turn);
        }
    }

    private void markGap(int slot, long sequence) {
        body.setLongRelease(slot + CONTENT_OFFSET, gap(sequence));
        body.getAndAddLong(GAPS_OFFSET, 1);
        doorbell.ringIfAnnounced();
    }

    /** Writes the unpublished copy, then publishes it with the generation's CAS. */
    private void publish(long generation, long position, S newState) {
        int next = stateCopyOffset(generation + 1, stride);
        // The codec checks the whole value before storing a byte: a refused state writes nothing.
        state.write(body, next + STATE_OFFSET, newState);
        body.setLongPlain(next + POSITION_OFFSET, position);
        if (!body.compareAndSetLong(GENERATION_OFFSET, generation, generation + 1)) {
            throw new IllegalStateException(
                    "the state generation of "
                            + file.path()
                            + " moved while this drainer held"
                            + " the drain turn: another process writes the file outside the"
                            + " protocol");
        }
    }

    private long claimTurn(Duration wait) {
        return Turn.claim(body, DRAIN_TURN_OFFSET, wait, file.path(), "the drain turn");
    }

    // ------------------------------------------------------------------------------ reads

    /** The published state: the fold of every event before {@link #foldedCount()}. */
    public S readCurrent() {
        countOp(Op.READ_CURRENT);
        while (true) {
            long generation = body.getLongVolatile(GENERATION_OFFSET);
            S value;
            try {
                value = state.read(body, stateCopyOffset(generation, stride) + STATE_OFFSET);
            } catch (CxcFormatException torn) {
                if (body.getLongVolatile(GENERATION_OFFSET) != generation) {
                    continue;
                }
                throw torn;
            }
            VarHandle.acquireFence();
            if (body.getLongVolatile(GENERATION_OFFSET) == generation) {
                return value;
            }
        }
    }

    /**
     * Sequences reserved so far by every process: the next event's sequence. Counts the
     * reservations whose emitter has not advanced the cursor yet; writes nothing.
     */
    public long emittedCount() {
        long cursor = cursor();
        long t = cursor;
        while (t - cursor < capacity
                && OwnerRecord.key(
                                OwnerRecord.ownerWord(body, eventSlotOffset(t, capacity, stride)))
                        == lapKey(t, capacity)) {
            t++;
        }
        return t;
    }

    /** The next sequence to reserve; sequences only grow from 0, so a negative one is damage. */
    private long cursor() {
        long cursor = body.getLongVolatile(CURSOR_OFFSET);
        if (cursor < 0) {
            throw damaged("its cursor is at sequence " + cursor + ", below 0");
        }
        return cursor;
    }

    /** The read position of the published state: sequences folded (or skipped as gaps). */
    public long foldedCount() {
        while (true) {
            long generation = body.getLongVolatile(GENERATION_OFFSET);
            long position =
                    body.getLongAcquire(stateCopyOffset(generation, stride) + POSITION_OFFSET);
            if (body.getLongVolatile(GENERATION_OFFSET) == generation) {
                return position;
            }
        }
    }

    /** Events emitted and not folded yet (including reservations not committed yet). */
    public long pendingCount() {
        return Math.max(0, emittedCount() - foldedCount());
    }

    /** Sequences that hold no event: their emitter died between reserving and committing. */
    public long gapCount() {
        return body.getLongVolatile(GAPS_OFFSET);
    }

    public int capacity() {
        return capacity;
    }

    /** The PID holding the drain turn, 0 when nobody drains. */
    public long drainerPid() {
        return OwnerRecord.pid(OwnerRecord.ownerWord(body, DRAIN_TURN_OFFSET));
    }

    /** A reader that follows from the oldest event still retained. */
    public EventLogReader<E> reader() {
        return new EventLogReader<>(this, oldestRetained());
    }

    /** A reader that follows from {@code fromSequence} (0 = the first event ever emitted). */
    public EventLogReader<E> reader(long fromSequence) {
        if (fromSequence < 0) {
            throw new IllegalArgumentException(
                    "fromSequence must be 0 or more, got " + fromSequence);
        }
        return new EventLogReader<>(this, fromSequence);
    }

    /** The oldest sequence whose event the log may still hold. */
    public long oldestRetained() {
        return Math.max(0, emittedCount() - capacity);
    }

    @Override
    public Map<String, Object> describe() {
        long emitted = emittedCount();
        long folded = foldedCount();
        return fields(
                "capacity",
                capacity,
                "emitted",
                emitted,
                "folded",
                folded,
                "pending",
                Math.max(0, emitted - folded),
                "gaps",
                gapCount(),
                "drainerPid",
                drainerPid(),
                "sleepingReaders",
                doorbell.announcedCount());
    }

    // ---------------------------------------------------------------------- reader access

    /** The file check of this log's operations, for its readers' polls. */
    void passFileCheckOfReader() {
        passFileCheck();
    }

    AtomicBuffer buffer() {
        return body;
    }

    int stride() {
        return stride;
    }

    FixedCodec<E> eventsCodec() {
        return events;
    }

    /** A waiter for a reader of this handle, closed with it at the latest. */
    DoorbellWaiter waiter(WaitPhases phases) {
        DoorbellWaiter waiter = doorbell.waiter(phases);
        waiters.add(waiter);
        if (isClosed()) {
            waiter.close();
        }
        return waiter;
    }

    void forget(DoorbellWaiter waiter) {
        waiters.remove(waiter);
        waiter.close();
    }

    /** Closes the handle and every reader's waiter: their waits return, their slots are free. */
    @Override
    public void close() {
        super.close();
        for (DoorbellWaiter waiter : waiters) {
            forget(waiter);
        }
    }
}
