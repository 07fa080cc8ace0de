package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.observe.OpCounters;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Calls a handler in the process that registered it, from any process: the seed's {@code
 * pass_registry}. A process {@linkplain #register registers} a {@link PassHandler} under a pass id;
 * any process that maps the file {@linkplain #execute executes} the pass with argument bytes; the
 * handler runs in the registering process, on this handle's dispatcher threads, and the result
 * bytes come back. Handlers never leave their process. Layout: {@link PassRegistryDescriptor}.
 *
 * <p><b>Its parts.</b> Each pass id has one owner at a time, bound under the registry's binder
 * record through the ownership block ({@link PassBindings}): registering an id a live process owns
 * is a {@link PassOwnedException} naming that PID; a provably dead owner is taken over by one CAS.
 * A call is a few CAS steps on a mailbox slot of the pass ({@link PassMailbox}, where each step and
 * what a crash at it leaves behind is written down). The caller's side ({@link PassCaller}), the
 * dispatcher threads ({@link PassDispatchers}), the async calls' completer ({@link PassCompleter})
 * and the dispatcher's safety look ({@link PassTicker}) drive it; a side about to block sleeps on a
 * doorbell, which the other side rings once it sees the announcement in the file.
 *
 * <p><b>Never a hang.</b> An unknown or unregistered id fails at once ({@link
 * PassNotRegisteredException}); an argument over {@code maxPayloadBytes} is an {@link
 * IllegalArgumentException} naming the limit; a handler that throws comes back as a {@link
 * PassFailedException}; a full mailbox is back-pressure: the caller waits for a slot within its
 * timeout, then gets a {@link CxcCapacityException} naming {@code mailboxSlots}; an owner that dies
 * or unregisters while a call is pending fails it within about one {@code ownerCheck} (10 ms by
 * default, {@link PassWaiting}); any other wait ends at the caller's timeout with a {@link
 * CxcTimeoutException} saying what it waited for.
 *
 * <p><b>Waiting.</b> Both sides spin for {@link PassWaiting#spin()} after their last event, yield
 * for {@link PassWaiting#yield()}, then block. A mapped file cannot wake another process: wake-ups
 * go through Unix domain sockets (owner-only, beside the file) that carry only "look now", and only
 * when the other side announced in the file, by CAS, that it is about to block. A caller sleeps on
 * the file's callers' doorbell ({@link io.subetha.cxc.wake.Doorbell}, shared by every process's
 * callers): it names its waiter slot in its mailbox slot (with the request itself when it blocks at
 * once) and announces itself there; the dispatcher that answers rings that waiter alone. A handle
 * that registers starts a wake socket of its own, which callers poke once its dispatcher announced
 * itself in its entries' <i>dispatcher parked</i> word; the dispatcher waits untimed, in a blocking
 * read while one caller connects, bounded by its ticker. Each side's announcement and its last look
 * are volatile or CAS, and so are the other side's publication and its read of the announcement:
 * either the blocker's last look sees the work, or the publisher sees the announcement. A lost ring
 * costs a caller its waiter's safety look (1 ms doubling to 100 ms) and the dispatcher two of its
 * ticker's looks, never a call: the request and the answer are in the file. Where no socket can be
 * had, both sides poll.
 *
 * <p><b>Threads.</b> The first {@link #register} starts this handle's dispatcher threads ({@link
 * Settings#dispatcherThreads()}, 1 by default); {@link #close()} unregisters every pass this handle
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
     * A registry's settings: the file's three, fixed at creation (the file's size is about {@code
     * maxPasses × mailboxSlots × (64 + maxPayloadBytes)} bytes), and this handle's two.
     *
     * @param maxPasses distinct pass ids the file holds over its life, 1..{@value
     *     PassRegistryDescriptor#MAX_PASSES} registered at once (an unregistered or dead owner's
     *     entry is reused by the next id that needs one)
     * @param mailboxSlots calls to one pass in flight at once, 1..{@value
     *     PassRegistryDescriptor#MAX_MAILBOX_SLOTS}
     * @param maxPayloadBytes the largest argument or result, 1..{@value
     *     PassRegistryDescriptor#MAX_PAYLOAD_BYTES}
     * @param dispatcherThreads this handle's threads that run its handlers, 1..{@value
     *     #MAX_DISPATCHER_THREADS}: at most that many handlers of this process run at once
     * @param waiting how this handle's callers and dispatchers wait
     */
    public record Settings(
            int maxPasses,
            int mailboxSlots,
            int maxPayloadBytes,
            int dispatcherThreads,
            PassWaiting waiting) {
        public static final int DEFAULT_MAX_PASSES = 64;
        public static final int DEFAULT_MAILBOX_SLOTS = 8;
        public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024;
        public static final int DEFAULT_DISPATCHER_THREADS = 1;
        public static final int MAX_DISPATCHER_THREADS = 64;

        public Settings {
            CxcSettingsException.requireInRange("maxPasses", maxPasses, 1, MAX_PASSES, "");
            CxcSettingsException.requireInRange(
                    "mailboxSlots", mailboxSlots, 1, MAX_MAILBOX_SLOTS, "");
            CxcSettingsException.requireInRange(
                    "maxPayloadBytes", maxPayloadBytes, 1, MAX_PAYLOAD_BYTES, "");
            CxcSettingsException.requireInRange(
                    "dispatcherThreads", dispatcherThreads, 1, MAX_DISPATCHER_THREADS, "");
            Objects.requireNonNull(waiting, "waiting");
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

        /** A file of these sizes, one dispatcher thread, the default waits. */
        public Settings(int maxPasses, int mailboxSlots, int maxPayloadBytes) {
            this(
                    maxPasses,
                    mailboxSlots,
                    maxPayloadBytes,
                    DEFAULT_DISPATCHER_THREADS,
                    PassWaiting.DEFAULT);
        }

        /** These settings with this handle waiting otherwise. */
        public Settings withWaiting(PassWaiting value) {
            return new Settings(maxPasses, mailboxSlots, maxPayloadBytes, dispatcherThreads, value);
        }

        /** These settings with another number of dispatcher threads. */
        public Settings withDispatcherThreads(int threads) {
            return new Settings(maxPasses, mailboxSlots, maxPayloadBytes, threads, waiting);
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
                    .bodyCheck(PassRegistryDescriptor::settingsProblem)
                    .shapeCheck(PassRegistryDescriptor::shapeProblem)
                    .recorded(
                            file -> {
                                PassLayout layout = PassLayout.of(file.body());
                                return new Settings(
                                        layout.maxPasses(),
                                        layout.mailboxSlots(),
                                        layout.maxPayload());
                            })
                    .defaults(
                            new Settings(
                                    Settings.DEFAULT_MAX_PASSES,
                                    Settings.DEFAULT_MAILBOX_SLOTS,
                                    Settings.DEFAULT_MAX_PAYLOAD_BYTES))
                    .construct((file, settings, options) -> new PassRegistry(file, settings));

    private static final long PID = Pids.current();
    private static final long START_TIME = OwnerRecord.startTimeOf(PID);
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);

    private final PassLayout layout;
    private final PassWaiting waiting;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final PassBindings bindings;
    private final PassMailbox mailbox;
    private final DispatcherBell doorbell;
    private final io.subetha.cxc.wake.Doorbell callers;
    private final PassTicker ticker;
    private final PassCaller caller;
    private final PassDispatchers dispatchers;
    private final PassCompleter completer;

    /**
     * Over a file the type's checks proved sound: the body's settings in range, consistent with its
     * header and its length. The file's sizes are read from its body; {@code settings} give this
     * handle's threads and waits.
     */
    private PassRegistry(MappedFile file, Settings settings) {
        super(file, TYPE);
        this.layout = PassLayout.of(body);
        this.waiting = settings.waiting();
        Path path = file.path();
        this.bindings = new PassBindings(body, layout, path, PID, START_TIME);
        this.mailbox = new PassMailbox(body, layout, path, PID, START_TIME);
        this.doorbell = new DispatcherBell(body, WakeServer.directory(path), PID, START_TIME);
        this.callers =
                new io.subetha.cxc.wake.Doorbell(body, DOORBELL_OFFSET, CALLER_WAITERS, path);
        this.ticker = new PassTicker(name(), waiting, mailbox, bindings, doorbell, closing);
        this.caller = new PassCaller(path, waiting, mailbox, bindings, doorbell, callers, closing);
        OpCounters ops = counters;
        this.dispatchers =
                new PassDispatchers(
                        name(),
                        settings.dispatcherThreads(),
                        waiting,
                        mailbox,
                        bindings,
                        doorbell,
                        callers,
                        ticker,
                        closing,
                        () -> ops.increment(Op.SERVE));
        this.completer = new PassCompleter(name(), waiting, caller, closing);
    }

    // ----------------------------------------------------------------------------- factories

    /**
     * Opens an existing registry whatever its sizes, with one dispatcher thread and the default
     * waits.
     */
    public static PassRegistry open(Path path) {
        return TYPE.openAsRecorded(path, CxcFileOptions.defaults());
    }

    /** Opens an existing registry of these sizes, with these threads and waits. */
    public static PassRegistry open(Path path, Settings settings) {
        return TYPE.open(path, settings);
    }

    /** Opens the registry, or creates it with these settings; race-safe across processes. */
    public static PassRegistry openOrCreate(Path path, Settings settings) {
        return TYPE.openOrCreate(path, settings);
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
        registerOrStandBy(passId, handler, 0);
    }

    /**
     * Registers {@code handler} under {@code passId} as {@link #register} does, or stands by: when
     * a live process owns the id with the same non-zero {@code handlerKey} (a copy of the same
     * service), nothing is written and this returns false; call again (the starter does on every
     * tick) and it takes the id over as soon as the owner is gone (unregistered, closed, or dead as
     * {@code /proc} proves). Calls pending at a dead owner fail with a {@link
     * PassOwnerDiedException} saying whether they may be retried; {@link #execute} retries a call
     * whose handler had not started once the new owner is there.
     *
     * @param handlerKey which handler this is, the same in every copy that serves it (0: not said,
     *     which makes a live owner a refusal, as {@link #register})
     * @return true if this handle now serves the id, false if it stands by
     * @throws PassOwnedException if a live process owns the id with another handler key (or one of
     *     the keys is 0), or this process owns it through another handle
     * @throws CxcCapacityException if all {@code maxPasses} entries hold other ids
     * @throws IllegalStateException if this handle already registered it, or is closed
     */
    public boolean registerOrStandBy(long passId, PassHandler handler, long handlerKey) {
        requirePassId(passId);
        Objects.requireNonNull(handler, "handler");
        countOp(Op.REGISTER);
        synchronized (this) {
            requireNotClosed();
            bindings.requireNotHeld(passId);
            doorbell.listen();
            long binder = bindings.lockBinder();
            try {
                if (bindings.bind(passId, handler, doorbell.address(), handlerKey) == null) {
                    return false;
                }
                dispatchers.start();
                return true;
            } finally {
                bindings.unlockBinder(binder);
            }
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
        countOp(Op.UNREGISTER);
        synchronized (this) {
            bindings.unbind(passId);
        }
    }

    /** Whether a live process has {@code passId} registered (probes {@code /proc}, ~10 µs). */
    public boolean isRegistered(long passId) {
        requirePassId(passId);
        countOp(Op.READ);
        return bindings.isLive(passId);
    }

    /** The pass ids registered by live processes, in every process (probes each owner). */
    public int registeredCount() {
        countOp(Op.READ);
        return bindings.liveCount();
    }

    /** The pass ids this handle registered. */
    public List<Long> registeredHere() {
        return bindings.heldIds();
    }

    // ------------------------------------------------------------------------------- execute

    /**
     * Runs pass {@code passId} with {@code args} in the process that registered it, and returns its
     * result.
     *
     * @throws PassNotRegisteredException if no process has it registered (at once)
     * @throws PassFailedException if the handler threw
     * @throws PassOwnerDiedException if the owner died or unregistered it while the call was
     *     pending (within about one {@link PassWaiting#ownerCheck()})
     * @throws CxcCapacityException if every mailbox slot of the pass stayed busy for {@code
     *     timeout}
     * @throws CxcTimeoutException if the owner did not answer within {@code timeout}
     * @throws IllegalArgumentException if {@code args} is longer than {@code maxPayloadBytes}
     */
    public byte[] execute(long passId, byte[] args, Duration timeout) {
        long start = System.nanoTime();
        // Saturated: a timeout past the nanosecond range is a long wait, not an overflow.
        long budget =
                timeout.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0
                        ? Long.MAX_VALUE
                        : timeout.toNanos();
        Duration left = timeout;
        while (true) {
            PassCall call = begin(passId, args, left, null);
            try {
                return caller.execute(call);
            } catch (PassOwnerDiedException changed) {
                // The handler had not started at the old owner: sent again, the new owner (a
                // standby that took the pass over) answers it, and it runs once.
                long remaining = budget - (System.nanoTime() - start);
                if (changed.mayHaveRun() || remaining <= 0 || !movedOn(call)) {
                    throw changed;
                }
                left = Duration.ofNanos(remaining);
            }
        }
    }

    /** Whether the call's pass now has a live owner other than the one the call was sent to. */
    private boolean movedOn(PassCall call) {
        PassBindings.Binding now = bindings.bindingOf(call.passId);
        return now != null && now.ownerWord() != call.addressed && bindings.isLive(call.passId);
    }

    /**
     * {@link #execute} without blocking the caller: the request is sent (or queued for a slot) at
     * once, and this handle's completer thread completes the future with the result or the same
     * exceptions.
     */
    public CompletableFuture<byte[]> executeAsync(long passId, byte[] args, Duration timeout) {
        CompletableFuture<byte[]> future = new CompletableFuture<>();
        PassCall call;
        try {
            call = begin(passId, args, timeout, future);
            caller.trySubmit(call, null);
        } catch (RuntimeException e) {
            future.completeExceptionally(e);
            return future;
        }
        synchronized (this) {
            if (closing.get()) {
                caller.fail(call, new IllegalStateException(file() + " was closed"));
                return future;
            }
            completer.add(call);
        }
        return future;
    }

    private PassCall begin(
            long passId,
            byte[] args,
            Duration timeout,
            @Nullable CompletableFuture<byte[]> future) {
        requirePassId(passId);
        Objects.requireNonNull(args, "args");
        Objects.requireNonNull(timeout, "timeout");
        if (args.length > layout.maxPayload()) {
            throw new IllegalArgumentException(
                    "args of "
                            + args.length
                            + " bytes exceed maxPayloadBytes "
                            + layout.maxPayload()
                            + " of "
                            + file());
        }
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be 0 or more, got " + timeout);
        }
        requireNotClosed();
        countOp(Op.EXECUTE);
        return caller.begin(passId, args, timeout, future);
    }

    // ---------------------------------------------------------------------------------- reads

    public int maxPasses() {
        return layout.maxPasses();
    }

    public int mailboxSlots() {
        return layout.mailboxSlots();
    }

    public int maxPayloadBytes() {
        return layout.maxPayload();
    }

    /** How this handle's callers and dispatchers wait. */
    public PassWaiting waiting() {
        return waiting;
    }

    /** Whether this handle's dispatcher waits in a blocking read of its only caller (tests). */
    boolean waitsSolo() {
        return doorbell.sleepsSolo();
    }

    private static void requirePassId(long passId) {
        if (passId == NO_PASS) {
            throw new IllegalArgumentException(
                    "passId must not be 0 (it marks an unused entry), got 0");
        }
    }

    private void requireNotClosed() {
        if (closing.get() || isClosed()) {
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
            if (!closing.compareAndSet(false, true)) {
                return;
            }
            doorbell.stopLending();
            bindings.unbindAll();
            threads.addAll(dispatchers.threads());
            Thread completerThread = completer.thread();
            if (completerThread != null) {
                threads.add(completerThread);
            }
            Thread tickerThread = ticker.stop();
            if (tickerThread != null) {
                threads.add(tickerThread);
            }
        }
        callers.close(); // after closing is set: a call blocking from now on does not wait
        caller.wakeAll();
        long deadline = System.nanoTime() + STOP_WAIT.toNanos();
        doorbell.wakeSleeper();
        for (Thread thread : threads) {
            LockSupport.unpark(thread);
            try {
                thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        doorbell.close();
        completer.failPending(file() + " was closed while the call was pending");
        super.close();
    }

    /** The settings, busy slots, and each pass id with its owner PID and calls served. */
    @Override
    public Map<String, Object> describe() {
        List<Map<String, Object>> passes = new ArrayList<>();
        int busy = 0;
        for (int entry = 0; entry < layout.maxPasses(); entry++) {
            int offset = layout.entryOffset(entry);
            long word = bindings.ownerWord(offset);
            long id = bindings.boundId(offset, word);
            busy += mailbox.busySlots(offset);
            if (id == NO_PASS) {
                continue;
            }
            passes.add(
                    fields(
                            "passId", id,
                            "ownerPid", OwnerRecord.pid(word),
                            "calls", mailbox.callsServed(offset)));
        }
        Path socket = doorbell.socket();
        return fields(
                "maxPasses",
                layout.maxPasses(),
                "mailboxSlots",
                layout.mailboxSlots(),
                "maxPayloadBytes",
                layout.maxPayload(),
                "busySlots",
                busy,
                "registeredHere",
                bindings.heldCount(),
                "wakeSocket",
                socket == null ? "none" : socket.toString(),
                "blockedCalls",
                caller.blockedCount(),
                "passes",
                List.copyOf(passes));
    }
}
