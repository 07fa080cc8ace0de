package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.internal.Waits;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Calls a handler in the process that registered it, from any process: the seed's {@code
 * pass_registry}. A process {@linkplain #register registers} a {@link PassHandler} under a pass id;
 * any process that maps the file {@linkplain #execute executes} the pass with argument bytes; the
 * handler runs in the registering process, on this handle's dispatcher threads, and the result
 * bytes come back. Handlers never leave their process. Layout: {@link PassRegistryDescriptor}.
 *
 * <p><b>Ownership.</b> Each pass id is bound to at most one entry at a time (ids are bound only
 * under the registry's binder record, an {@link OwnerRecord} a dead holder's is taken over), and
 * has one owner at a time, through the ownership block ({@link OwnerRecord}: PID, generation, start
 * time). Registering an id a live process owns is a {@link PassOwnedException} naming that PID; an
 * owner that is provably dead ({@code /proc}: gone, a zombie, or its PID reused) is taken over by
 * one CAS from exactly the judged owner word. Ownership is by process liveness only, not by
 * heartbeat: a handler may run as long as it likes, and an owner that is alive but stuck is
 * reported by its callers' timeouts.
 *
 * <p><b>A call, step by step</b> (the state word of a mailbox slot: state, generation, caller PID,
 * one CAS'd u64):
 *
 * <ol>
 *   <li>The caller claims a free slot of the pass's mailbox: CAS {@code FREE(g)} to {@code
 *       CLAIMED(g+1, caller)}. Only then does it stamp its start time with generation {@code g+1}
 *       (the caller identity), write the owner word it addresses and that owner's start time, the
 *       argument and its length, and publish {@code REQUEST} by CAS. Killed in between: the slot
 *       stays {@code CLAIMED} by a dead caller, freed by the next caller that finds the mailbox
 *       full (dead callers' slots are reclaimed by CAS from the judged word; dead is by PID and the
 *       start time stamped for this generation, so a recycled PID does not keep a slot; a caller
 *       killed before stamping is judged by PID alone, as an owner record before its identity).
 *   <li>A dispatcher of the owner takes it: CAS {@code REQUEST} to {@code RUNNING}, only if the
 *       request is addressed to its own current owner word; it reads the argument after winning,
 *       runs the handler, writes the result (or the handler's exception) and publishes {@code
 *       RESPONSE} (or {@code FAILED}) by CAS from {@code RUNNING}. The owner killed in between
 *       leaves {@code RUNNING}: the caller sees the owner dead at its next check (every {@code
 *       ownerCheck}, 100 ms by default: "about a tick") and frees the slot by CAS, failing with
 *       {@link PassOwnerDiedException} naming the PID.
 *   <li>The caller reads the result and frees the slot: CAS to {@code FREE(g+1)}, whose next claim
 *       installs {@code g+2}. Killed before: a dead caller's {@code RESPONSE} is reclaimed like its
 *       {@code CLAIMED}.
 * </ol>
 *
 * A caller that gives up (timeout, or the owner gone) withdraws by CAS: {@code REQUEST} to {@code
 * FREE} (the handler never runs), or {@code RUNNING} to {@code ABANDONED}, which the dispatcher,
 * once its handler returns, frees instead of answering. Every transition is a CAS from the exact
 * word read, generation included, so a response is only ever read by the call that claimed the
 * slot: a slot is claimed again only after it is free, and a timed-out call's slot is freed only
 * after its handler returned. Nothing shared is written for a claim before its CAS is won.
 *
 * <p><b>Never a hang.</b> An unknown or unregistered id fails at once ({@link
 * PassNotRegisteredException}); an argument over {@code maxPayloadBytes} is an {@link
 * IllegalArgumentException} naming the limit; a handler that throws comes back as a {@link
 * PassFailedException}; a full mailbox is back-pressure: the caller waits for a slot within its
 * timeout, then gets a {@link CxcCapacityException} naming {@code mailboxSlots}; an owner that dies
 * or unregisters while a call is pending fails it within about one {@code ownerCheck}; any other
 * wait ends at the caller's timeout with a {@link CxcTimeoutException} saying what it waited for.
 *
 * <p><b>Waiting.</b> Both sides spin ({@code Thread.onSpinWait}) for {@link Waiting#spin()} after
 * their last event, yield for {@link Waiting#yield()}, then block. A mapped file cannot wake
 * another process, so a handle that registers starts a wake socket ({@link WakeServer}: a Unix
 * domain socket, owner-only, beside the file) and callers that block keep a connection to it
 * ({@link WakeConnection}). The socket carries only "look now", and only when the other side
 * announced in the file, by CAS, that it is about to block:
 *
 * <ol>
 *   <li>A dispatcher about to block CASes its socket's address into its entries' <i>dispatcher
 *       parked</i> word, looks at its mailboxes once more, then waits on its socket. A caller,
 *       after the CAS that publishes its request, reads that word; if set, it takes it by CAS (one
 *       poke per announcement) and writes one byte to the socket.
 *   <li>A caller about to block CASes its connection's token into its slot's <i>wake token</i>,
 *       looks at the state word once more, then waits on its connection. A caller that blocks at
 *       once (no spin, no yield) writes its token with the request instead, before the CAS that
 *       publishes it. The dispatcher, after the CAS that publishes the answer, reads the token; if
 *       set, it takes it by CAS and writes one byte to that connection.
 * </ol>
 *
 * Each side's announcement and its last look are volatile or CAS, and so are the other side's
 * publication and its read of the announcement: either the blocker's last look sees the work, or
 * the publisher sees the announcement. A blocked round trip so makes the system calls a plain Unix
 * socket's does: the caller writes its poke and waits in one untimed blocking read, which the
 * answer's poke ends; the dispatcher waits in one untimed blocking read of its only caller's
 * connection, the caller's poke ending it, and writes its poke (with more than one connection it
 * waits in {@code epoll_wait} and reads the pokes after answering, off the round trip: {@link
 * WakeServer}). Neither side arms a timer per wait: on an idle virtual machine each armed and
 * cancelled timer is a reprogramming of the CPU's timer, a trap to the hypervisor.
 *
 * <p>Every wait is still bounded, so a poke lost (socket gone, connection refused, a token the
 * server has not read yet, no Unix sockets here) costs at most two poll intervals, never a call:
 * the request and the answer are in the file. The bound is the handle's <i>ticker</i>, one thread
 * that runs while a call or its dispatcher is blocked and looks in the file every {@link
 * Waiting#maxPark()}. It wakes the blocked dispatcher when a request waited at two looks in one
 * wait (a poke lost) or a pass was taken from it; and it closes the connection of a blocked call
 * whose deadline passed (it wakes at the earliest deadline, so timeouts hold), that was answered
 * but not woken at two looks in a row, or whose owner it finds gone at an owner check; the owner's
 * death closes the connection by itself, which the read sees at once. {@link #close()} closes the
 * connections of its blocked calls, which then fail. A crash leaves at worst a stale announcement,
 * which costs the next caller a failed poke; a killed owner's socket file is deleted by the next
 * owner's start (its PID and start time are in the name). Where no socket can be had, both sides
 * park with a back-off up to {@code maxPark} (a park lasts at least the kernel's 50 µs timer slack;
 * a caller's never past its next owner check or its deadline).
 *
 * <p><b>Threads.</b> The first {@link #register} starts this handle's dispatcher threads ({@link
 * #dispatcherThreads(int)}, 1 by default); {@link #close()} unregisters every pass this handle
 * holds and stops them, waiting for a running handler to return. {@link #executeAsync} waits on one
 * completer thread per handle, started on first use, stopped by {@code close}. The ticker is
 * started by the first call or dispatcher that blocks on a wake socket, sleeps once neither has for
 * a thousand ticks, and is stopped by {@code close}; calls of a closed handle still pending fail
 * with an {@link IllegalStateException}.
 *
 * <p>Thread-safe.
 */
public final class PassRegistry extends MappedPrimitive {

    /** The ops a pass registry counts, exported under these names. */
    public enum Op implements OpKind {
        REGISTER(1),
        UNREGISTER(2),
        EXECUTE(3),
        SERVE(4),
        READ(5);

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
     * A registry's creation settings; the file's size is about {@code maxPasses × mailboxSlots ×
     * (64 + maxPayloadBytes)} bytes.
     *
     * @param maxPasses distinct pass ids the file holds over its life, 1..{@value
     *     PassRegistryDescriptor#MAX_PASSES} registered at once (an unregistered or dead owner's
     *     entry is reused by the next id that needs one)
     * @param mailboxSlots calls to one pass in flight at once, 1..{@value
     *     PassRegistryDescriptor#MAX_MAILBOX_SLOTS}
     * @param maxPayloadBytes the largest argument or result, 1..{@value
     *     PassRegistryDescriptor#MAX_PAYLOAD_BYTES}
     */
    public record Settings(int maxPasses, int mailboxSlots, int maxPayloadBytes) {
        public static final int DEFAULT_MAX_PASSES = 64;
        public static final int DEFAULT_MAILBOX_SLOTS = 8;
        public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024;

        public Settings {
            CxcSettingsException.requireInRange("maxPasses", maxPasses, 1, MAX_PASSES, "");
            CxcSettingsException.requireInRange(
                    "mailboxSlots", mailboxSlots, 1, MAX_MAILBOX_SLOTS, "");
            CxcSettingsException.requireInRange(
                    "maxPayloadBytes", maxPayloadBytes, 1, MAX_PAYLOAD_BYTES, "");
            long length = bodyLength(maxPasses, mailboxSlots, maxPayloadBytes);
            if (length > HeaderDescriptor.MAX_BODY_LENGTH
                    || entryStride(mailboxSlots, maxPayloadBytes) > Integer.MAX_VALUE) {
                throw new CxcSettingsException(
                        "maxPasses",
                        "maxPasses × mailboxSlots × (64 + maxPayloadBytes) must fit a file of"
                                + " at most "
                                + HeaderDescriptor.MAX_BODY_LENGTH
                                + " bytes, got "
                                + length
                                + " for "
                                + maxPasses
                                + " × "
                                + mailboxSlots
                                + " × "
                                + maxPayloadBytes);
            }
        }
    }

    /**
     * How both sides wait: spin ({@code Thread.onSpinWait}) for {@code spin} after the last event,
     * then yield the processor ({@code Thread.yield}) for {@code yield} more, then block on the
     * owner's wake socket (until poked, the handle's ticker looking at the blocked side every
     * {@code maxPark}), or, without a socket, park with a back-off from 1 µs doubling up to {@code
     * maxPark}; a waiting caller checks the owner's liveness every {@code ownerCheck}. A wake
     * through the socket costs about a Unix socket's own round trip (a park without one at least
     * the kernel's 50 µs timer slack), so a caller that must answer faster spins.
     */
    public record Waiting(Duration spin, Duration yield, Duration maxPark, Duration ownerCheck) {
        /**
         * 20 µs of spinning, 200 µs of yielding, parks of at most 1 ms, the owner checked every 100
         * ms. Yielding after a short spin matters where the caller and the dispatcher share a core:
         * a pure spinner holds it until the scheduler preempts it (measured here on a loaded 2-core
         * machine: runs where a spinning pair shared a core took ~115 µs per round trip).
         */
        public static final Waiting DEFAULT =
                new Waiting(
                        Duration.ofNanos(20_000),
                        Duration.ofNanos(200_000),
                        Duration.ofMillis(1),
                        Duration.ofMillis(100));

        public Waiting {
            requireNonNegative("spin", spin);
            requireNonNegative("yield", yield);
            requireNonNegative("maxPark", maxPark);
            requireNonNegative("ownerCheck", ownerCheck);
            if (maxPark.isZero() || ownerCheck.isZero()) {
                throw new IllegalArgumentException(
                        "maxPark and ownerCheck must be positive, got "
                                + maxPark
                                + ", "
                                + ownerCheck);
            }
        }

        /** These waits with another spin and yield. */
        public Waiting spinning(Duration newSpin, Duration newYield) {
            return new Waiting(newSpin, newYield, maxPark, ownerCheck);
        }

        private static void requireNonNegative(String name, Duration value) {
            if (Objects.requireNonNull(value, name).isNegative()) {
                throw new IllegalArgumentException(name + " must be 0 or more, got " + value);
            }
        }
    }

    public static final PrimitiveType<PassRegistry, Settings> TYPE =
            PrimitiveType.<PassRegistry, Settings>define(
                            PrimitiveKinds.PASS_REGISTRY, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .shape(
                            s ->
                                    new PrimitiveType.Shape(
                                            s.maxPasses(),
                                            (int)
                                                    entryStride(
                                                            s.mailboxSlots(), s.maxPayloadBytes())),
                            BODY_LAYOUT)
                    .initialiser(
                            (body, s) -> {
                                body.setIntPlain(MAX_PASSES_OFFSET, s.maxPasses());
                                body.setIntPlain(MAILBOX_SLOTS_OFFSET, s.mailboxSlots());
                                body.setIntPlain(MAX_PAYLOAD_OFFSET, s.maxPayloadBytes());
                            })
                    .bodyCheck(PassRegistry::settingsProblem)
                    .defaults(
                            new Settings(
                                    Settings.DEFAULT_MAX_PASSES,
                                    Settings.DEFAULT_MAILBOX_SLOTS,
                                    Settings.DEFAULT_MAX_PAYLOAD_BYTES))
                    .construct((file, settings, options) -> new PassRegistry(file));

    private static final long PID = Pids.current();
    private static final long START_TIME = OwnerRecord.startTimeOf(PID);
    private static final long FIRST_PARK_NANOS = 1_000;

    /** Ticks the ticker makes with no blocked side before it sleeps until one blocks. */
    private static final int IDLE_TICKS = 1_000;

    private static final Duration STOP_WAIT = Duration.ofSeconds(10);
    private static final Duration BINDER_WAIT = Duration.ofSeconds(10);

    private final int maxPasses;
    private final int mailboxSlots;
    private final int maxPayload;
    private final int slotStride;
    private final int entryStride;

    /** Where each pass id was last found: a hint, checked against the entry's binding on use. */
    private final Map<Long, Integer> entries = new ConcurrentHashMap<>();

    private final Map<Long, Registration> registrations = new ConcurrentHashMap<>();

    /** What the dispatchers serve: copied on every change. */
    private volatile Registration[] served = new Registration[0];

    private final List<Thread> dispatchers = new ArrayList<>();
    private int dispatcherCount = 1;
    private volatile Waiting waiting = Waiting.DEFAULT;
    private volatile boolean closing;

    private final ConcurrentLinkedQueue<Call> asyncCalls = new ConcurrentLinkedQueue<>();

    /** This handle's wake socket, started by the first register; null where none can be had. */
    private volatile @Nullable WakeServer wakeServer;

    private boolean wakeStarted;

    /** Idle connections to owners' wake sockets, by wake address. */
    private final Map<Long, ConcurrentLinkedQueue<WakeConnection>> wakePool =
            new ConcurrentHashMap<>();

    /** Wake addresses a connection failed to: their calls poll. */
    private final Set<Long> unreachable = ConcurrentHashMap.newKeySet();

    private @Nullable Thread completer;

    /**
     * The calls blocked in an untimed read on a wake connection, each with that connection: the
     * ticker closes it to wake a call that is due. Whoever removes the pair owns the wake-up.
     */
    private final Map<Call, WakeConnection> blocked = new ConcurrentHashMap<>();

    /** Wakes blocked calls that are due; started by the first call that blocks. */
    private volatile @Nullable Thread ticker;

    /** The ticker sleeps until a call blocks (none blocked for {@link #IDLE_TICKS} ticks). */
    private volatile boolean tickerIdle;

    /** When the ticker next looks, by {@code System.nanoTime()}. */
    private volatile long tickerWakeAt;

    /**
     * The number of the wait the dispatcher holding the wake socket is blocked in, 0 while none is:
     * the ticker wakes a wait that leaves a request unserved at two of its looks.
     */
    private volatile long dispatcherWait;

    /** The dispatchers' waits on the wake socket so far; with the socket held. */
    private long dispatcherWaits;

    /** The wait in which the ticker last found a request unserved, 0 if none; the ticker's only. */
    private long unservedIn;

    /** One pass this handle serves. */
    private record Registration(
            long passId, int entry, int entryOffset, long ownerWord, PassHandler handler) {}

    private PassRegistry(MappedFile file) {
        super(file, TYPE);
        // The body check proved these in range and consistent with the body's real length.
        this.maxPasses = body.getIntAcquire(MAX_PASSES_OFFSET);
        this.mailboxSlots = body.getIntAcquire(MAILBOX_SLOTS_OFFSET);
        this.maxPayload = body.getIntAcquire(MAX_PAYLOAD_OFFSET);
        this.slotStride = (int) slotStride(maxPayload);
        this.entryStride = (int) PassRegistryDescriptor.entryStride(mailboxSlots, maxPayload);
        if (file.header().capacity() != maxPasses || file.header().slotSize() != entryStride) {
            throw TYPE.corrupt(
                    file.path(),
                    "its body declares "
                            + maxPasses
                            + " passes of "
                            + entryStride
                            + " bytes, its header "
                            + file.header().capacity()
                            + " of "
                            + file.header().slotSize());
        }
    }

    private static @Nullable String settingsProblem(io.subetha.cxc.mmf.AtomicBuffer body) {
        long passes = Integer.toUnsignedLong(body.getIntAcquire(MAX_PASSES_OFFSET));
        long slots = Integer.toUnsignedLong(body.getIntAcquire(MAILBOX_SLOTS_OFFSET));
        long payload = Integer.toUnsignedLong(body.getIntAcquire(MAX_PAYLOAD_OFFSET));
        if (passes < 1 || passes > MAX_PASSES) {
            return "it declares " + passes + " max passes, outside 1.." + MAX_PASSES;
        }
        if (slots < 1 || slots > MAX_MAILBOX_SLOTS) {
            return "it declares " + slots + " mailbox slots, outside 1.." + MAX_MAILBOX_SLOTS;
        }
        if (payload < 1 || payload > MAX_PAYLOAD_BYTES) {
            return "it declares a payload of "
                    + payload
                    + " bytes, outside 1.."
                    + MAX_PAYLOAD_BYTES;
        }
        long expected = bodyLength(passes, slots, payload);
        if (expected != body.capacity()) {
            return "its settings ("
                    + passes
                    + " passes, "
                    + slots
                    + " slots, "
                    + payload
                    + "-byte payloads) need a body of "
                    + expected
                    + " bytes, the file has "
                    + body.capacity();
        }
        return null;
    }

    // ----------------------------------------------------------------------------- factories

    /** Creates a registry; fails if {@code path} exists. */
    public static PassRegistry create(
            Path path, int maxPasses, int mailboxSlots, int maxPayloadBytes) {
        return create(path, maxPasses, mailboxSlots, maxPayloadBytes, CxcFileOptions.defaults());
    }

    public static PassRegistry create(
            Path path,
            int maxPasses,
            int mailboxSlots,
            int maxPayloadBytes,
            CxcFileOptions options) {
        return TYPE.create(path, new Settings(maxPasses, mailboxSlots, maxPayloadBytes), options);
    }

    /** Opens an existing registry, whatever its settings. */
    public static PassRegistry open(Path path) {
        return open(path, CxcFileOptions.defaults());
    }

    public static PassRegistry open(Path path, CxcFileOptions options) {
        return TYPE.openAsRecorded(path, options);
    }

    /** Opens the registry, or creates it with these settings; race-safe across processes. */
    public static PassRegistry openOrCreate(
            Path path, int maxPasses, int mailboxSlots, int maxPayloadBytes) {
        return openOrCreate(
                path, maxPasses, mailboxSlots, maxPayloadBytes, CxcFileOptions.defaults());
    }

    public static PassRegistry openOrCreate(
            Path path,
            int maxPasses,
            int mailboxSlots,
            int maxPayloadBytes,
            CxcFileOptions options) {
        return TYPE.openOrCreate(
                path, new Settings(maxPasses, mailboxSlots, maxPayloadBytes), options);
    }

    // ------------------------------------------------------------------------- configuration

    /**
     * How many dispatcher threads run this handle's handlers (1 by default): at most that many
     * handlers of this process run at once. Only before the first {@link #register}.
     */
    public synchronized PassRegistry dispatcherThreads(int threads) {
        if (threads < 1 || threads > 64) {
            throw new IllegalArgumentException("threads must be 1..64, got " + threads);
        }
        if (!dispatchers.isEmpty()) {
            throw new IllegalStateException(
                    "the dispatchers of " + file() + " already run; set their number first");
        }
        this.dispatcherCount = threads;
        return this;
    }

    /** How this handle's callers and dispatchers wait, from now on. */
    public PassRegistry waiting(Waiting value) {
        this.waiting = Objects.requireNonNull(value, "waiting");
        return this;
    }

    public Waiting waiting() {
        return waiting;
    }

    // ------------------------------------------------------------------------------ register

    /**
     * Registers {@code handler} under {@code passId}, run in this process for calls from any
     * process; starts this handle's dispatchers on first use.
     *
     * @throws PassOwnedException if a live process (this one included) owns the id
     * @throws CxcCapacityException if all {@code maxPasses} entries hold other ids
     * @throws IllegalStateException if this handle already registered it, or is closed
     */
    public void register(long passId, PassHandler handler) {
        requirePassId(passId);
        Objects.requireNonNull(handler, "handler");
        counters.increment(Op.REGISTER);
        synchronized (this) {
            requireNotClosed();
            if (registrations.containsKey(passId)) {
                throw new IllegalStateException(
                        "pass "
                                + passId
                                + " is already registered through this handle of "
                                + file()
                                + "; unregister it first");
            }
            startWakeServer();
            long binder = lockBinder();
            try {
                Registration r = bind(passId, handler);
                registrations.put(passId, r);
                entries.put(passId, r.entry);
                republish();
                startDispatchers();
            } finally {
                OwnerRecord.release(body, BINDER_OFFSET, binder);
            }
        }
    }

    /**
     * Binds {@code passId} to an entry and claims it, holding the binder record: the entry already
     * bound to the id if its owner is gone, else the first entry whose owner is gone (never used,
     * unregistered, dead, or a dead binder's half-bound one). Claims the owner word first (a new
     * key: readers now see an entry being bound), then writes the id and zeroes its counters, then
     * publishes the bound key. A binder killed in between leaves an entry owned by a dead PID whose
     * keys differ: no reader sees an id in it, and the next binder reuses it.
     */
    private Registration bind(long passId, PassHandler handler) {
        while (true) {
            int reusable = -1;
            long reusableWord = 0;
            int bound = -1;
            long boundWord = 0;
            for (int entry = 0; entry < maxPasses; entry++) {
                int offset = entryOffset(entry);
                int record = offset + OWNER_RECORD_OFFSET;
                long word = OwnerRecord.ownerWord(body, record);
                if (boundId(offset, word) == passId) {
                    bound = entry;
                    boundWord = word;
                    break;
                }
                if (reusable < 0
                        && (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER
                                || OwnerRecord.isDead(body, record, word))) {
                    reusable = entry;
                    reusableWord = word;
                }
            }
            int entry;
            long word;
            if (bound >= 0) {
                entry = bound;
                word = boundWord;
                requireGone(passId, entryOffset(entry) + OWNER_RECORD_OFFSET, word);
            } else if (reusable >= 0) {
                entry = reusable;
                word = reusableWord;
            } else {
                throw new CxcCapacityException(
                        "all "
                                + maxPasses
                                + " pass entries (maxPasses) of "
                                + file()
                                + " are registered by live processes; unregister one, or create"
                                + " the registry with a larger maxPasses");
            }
            int offset = entryOffset(entry);
            int record = offset + OWNER_RECORD_OFFSET;
            long mine = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(word));
            if (!OwnerRecord.claim(body, record, word, mine, START_TIME, System::nanoTime)) {
                continue; // its owner word moved (released meanwhile): judge afresh
            }
            Interleaving.at(Point.PASS_ENTRY_CLAIMED);
            if (bound < 0) {
                body.setLongRelease(offset + PASS_ID_OFFSET, passId);
                body.setLongRelease(offset + CALLS_OFFSET, 0);
            }
            WakeServer server = wakeServer;
            body.setLongRelease(offset + WAKE_ADDRESS_OFFSET, server == null ? 0 : server.address);
            body.setLongRelease(offset + BOUND_KEY_OFFSET, OwnerRecord.key(mine));
            return new Registration(passId, entry, offset, mine, handler);
        }
    }

    /** Throws unless the owner of {@code word} (bound to {@code passId}) is gone. */
    private void requireGone(long passId, int record, long word) {
        long owner = OwnerRecord.pid(word);
        if (owner == OwnerRecord.NO_OWNER) {
            return;
        }
        if (OwnerRecord.isOwnedBy(body, record, word, PID, START_TIME)) {
            throw owned(
                    passId,
                    owner,
                    "already registered by this process (PID "
                            + owner
                            + ") through another handle; one process registers an id once");
        }
        if (!OwnerRecord.isDead(body, record, word)) {
            throw owned(
                    passId,
                    owner,
                    "registered by live process PID "
                            + owner
                            + "; it is freed when that process unregisters it, closes its registry"
                            + " or dies");
        }
    }

    private PassOwnedException owned(long passId, long owner, String how) {
        return new PassOwnedException(
                passId, owner, "pass " + passId + " of " + file() + " is " + how);
    }

    /**
     * Takes the binder record, waiting (up to {@link #BINDER_WAIT}) while a live process holds it;
     * a dead holder's is taken over by CAS from the judged word.
     *
     * @return the owner word installed, to release
     */
    private long lockBinder() {
        long deadline = System.nanoTime() + BINDER_WAIT.toNanos();
        long park = FIRST_PARK_NANOS;
        while (true) {
            long word = OwnerRecord.ownerWord(body, BINDER_OFFSET);
            if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER
                    || OwnerRecord.isDead(body, BINDER_OFFSET, word)) {
                long mine = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(word));
                if (OwnerRecord.claim(
                        body, BINDER_OFFSET, word, mine, START_TIME, System::nanoTime)) {
                    return mine;
                }
                continue;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new CxcTimeoutException(
                        "waited "
                                + BINDER_WAIT
                                + " for the binder record of "
                                + file()
                                + ", held by live process PID "
                                + OwnerRecord.pid(word)
                                + ", to bind pass ids to entries");
            }
            LockSupport.parkNanos(park);
            park = Math.min(1_000_000, park * 2);
        }
    }

    /**
     * Gives up {@code passId}: calls already running finish; calls not yet taken fail at their next
     * owner check with {@link PassOwnerDiedException}.
     *
     * @throws IllegalStateException if this handle did not register it
     */
    public void unregister(long passId) {
        requirePassId(passId);
        counters.increment(Op.UNREGISTER);
        synchronized (this) {
            Registration r = registrations.remove(passId);
            if (r == null) {
                throw new IllegalStateException(
                        "pass " + passId + " is not registered through this handle of " + file());
            }
            republish();
            OwnerRecord.release(body, r.entryOffset + OWNER_RECORD_OFFSET, r.ownerWord);
        }
    }

    /** Whether a live process has {@code passId} registered (probes {@code /proc}, ~10 µs). */
    public boolean isRegistered(long passId) {
        requirePassId(passId);
        counters.increment(Op.READ);
        Binding binding = bindingOf(passId);
        return binding != null && ownerIsLive(binding.entryOffset, binding.ownerWord);
    }

    /** The pass ids registered by live processes, in every process (probes each owner). */
    public int registeredCount() {
        counters.increment(Op.READ);
        int count = 0;
        for (int entry = 0; entry < maxPasses; entry++) {
            int offset = entryOffset(entry);
            long word = OwnerRecord.ownerWord(body, offset + OWNER_RECORD_OFFSET);
            if (boundId(offset, word) != NO_PASS && ownerIsLive(offset, word)) {
                count++;
            }
        }
        return count;
    }

    /** The pass ids this handle registered. */
    public List<Long> registeredHere() {
        return List.copyOf(registrations.keySet());
    }

    private boolean ownerIsLive(int entryOffset, long word) {
        int record = entryOffset + OWNER_RECORD_OFFSET;
        return OwnerRecord.pid(word) != OwnerRecord.NO_OWNER
                && !OwnerRecord.isDead(body, record, word);
    }

    // ------------------------------------------------------------------------------- execute

    /**
     * Runs pass {@code passId} with {@code args} in the process that registered it, and returns its
     * result.
     *
     * @throws PassNotRegisteredException if no process has it registered (at once)
     * @throws PassFailedException if the handler threw
     * @throws PassOwnerDiedException if the owner died or unregistered it while the call was
     *     pending (within about one {@link Waiting#ownerCheck()})
     * @throws CxcCapacityException if every mailbox slot of the pass stayed busy for {@code
     *     timeout}
     * @throws CxcTimeoutException if the owner did not answer within {@code timeout}
     * @throws IllegalArgumentException if {@code args} is longer than {@code maxPayloadBytes}
     */
    public byte[] execute(long passId, byte[] args, Duration timeout) {
        Call call = begin(passId, args, timeout, null);
        try {
            Waiter waiter = new Waiter(waiting);
            while (!trySubmit(call)) {
                requireNotClosed();
                waiter.await();
            }
            waiter = new Waiter(waiting);
            Blocker blocker = nanos -> blockForAnswer(call, nanos);
            while (true) {
                byte[] result = poll(call);
                if (result != null) {
                    return result;
                }
                if (closing) {
                    return closedWhilePending(call);
                }
                waiter.await(blocker);
            }
        } finally {
            giveBack(call);
        }
    }

    /**
     * {@link #execute} without blocking the caller: the request is sent (or queued for a slot) at
     * once, and this handle's completer thread completes the future with the result or the same
     * exceptions.
     */
    public CompletableFuture<byte[]> executeAsync(long passId, byte[] args, Duration timeout) {
        CompletableFuture<byte[]> future = new CompletableFuture<>();
        Call call;
        try {
            call = begin(passId, args, timeout, future);
            trySubmit(call);
        } catch (RuntimeException e) {
            future.completeExceptionally(e);
            return future;
        }
        synchronized (this) {
            if (closing) {
                fail(call, new IllegalStateException(file() + " was closed"));
                return future;
            }
            asyncCalls.add(call);
            startCompleter();
        }
        return future;
    }

    /** One call in progress, owned by the thread that polls it. */
    private static final class Call {
        final long passId;
        final int entryOffset;
        final byte[] args;
        final long deadline;
        final Duration timeout;
        final long addressed;
        final long ownerStartTime;
        final @Nullable CompletableFuture<byte[]> future;
        int slot = -1;
        long claimed;
        long nextCheck;

        /** The ticker's own next owner check while the call is blocked; the ticker's only. */
        long tickerCheck;

        /** The ticker saw the call answered while it was blocked: a poke may have been lost. */
        boolean answeredUnwoken;

        /**
         * The wake token written with the request (0: none), withdrawn before the slot is freed.
         */
        long announced;

        /** The owner's wake socket as its entry names it (0: none). */
        long wakeAddress;

        /** This call's connection to it, borrowed when the call first blocks or pokes. */
        @Nullable WakeConnection wake;

        Call(
                long passId,
                int entryOffset,
                byte[] args,
                Duration timeout,
                long addressed,
                long ownerStartTime,
                @Nullable CompletableFuture<byte[]> future) {
            this.passId = passId;
            this.entryOffset = entryOffset;
            this.args = args;
            this.timeout = timeout;
            long now = System.nanoTime();
            this.deadline = now + Math.max(0, Waits.nanos(timeout));
            this.addressed = addressed;
            this.ownerStartTime = ownerStartTime;
            this.future = future;
        }

        long ownerPid() {
            return OwnerRecord.pid(addressed);
        }
    }

    /** This handle closed under a pending call: withdraws it (an answer that came is returned). */
    private byte[] closedWhilePending(Call call) {
        String message =
                file() + " was closed while the call to pass " + call.passId + " was pending";
        CxcException why = new CxcException(message);
        try {
            return giveUp(call, why);
        } catch (CxcException e) {
            if (e == why) {
                throw new IllegalStateException(message);
            }
            throw e;
        }
    }

    private Call begin(
            long passId,
            byte[] args,
            Duration timeout,
            @Nullable CompletableFuture<byte[]> future) {
        requirePassId(passId);
        Objects.requireNonNull(args, "args");
        Objects.requireNonNull(timeout, "timeout");
        if (args.length > maxPayload) {
            throw new IllegalArgumentException(
                    "args of "
                            + args.length
                            + " bytes exceed maxPayloadBytes "
                            + maxPayload
                            + " of "
                            + file());
        }
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be 0 or more, got " + timeout);
        }
        requireNotClosed();
        counters.increment(Op.EXECUTE);
        Binding binding = bindingOf(passId);
        if (binding == null) {
            throw new PassNotRegisteredException(
                    passId,
                    "pass "
                            + passId
                            + " of "
                            + file()
                            + " is not registered by any process (never registered, or its entry"
                            + " was reused for another id after it was unregistered)");
        }
        int offset = binding.entryOffset;
        int record = offset + OWNER_RECORD_OFFSET;
        long word = binding.ownerWord;
        if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER) {
            throw new PassNotRegisteredException(
                    passId,
                    "pass "
                            + passId
                            + " of "
                            + file()
                            + " is not registered: its last owner unregistered it");
        }
        Call call =
                new Call(
                        passId,
                        offset,
                        args,
                        timeout,
                        word,
                        OwnerRecord.startTime(body, record, word),
                        future);
        call.nextCheck = System.nanoTime() + waiting.ownerCheck().toNanos();
        call.wakeAddress = body.getLongAcquire(offset + WAKE_ADDRESS_OFFSET);
        return call;
    }

    /**
     * Claims a free slot and publishes the request; false if none is free yet. Throws when the wait
     * for a slot is over (timeout, owner gone).
     */
    private boolean trySubmit(Call call) {
        if (call.slot >= 0) {
            return true;
        }
        // A caller that blocks at once says so with its request: the answer's poke is then the
        // only system call of its wait (a plain socket's caller also writes, then reads).
        long token = 0;
        if (call.future == null && blocksAtOnce(waiting)) {
            WakeConnection wake = connection(call, call.wakeAddress);
            token = wake == null ? 0 : wake.token;
        }
        call.announced = token;
        int first = ThreadLocalRandom.current().nextInt(mailboxSlots);
        for (int i = 0; i < mailboxSlots; i++) {
            int slot = slotOffset(call.entryOffset, (first + i) % mailboxSlots);
            long word = body.getLongVolatile(slot + STATE_WORD_OFFSET);
            if (state(word) != STATE_FREE) {
                continue;
            }
            long claimed = packState(STATE_CLAIMED, nextGeneration(word), PID);
            Interleaving.at(Point.PASS_SLOT_JUDGED);
            if (!body.compareAndSetLong(slot + STATE_WORD_OFFSET, word, claimed)) {
                continue;
            }
            // The slot is ours: nobody else writes it until we publish. Our start time first, so
            // a reclaimer can tell us from a later process that reuses our PID.
            body.setLongRelease(
                    slot + CALLER_IDENTITY_OFFSET, callerIdentity(generation(claimed), START_TIME));
            body.setLongPlain(slot + OWNER_START_TIME_OFFSET, call.ownerStartTime);
            body.setLongPlain(slot + WAKE_TOKEN_OFFSET, token);
            body.setLongPlain(slot + ADDRESSED_OWNER_OFFSET, call.addressed);
            body.putBytes(slot + SLOT_HEADER_LENGTH, call.args);
            body.setIntPlain(slot + LENGTH_OFFSET, call.args.length);
            Interleaving.at(Point.PASS_REQUEST_WRITTEN);
            long request = withState(claimed, STATE_REQUEST);
            if (body.compareAndSetLong(slot + STATE_WORD_OFFSET, claimed, request)) {
                call.slot = slot;
                call.claimed = request;
                wakeDispatcher(call);
                return true;
            }
            // Reclaimed as a dead caller's: impossible for a live one, but never write on.
        }
        long now = System.nanoTime();
        if (now - call.nextCheck >= 0) {
            call.nextCheck = now + waiting.ownerCheck().toNanos();
            reclaimDeadSlots(call.entryOffset);
            CxcException gone = ownerGone(call, false);
            if (gone != null) {
                throw gone;
            }
        }
        if (now - call.deadline >= 0) {
            throw new CxcCapacityException(
                    "all "
                            + mailboxSlots
                            + " mailbox slots (mailboxSlots) of pass "
                            + call.passId
                            + " in "
                            + file()
                            + " stayed busy for "
                            + call.timeout
                            + ": its owner, PID "
                            + call.ownerPid()
                            + ", serves fewer calls than arrive. Raise mailboxSlots or the"
                            + " timeout, or call less often");
        }
        return false;
    }

    /** The result, or null while pending; throws for every other outcome. */
    private byte @Nullable [] poll(Call call) {
        int slot = call.slot;
        long word = body.getLongVolatile(slot + STATE_WORD_OFFSET);
        if (!sameClaim(word, call.claimed)) {
            throw slotReclaimed(call);
        }
        int state = state(word);
        if (state == STATE_RESPONSE || state == STATE_FAILED) {
            return take(call, word);
        }
        long now = System.nanoTime();
        if (now - call.nextCheck >= 0) {
            call.nextCheck = now + waiting.ownerCheck().toNanos();
            CxcException gone = ownerGone(call, state == STATE_RUNNING);
            if (gone != null) {
                return giveUp(call, gone);
            }
        }
        if (now - call.deadline >= 0) {
            return giveUp(
                    call,
                    new CxcTimeoutException(
                            "pass "
                                    + call.passId
                                    + " of "
                                    + file()
                                    + " got no answer from its owner, PID "
                                    + call.ownerPid()
                                    + ", within "
                                    + call.timeout
                                    + (state == STATE_RUNNING
                                            ? "; its handler was still running (its result will"
                                                    + " be dropped)"
                                            : "; the request was withdrawn before it ran")));
        }
        return null;
    }

    private static boolean sameClaim(long word, long claimed) {
        return generation(word) == generation(claimed) && callerPid(word) == callerPid(claimed);
    }

    /**
     * Why the call's owner can no longer answer, or null: the pass moved on and the request was not
     * taken, or the process that took it is dead.
     */
    private @Nullable CxcException ownerGone(Call call, boolean running) {
        int record = call.entryOffset + OWNER_RECORD_OFFSET;
        long current = OwnerRecord.ownerWord(body, record);
        boolean dead =
                ProcessProbe.status(call.ownerPid(), call.ownerStartTime) == ProcessStatus.DEAD;
        if (dead) {
            return new PassOwnerDiedException(
                    call.passId,
                    call.ownerPid(),
                    "the owner of pass "
                            + call.passId
                            + " in "
                            + file()
                            + ", PID "
                            + call.ownerPid()
                            + ", died while the call was pending"
                            + (running ? " (its handler had started: it may have run)" : ""));
        }
        if (current != call.addressed && !running) {
            return new PassOwnerDiedException(
                    call.passId,
                    call.ownerPid(),
                    "pass "
                            + call.passId
                            + " of "
                            + file()
                            + " was "
                            + (OwnerRecord.pid(current) == OwnerRecord.NO_OWNER
                                            || boundId(call.entryOffset, current) != call.passId
                                    ? "unregistered by its owner, PID " + call.ownerPid()
                                    : "taken over from PID "
                                            + call.ownerPid()
                                            + " by PID "
                                            + OwnerRecord.pid(current))
                            + " before it took the call");
        }
        return null;
    }

    /** Withdraws the call: returns a result that arrived meanwhile, else throws {@code why}. */
    private byte[] giveUp(Call call, CxcException why) {
        int offset = call.slot + STATE_WORD_OFFSET;
        boolean ownerDead = why instanceof PassOwnerDiedException && !isAlive(call);
        while (true) {
            long word = body.getLongVolatile(offset);
            if (!sameClaim(word, call.claimed)) {
                throw why;
            }
            switch (state(word)) {
                case STATE_RESPONSE, STATE_FAILED -> {
                    return take(call, word);
                }
                case STATE_REQUEST -> {
                    if (body.compareAndSetLong(offset, word, withState(word, STATE_FREE))) {
                        throw why;
                    }
                }
                case STATE_RUNNING -> {
                    // A dead dispatcher never answers: free the slot. A live one frees it itself.
                    int next = ownerDead ? STATE_FREE : STATE_ABANDONED;
                    if (body.compareAndSetLong(offset, word, withState(word, next))) {
                        throw why;
                    }
                }
                default -> throw why;
            }
        }
    }

    private boolean isAlive(Call call) {
        return ProcessProbe.status(call.ownerPid(), call.ownerStartTime) != ProcessStatus.DEAD;
    }

    /** Reads the published outcome, frees the slot, and returns the result or throws. */
    private byte[] take(Call call, long word) {
        int slot = call.slot;
        int length = body.getIntAcquire(slot + LENGTH_OFFSET);
        byte[] payload = null;
        if (length >= 0 && length <= maxPayload) {
            payload = new byte[length];
            body.getBytes(slot + SLOT_HEADER_LENGTH, payload);
        }
        if (call.announced != 0) {
            // Not left for the next claim's answer to find (unless the dispatcher took it).
            body.compareAndSetLong(slot + WAKE_TOKEN_OFFSET, call.announced, 0);
        }
        // Read before freeing: the next claim may overwrite the payload.
        body.compareAndSetLong(slot + STATE_WORD_OFFSET, word, withState(word, STATE_FREE));
        if (payload == null) {
            throw new CxcException(
                    "pass "
                            + call.passId
                            + " of "
                            + file()
                            + " answered with a length of "
                            + Integer.toUnsignedString(length)
                            + " bytes, outside 0.."
                            + maxPayload
                            + "; the file is corrupt");
        }
        if (state(word) == STATE_FAILED) {
            String text = new String(payload, StandardCharsets.UTF_8);
            int split = text.indexOf('\n');
            throw new PassFailedException(
                    call.passId,
                    call.ownerPid(),
                    split < 0 ? text : text.substring(0, split),
                    split < 0 ? "" : text.substring(split + 1));
        }
        return payload;
    }

    private CxcException slotReclaimed(Call call) {
        return new PassOwnerDiedException(
                call.passId,
                call.ownerPid(),
                "the mailbox slot of a call to pass "
                        + call.passId
                        + " in "
                        + file()
                        + " was reclaimed: its owner, PID "
                        + call.ownerPid()
                        + ", was judged dead while the call was pending");
    }

    /**
     * Frees the slots of dead parties: a dead caller's claimed, requested or answered slot, and a
     * dead owner's running or abandoned one. Each by CAS from the judged word. Dead is by PID and
     * start time ({@link ProcessProbe}): a caller's start time as it stamped it for this very claim
     * (a claim killed before stamping is judged by PID only), the owner's as the caller read it. So
     * a slot whose PID now names another process is reclaimed. Probes {@code /proc} per busy slot:
     * run only when the mailbox is full.
     */
    private void reclaimDeadSlots(int entryOffset) {
        for (int i = 0; i < mailboxSlots; i++) {
            int slot = slotOffset(entryOffset, i);
            long word = body.getLongVolatile(slot + STATE_WORD_OFFSET);
            int state = state(word);
            long judged;
            long startTime;
            if (state == STATE_CLAIMED
                    || state == STATE_REQUEST
                    || state == STATE_RESPONSE
                    || state == STATE_FAILED) {
                judged = callerPid(word);
                startTime =
                        callerStartTime(body.getLongAcquire(slot + CALLER_IDENTITY_OFFSET), word);
            } else if (state == STATE_RUNNING || state == STATE_ABANDONED) {
                // Written before the request was published, which these states follow.
                judged = OwnerRecord.pid(body.getLongAcquire(slot + ADDRESSED_OWNER_OFFSET));
                startTime = body.getLongAcquire(slot + OWNER_START_TIME_OFFSET);
            } else {
                continue;
            }
            if (judged == 0 || ProcessProbe.status(judged, startTime) == ProcessStatus.DEAD) {
                body.compareAndSetLong(slot + STATE_WORD_OFFSET, word, withState(word, STATE_FREE));
            }
        }
    }

    // ---------------------------------------------------------------------------- dispatcher

    private void republish() {
        served = registrations.values().toArray(new Registration[0]);
    }

    private void startDispatchers() {
        if (!dispatchers.isEmpty()) {
            return;
        }
        for (int i = 0; i < dispatcherCount; i++) {
            Thread thread = new Thread(this::dispatch, "cxc-pass-dispatcher-" + name() + "-" + i);
            thread.setDaemon(true);
            dispatchers.add(thread);
            thread.start();
        }
    }

    private void dispatch() {
        Waiter waiter = new Waiter(waiting);
        Blocker blocker = this::blockForRequests;
        while (!closing) {
            boolean served = false;
            for (Registration r : this.served) {
                if (!stillOurs(r)) {
                    lost(r);
                    continue;
                }
                for (int i = 0; i < mailboxSlots; i++) {
                    int slot = slotOffset(r.entryOffset, i);
                    long word = body.getLongVolatile(slot + STATE_WORD_OFFSET);
                    if (state(word) == STATE_REQUEST
                            && body.getLongAcquire(slot + ADDRESSED_OWNER_OFFSET) == r.ownerWord
                            && body.compareAndSetLong(
                                    slot + STATE_WORD_OFFSET,
                                    word,
                                    withState(word, STATE_RUNNING))) {
                        serve(r, slot, withState(word, STATE_RUNNING));
                        served = true;
                    }
                }
            }
            if (served) {
                waiter = new Waiter(waiting);
            } else {
                waiter.await(blocker);
            }
        }
    }

    private boolean stillOurs(Registration r) {
        return OwnerRecord.ownerWord(body, r.entryOffset + OWNER_RECORD_OFFSET) == r.ownerWord;
    }

    /** Our word was replaced (we were judged dead, or the file was rewritten): stop serving. */
    private synchronized void lost(Registration r) {
        if (registrations.remove(r.passId, r)) {
            republish();
        }
    }

    private void serve(Registration r, int slot, long running) {
        counters.increment(Op.SERVE);
        int length = body.getIntAcquire(slot + LENGTH_OFFSET);
        byte[] result;
        boolean failed = false;
        if (length < 0 || length > maxPayload) {
            result =
                    failure(
                            "java.lang.IllegalArgumentException",
                            "request length "
                                    + Integer.toUnsignedString(length)
                                    + " is outside 0.."
                                    + maxPayload);
            failed = true;
        } else {
            byte[] args = new byte[length];
            body.getBytes(slot + SLOT_HEADER_LENGTH, args);
            try {
                byte[] out = r.handler.handle(args);
                result = out == null ? new byte[0] : out;
                if (result.length > maxPayload) {
                    result =
                            failure(
                                    "java.lang.IllegalArgumentException",
                                    "the handler's result of "
                                            + result.length
                                            + " bytes exceeds maxPayloadBytes "
                                            + maxPayload);
                    failed = true;
                }
            } catch (Throwable e) {
                result =
                        failure(
                                e.getClass().getName(),
                                e.getMessage() == null ? "" : e.getMessage());
                failed = true;
            }
        }
        int offset = slot + STATE_WORD_OFFSET;
        // Only the dispatcher whose CAS took the request writes while it runs; the caller may
        // abandon meanwhile, but writes nothing.
        body.putBytes(slot + SLOT_HEADER_LENGTH, result);
        body.setIntPlain(slot + LENGTH_OFFSET, result.length);
        Interleaving.at(Point.PASS_ANSWER_WRITTEN);
        // Counted before the answer is published, so a caller that has its answer sees the count.
        body.getAndAddLong(r.entryOffset + CALLS_OFFSET, 1);
        if (body.compareAndSetLong(
                offset, running, withState(running, failed ? STATE_FAILED : STATE_RESPONSE))) {
            wakeCaller(slot, running);
        } else {
            // Abandoned by its caller: nobody reads this answer, free the slot.
            body.compareAndSetLong(
                    offset, withState(running, STATE_ABANDONED), withState(running, STATE_FREE));
        }
    }

    /** A handler's failure as the caller reads it: class, newline, message; cut to fit. */
    private byte[] failure(String type, String message) {
        byte[] text = (type + "\n" + message).getBytes(StandardCharsets.UTF_8);
        return text.length <= maxPayload ? text : Arrays.copyOf(text, maxPayload);
    }

    // ------------------------------------------------------------------------------- wake-up

    /*
     * The wake-up channel carries only "look now"; the mailbox stays the data path. Each side that
     * is about to block says so in the file by CAS (the dispatcher in its entries' parked word, a
     * caller in its slot's wake token), then looks at the file once more, then blocks on its socket
     * until poked. The other side, after its own CAS that publishes work (a request, an answer),
     * reads that word and, if set, takes it by CAS and pokes. Both sides' steps are volatile or
     * CAS, so either the blocker's last look sees the work or the publisher sees the announcement.
     * A poke lost (a dead or closed socket, a full buffer, a token not yet known to the server)
     * leaves the blocker to the ticker, which wakes it within two poll intervals (maxPark).
     */

    private synchronized void startWakeServer() {
        if (wakeStarted) {
            return;
        }
        wakeStarted = true;
        wakeServer = WakeServer.start(file(), PID, START_TIME);
    }

    /** After publishing a request: pokes the owner's dispatcher if it said it was blocking. */
    private void wakeDispatcher(Call call) {
        int parked = call.entryOffset + DISPATCHER_PARKED_OFFSET;
        long address = body.getLongVolatile(parked);
        if (address == 0 || !body.compareAndSetLong(parked, address, 0)) {
            return;
        }
        if (address != call.wakeAddress) {
            // Not the socket the call waits on (its entry was rebound meanwhile): a pooled one.
            WakeConnection other = borrow(address);
            if (other != null) {
                try {
                    other.poke();
                    release(other);
                } catch (IOException e) {
                    other.close();
                }
            }
            return;
        }
        WakeConnection wake = connection(call, address);
        if (wake == null) {
            return;
        }
        try {
            wake.poke();
        } catch (IOException e) {
            drop(call);
        }
        if (call.future != null) {
            giveBack(call); // the completer parks, it does not block on a connection
        }
    }

    /** Whether this handle's dispatcher waits in a blocking read of its only caller (tests). */
    boolean waitsSolo() {
        WakeServer server = wakeServer;
        return server != null && server.waitsSolo();
    }

    private static boolean blocksAtOnce(Waiting waiting) {
        return waiting.spin().isZero() && waiting.yield().isZero();
    }

    /** After publishing an answer: pokes the caller if it said it was blocking. */
    private void wakeCaller(int slot, long answered) {
        int tokenOffset = slot + WAKE_TOKEN_OFFSET;
        long token = body.getLongVolatile(tokenOffset);
        WakeServer server = wakeServer;
        if (token == 0 || server == null || !body.compareAndSetLong(tokenOffset, token, 0)) {
            return;
        }
        // Our caller may have taken its answer and freed the slot, and a new call claimed it and
        // announced: the token taken is then the new call's. Give it back, poke nobody.
        if (generation(body.getLongVolatile(slot + STATE_WORD_OFFSET)) != generation(answered)) {
            body.compareAndSetLong(tokenOffset, 0, token);
            return;
        }
        server.poke(token);
    }

    /**
     * A caller waiting for its answer: blocks in an untimed read on its wake connection (the ticker
     * bounds it), else parks.
     */
    private void blockForAnswer(Call call, long suggestedNanos) {
        // An interrupted thread's channel read closes the channel at once: park instead.
        WakeConnection wake =
                Thread.currentThread().isInterrupted() ? null : connection(call, call.wakeAddress);
        if (wake == null) {
            // Not past the call's next owner check or its deadline, however long maxPark is.
            long now = System.nanoTime();
            long until = Math.min(call.nextCheck - now, call.deadline - now);
            LockSupport.parkNanos(Math.max(1, Math.min(suggestedNanos, until)));
            return;
        }
        int tokenOffset = call.slot + WAKE_TOKEN_OFFSET;
        try {
            long current = body.getLongVolatile(tokenOffset);
            if (current != wake.token
                    && !body.compareAndSetLong(tokenOffset, current, wake.token)) {
                return; // the dispatcher just took a token: look again
            }
            long word = body.getLongVolatile(call.slot + STATE_WORD_OFFSET);
            int state = state(word);
            if (sameClaim(word, call.claimed)
                    && (state == STATE_REQUEST || state == STATE_RUNNING)) {
                call.tickerCheck = call.nextCheck;
                call.answeredUnwoken = false;
                blocked.put(call, wake);
                wakeTicker(call);
                try {
                    if (!closing) { // close() closes the connections it finds blocked
                        wake.await();
                    }
                } finally {
                    if (!blocked.remove(call, wake)) {
                        call.wake = null; // the ticker or close() closed it to wake us
                    }
                }
            }
            body.compareAndSetLong(tokenOffset, wake.token, 0);
        } catch (EOFException e) {
            // The owner's socket closed: it closed its registry or died. Check it now.
            body.compareAndSetLong(tokenOffset, wake.token, 0);
            call.nextCheck = System.nanoTime();
            drop(call);
        } catch (IOException e) {
            body.compareAndSetLong(tokenOffset, wake.token, 0);
            drop(call);
        }
    }

    // -------------------------------------------------------------------------------- ticker

    /*
     * A blocked caller waits in an untimed read: its poke is its wait's only system call. What
     * bounds the wait is this handle's ticker, one thread that, while any call is blocked, looks
     * every maxPark (and at the earliest blocked deadline) at each blocked call in the file, and
     * closes the connection of a call that is due, which ends its read at once: its deadline
     * passed; it was answered but not woken at two looks in a row (a poke lost: its token unknown
     * to the server yet, a failed write; one look could fall between an answer and its poke); its
     * slot was reclaimed; or, every ownerCheck, its owner is found gone (a dead owner's socket
     * closes by itself, which the read sees at once). A closed connection is not reused: the call's
     * next wait connects afresh. The ticker sleeps once no call has blocked for IDLE_TICKS ticks.
     */

    /** Makes sure the ticker looks at {@code call} by its deadline. */
    private void wakeTicker(Call call) {
        wakeTicker(call.deadline - tickerWakeAt < 0);
    }

    /** Makes sure the ticker runs while the dispatcher blocks. */
    private void wakeTicker() {
        wakeTicker(false);
    }

    /** Starts the ticker, or unparks it if it sleeps or {@code sooner} says it must look now. */
    private void wakeTicker(boolean sooner) {
        Thread thread = ticker;
        if (thread == null) {
            startTicker();
        } else if (tickerIdle || sooner) {
            tickerIdle = false;
            LockSupport.unpark(thread);
        }
    }

    private synchronized void startTicker() {
        if (ticker != null || closing) {
            return;
        }
        Thread thread = new Thread(this::tick, "cxc-pass-ticker-" + name());
        thread.setDaemon(true);
        tickerWakeAt = System.nanoTime();
        ticker = thread;
        thread.start();
    }

    private void tick() {
        int quiet = 0;
        while (!closing) {
            long now = System.nanoTime();
            long next = now + waiting.maxPark().toNanos();
            for (Map.Entry<Call, WakeConnection> e : blocked.entrySet()) {
                Call call = e.getKey();
                if (due(call, now)) {
                    if (blocked.remove(call, e.getValue())) {
                        e.getValue().close();
                    }
                } else if (call.deadline - next < 0) {
                    next = call.deadline;
                }
            }
            lookAtDispatcher();
            if (!blocked.isEmpty() || dispatcherWait != 0) {
                quiet = 0;
            } else if (++quiet >= IDLE_TICKS) {
                quiet = 0;
                tickerIdle = true;
                if (blocked.isEmpty() && dispatcherWait == 0 && !closing) {
                    // until a call or a dispatcher blocks (it sees tickerIdle)
                    LockSupport.park(this);
                }
                tickerIdle = false;
                continue;
            }
            tickerWakeAt = next;
            LockSupport.parkNanos(this, Math.max(1, next - System.nanoTime()));
        }
    }

    /**
     * Wakes the blocked dispatcher if a request waited unserved at two looks in its wait (one look
     * can fall between a request and its poke) or a pass it serves was taken from it. The ticker's
     * only; a wake-up that comes late only makes the dispatcher look once more.
     */
    private void lookAtDispatcher() {
        long wait = dispatcherWait;
        WakeServer server = wakeServer;
        if (wait == 0 || server == null) {
            unservedIn = 0;
            return;
        }
        Registration[] mine = served;
        for (Registration r : mine) {
            if (!stillOurs(r)) {
                server.wakeup();
                return;
            }
        }
        if (!hasRequest(mine)) {
            unservedIn = 0;
        } else if (unservedIn == wait) {
            unservedIn = 0;
            server.wakeup();
        } else {
            unservedIn = wait;
        }
    }

    /** Whether a blocked call must be woken now. The ticker's only. */
    private boolean due(Call call, long now) {
        if (now - call.deadline >= 0) {
            return true;
        }
        long word = body.getLongVolatile(call.slot + STATE_WORD_OFFSET);
        int state = state(word);
        if (!sameClaim(word, call.claimed)) {
            return true;
        }
        if (state != STATE_REQUEST && state != STATE_RUNNING) {
            if (call.answeredUnwoken) {
                return true;
            }
            call.answeredUnwoken = true;
            return false;
        }
        if (now - call.tickerCheck >= 0) {
            call.tickerCheck = now + waiting.ownerCheck().toNanos();
            return ownerGone(call, state == STATE_RUNNING) != null;
        }
        return false;
    }

    /** Wakes every blocked call (at close). */
    private void wakeAllBlocked() {
        for (Map.Entry<Call, WakeConnection> e : blocked.entrySet()) {
            if (blocked.remove(e.getKey(), e.getValue())) {
                e.getValue().close();
            }
        }
    }

    /**
     * A dispatcher with nothing to do: the one that holds the wake socket announces itself in its
     * entries and blocks in it; the others park.
     */
    private void blockForRequests(long suggestedNanos) {
        WakeServer server = wakeServer;
        if (server == null || !server.tryLock()) {
            LockSupport.parkNanos(suggestedNanos);
            return;
        }
        Registration[] mine = served;
        try {
            server.drain(); // before the last look: a poke drained after it could be lost
            for (Registration r : mine) {
                int parked = r.entryOffset + DISPATCHER_PARKED_OFFSET;
                long current = body.getLongVolatile(parked);
                if (current != server.address) {
                    body.compareAndSetLong(parked, current, server.address);
                }
            }
            if (!hasRequest(mine)) {
                dispatcherWait = ++dispatcherWaits;
                wakeTicker();
                try {
                    server.await();
                } finally {
                    dispatcherWait = 0;
                }
            }
        } finally {
            for (Registration r : mine) {
                body.compareAndSetLong(r.entryOffset + DISPATCHER_PARKED_OFFSET, server.address, 0);
            }
            server.unlock();
        }
    }

    private boolean hasRequest(Registration[] mine) {
        for (Registration r : mine) {
            for (int i = 0; i < mailboxSlots; i++) {
                int slot = slotOffset(r.entryOffset, i);
                if (state(body.getLongVolatile(slot + STATE_WORD_OFFSET)) == STATE_REQUEST
                        && body.getLongAcquire(slot + ADDRESSED_OWNER_OFFSET) == r.ownerWord) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The call's connection to the wake socket at {@code address}, or null if none. */
    private @Nullable WakeConnection connection(Call call, long address) {
        if (call.wake != null) {
            if (call.wake.address == address) {
                return call.wake;
            }
            giveBack(call);
        }
        WakeConnection wake = borrow(address);
        call.wake = wake;
        return wake;
    }

    /** A pooled connection to the wake socket at {@code address}, or a new one; null if none. */
    private @Nullable WakeConnection borrow(long address) {
        if (address == 0 || unreachable.contains(address) || closing) {
            return null;
        }
        WakeConnection wake =
                wakePool.computeIfAbsent(address, a -> new ConcurrentLinkedQueue<>()).poll();
        if (wake != null) {
            return wake;
        }
        java.nio.file.Path socket = WakeServer.socketOf(file(), address);
        if (socket == null) {
            unreachable.add(address);
            return null;
        }
        try {
            return WakeConnection.connect(socket, address);
        } catch (java.nio.channels.ClosedByInterruptException e) {
            return null; // this thread's interrupt, not the socket
        } catch (IOException | RuntimeException e) {
            unreachable.add(address); // gone, or no Unix sockets here: poll
            return null;
        }
    }

    private void release(WakeConnection wake) {
        if (closing) {
            wake.close();
            return;
        }
        wakePool.computeIfAbsent(wake.address, a -> new ConcurrentLinkedQueue<>()).offer(wake);
    }

    private void giveBack(Call call) {
        WakeConnection wake = call.wake;
        if (wake == null) {
            return;
        }
        call.wake = null;
        release(wake);
    }

    /** The connection failed: close it; the next block connects afresh. */
    private void drop(Call call) {
        WakeConnection wake = call.wake;
        call.wake = null;
        if (wake != null) {
            wake.close();
        }
    }

    // ----------------------------------------------------------------------------- completer

    private void startCompleter() {
        if (completer != null) {
            return;
        }
        Thread thread = new Thread(this::complete, "cxc-pass-completer-" + name());
        thread.setDaemon(true);
        completer = thread;
        thread.start();
    }

    private void complete() {
        Waiter waiter = new Waiter(waiting);
        while (!closing) {
            boolean progressed = false;
            for (var it = asyncCalls.iterator(); it.hasNext(); ) {
                Call call = it.next();
                try {
                    if (!trySubmit(call)) {
                        continue;
                    }
                    byte[] result = poll(call);
                    if (result != null) {
                        it.remove();
                        Objects.requireNonNull(call.future).complete(result);
                        progressed = true;
                    }
                } catch (RuntimeException e) {
                    it.remove();
                    Objects.requireNonNull(call.future).completeExceptionally(e);
                    progressed = true;
                }
            }
            if (progressed) {
                waiter = new Waiter(waiting);
            } else {
                waiter.await();
            }
        }
    }

    private void fail(Call call, RuntimeException why) {
        try {
            if (call.slot >= 0) {
                giveUp(call, new CxcException(why.getMessage()));
            }
            Objects.requireNonNull(call.future).completeExceptionally(why);
        } catch (RuntimeException e) {
            Objects.requireNonNull(call.future).completeExceptionally(why);
        }
    }

    /**
     * Spins for {@link Waiting#spin()} from its creation, yields for {@link Waiting#yield()}, then
     * parks with a doubling back-off.
     */
    private static final class Waiter {
        private final long spinUntil;
        private final long yieldUntil;
        private final long maxPark;
        private long park = FIRST_PARK_NANOS;

        Waiter(Waiting waiting) {
            long now = System.nanoTime();
            this.spinUntil = now + waiting.spin().toNanos();
            this.yieldUntil = spinUntil + waiting.yield().toNanos();
            this.maxPark = waiting.maxPark().toNanos();
        }

        void await() {
            await(LockSupport::parkNanos);
        }

        /**
         * As {@link #await()}, blocking through {@code blocker} once past spinning and yielding.
         */
        void await(Blocker blocker) {
            long now = System.nanoTime();
            if (now - spinUntil < 0) {
                Thread.onSpinWait();
            } else if (now - yieldUntil < 0) {
                Thread.yield();
            } else {
                blocker.block(park);
                park = Math.min(maxPark, park * 2);
            }
        }
    }

    /** How a waiter blocks: {@code parkNanos}, or on a wake socket up to the poll interval. */
    @FunctionalInterface
    private interface Blocker {
        void block(long suggestedNanos);
    }

    // ---------------------------------------------------------------------------------- reads

    public int maxPasses() {
        return maxPasses;
    }

    public int mailboxSlots() {
        return mailboxSlots;
    }

    public int maxPayloadBytes() {
        return maxPayload;
    }

    /**
     * The id entry {@code entryOffset} is bound to under its owner word {@code word}, or {@link
     * #NO_PASS} if none (never bound, or being bound). Reads the bound key, then the id, then both
     * words again: a binder changes the owner word before the id, and publishes the bound key after
     * it, so an unchanged pair proves the id belongs to {@code word}.
     */
    private long boundId(int entryOffset, long word) {
        long key = body.getLongAcquire(entryOffset + BOUND_KEY_OFFSET);
        if (key != OwnerRecord.key(word)) {
            return NO_PASS;
        }
        long id = body.getLongAcquire(entryOffset + PASS_ID_OFFSET);
        if (OwnerRecord.ownerWord(body, entryOffset + OWNER_RECORD_OFFSET) != word
                || body.getLongVolatile(entryOffset + BOUND_KEY_OFFSET) != key) {
            return NO_PASS;
        }
        return id;
    }

    /** Where {@code passId} is bound: the entry and the owner word it is bound under. */
    private record Binding(int entry, int entryOffset, long ownerWord) {}

    /**
     * The entry bound to {@code passId}, or null: the cached entry if still bound to it, else a
     * scan of every entry (entries are reused, so there is no end marker).
     */
    private @Nullable Binding bindingOf(long passId) {
        Integer cached = entries.get(passId);
        if (cached != null) {
            Binding binding = bindingAt(cached, passId);
            if (binding != null) {
                return binding;
            }
            entries.remove(passId, cached);
        }
        for (int entry = 0; entry < maxPasses; entry++) {
            Binding binding = bindingAt(entry, passId);
            if (binding != null) {
                entries.put(passId, entry);
                return binding;
            }
        }
        return null;
    }

    private @Nullable Binding bindingAt(int entry, long passId) {
        int offset = entryOffset(entry);
        long word = OwnerRecord.ownerWord(body, offset + OWNER_RECORD_OFFSET);
        return boundId(offset, word) == passId ? new Binding(entry, offset, word) : null;
    }

    private int entryOffset(int entry) {
        return REGISTRY_HEADER_LENGTH + entry * entryStride;
    }

    private int slotOffset(int entryOffset, int slot) {
        return entryOffset + ENTRY_HEADER_LENGTH + slot * slotStride;
    }

    private static void requirePassId(long passId) {
        if (passId == NO_PASS) {
            throw new IllegalArgumentException(
                    "passId must not be 0 (it marks an unused entry), got 0");
        }
    }

    private void requireNotClosed() {
        if (closing || isClosed()) {
            throw new IllegalStateException(file() + " is closed");
        }
    }

    // ----------------------------------------------------------------------------- lifecycle

    /**
     * Unregisters every pass this handle holds, stops its dispatchers (a running handler is waited
     * for, up to 10 s) and its completer (pending async calls fail), and marks the handle closed.
     */
    @Override
    public void close() {
        List<Thread> threads = new ArrayList<>();
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
            for (Registration r : registrations.values()) {
                OwnerRecord.release(body, r.entryOffset + OWNER_RECORD_OFFSET, r.ownerWord);
            }
            registrations.clear();
            republish();
            threads.addAll(dispatchers);
            if (completer != null) {
                threads.add(completer);
            }
            Thread tickerThread = ticker;
            if (tickerThread != null) {
                threads.add(tickerThread);
            }
        }
        wakeAllBlocked(); // after closing is set: a call blocking from now on does not wait
        long deadline = System.nanoTime() + STOP_WAIT.toNanos();
        WakeServer blocking = wakeServer;
        if (blocking != null) {
            blocking.wakeup();
        }
        for (Thread thread : threads) {
            LockSupport.unpark(thread);
            try {
                thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        WakeServer server = wakeServer;
        if (server != null) {
            server.close();
        }
        for (ConcurrentLinkedQueue<WakeConnection> pool : wakePool.values()) {
            WakeConnection wake;
            while ((wake = pool.poll()) != null) {
                wake.close();
            }
        }
        Call call;
        while ((call = asyncCalls.poll()) != null) {
            fail(
                    call,
                    new IllegalStateException(file() + " was closed while the call was pending"));
        }
        super.close();
    }

    /** The settings, busy slots, and each pass id with its owner PID and calls served. */
    @Override
    public Map<String, Object> describe() {
        List<Map<String, Object>> passes = new ArrayList<>();
        int busy = 0;
        for (int entry = 0; entry < maxPasses; entry++) {
            int offset = entryOffset(entry);
            long word = OwnerRecord.ownerWord(body, offset + OWNER_RECORD_OFFSET);
            long id = boundId(offset, word);
            for (int i = 0; i < mailboxSlots; i++) {
                if (state(body.getLongVolatile(slotOffset(offset, i) + STATE_WORD_OFFSET))
                        != STATE_FREE) {
                    busy++;
                }
            }
            if (id == NO_PASS) {
                continue;
            }
            long owner = OwnerRecord.pid(word);
            passes.add(
                    fields(
                            "passId", id,
                            "ownerPid", owner,
                            "calls", body.getLongVolatile(offset + CALLS_OFFSET)));
        }
        return fields(
                "maxPasses",
                maxPasses,
                "mailboxSlots",
                mailboxSlots,
                "maxPayloadBytes",
                maxPayload,
                "busySlots",
                busy,
                "registeredHere",
                registrations.size(),
                "wakeSocket",
                wakeServer == null ? "none" : wakeServer.socket.toString(),
                "blockedCalls",
                blocked.size(),
                "passes",
                List.copyOf(passes));
    }
}
