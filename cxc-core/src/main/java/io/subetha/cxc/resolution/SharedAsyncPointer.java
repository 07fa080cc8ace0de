package io.subetha.cxc.resolution;

import static io.subetha.cxc.resolution.AsyncPointerDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.wait.Backoff;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A cross-process once-cell in a memory-mapped file: the first caller's fetch resolves it, every
 * other caller in any process waits for that fetch or reads the value. Exactly one fetch runs at a
 * time across all processes, and once one has succeeded nobody fetches again until {@link
 * #reset()}. Layout: {@link AsyncPointerDescriptor}.
 *
 * <p><b>Protocol.</b> Two words decide everything:
 *
 * <ul>
 *   <li>the <b>fetcher record</b>, an {@link OwnerRecord}: a caller that finds the cell empty and
 *       the record free (or its owner dead, judged through {@code /proc}) claims it by one CAS from
 *       exactly the word it judged; only the winner fetches. Two callers racing, or five waiters
 *       racing to replace a SIGKILLed fetcher, have one winner. Nothing is written before the CAS
 *       is won.
 *   <li>the <b>state word</b> (state + epoch): the fetcher writes the value's bytes with plain
 *       stores, then CASes the word from {@code EMPTY}/e to {@code RESOLVED}/e (its release
 *       publishes the bytes), then releases its claim. {@link #reset()} CASes {@code RESOLVED}/e
 *       (or {@code EMPTY}/e) to {@code EMPTY}/e+1, so a fetch that began before a reset never
 *       publishes after it. Readers copy the value, fence, and read the word again: equal means the
 *       copy is whole (only a claimed fetcher writes the bytes, and only while the word is {@code
 *       EMPTY}).
 * </ul>
 *
 * <p>A claimant checks the state again after winning: a fetcher that finished between the
 * claimant's two reads published {@code RESOLVED} before releasing, so the claimant sees it and
 * fetches nothing.
 *
 * <p><b>Crashes.</b> A fetcher killed before publishing leaves {@code EMPTY} and a dead owner: the
 * first waiter to judge it claims the record (one CAS, counted as a takeover) and fetches once
 * more; any bytes the dead one wrote are overwritten before they are published. Killed after
 * publishing but before releasing, it leaves {@code RESOLVED} and a dead owner, which no reader
 * looks at and the next fetch (after a reset) replaces. A fetch that throws releases the record and
 * rethrows to its caller; the waiters retry and one of them fetches.
 *
 * <p><b>No staleness.</b> A fetch has no deadline of its own: its owner is replaced only when its
 * process is gone (dead, a zombie, or its PID reused), never because it is slow, since replacing a
 * live fetcher would run a second fetch. A waiter's {@code timeout} bounds its own wait, and the
 * timeout names the fetching PID and how long it has been fetching. A fetch must not call {@link
 * #getOrFetch} on its own pointer (it would wait for itself until its timeout).
 *
 * <p>Thread-safe; any number of processes and threads. Values go through the {@link FixedCodec} the
 * file was created with; opening with another layout is refused.
 */
public final class SharedAsyncPointer<T> extends MappedPrimitive {

    /** The ops a pointer counts, exported under these names. */
    public enum Op implements OpKind {
        GET_OR_FETCH(1),
        TRY_GET(2);

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
     * A pointer's creation settings.
     *
     * @param codec the value's codec: 1..{@link #MAX_VALUE_BYTES} bytes
     */
    public record Settings<T>(FixedCodec<T> codec) {
        public Settings {
            Objects.requireNonNull(codec, "codec");
            CxcSettingsException.requireInRange(
                    "codec", codec.size(), 1, MAX_VALUE_BYTES, " bytes (MAX_VALUE_BYTES)");
        }
    }

    /** The largest value, in bytes, a pointer holds. */
    public static final int MAX_VALUE_BYTES = AsyncPointerDescriptor.MAX_VALUE_BYTES;

    private static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                if (capacity != 0) {
                    throw new IllegalArgumentException(
                            "an async pointer has no capacity (must be 0), got " + capacity);
                }
                if (slotSize < 1 || slotSize > MAX_VALUE_BYTES) {
                    throw new IllegalArgumentException(
                            "the value size (slot size) must be 1.."
                                    + MAX_VALUE_BYTES
                                    + " bytes, got "
                                    + slotSize);
                }
                return AsyncPointerDescriptor.bodyLength(slotSize);
            };

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final PrimitiveType<SharedAsyncPointer<?>, Settings<?>> TYPE =
            (PrimitiveType)
                    PrimitiveType.<SharedAsyncPointer, Settings>define(
                                    PrimitiveKinds.ASYNC_POINTER, Settings.class)
                            .layoutVersion(LAYOUT_VERSION)
                            .bodyMagic(MAGIC)
                            .ops(Op.class)
                            .shape(
                                    settings -> new PrimitiveType.Shape(0, settings.codec().size()),
                                    BODY_LAYOUT)
                            .codecs(settings -> List.of(settings.codec()))
                            .bodyCheck(SharedAsyncPointer::problem)
                            .defaults(new Settings<>(FixedCodec.INT64))
                            .recorded(
                                    file ->
                                            new Settings<>(
                                                    FixedCodec.bytes(file.header().slotSize())))
                            .construct(
                                    (file, settings, options) ->
                                            new SharedAsyncPointer(file, settings));

    /** A fetch is judged dead only, never stale: see the class comment. */
    private static final long NEVER_STALE = Long.MAX_VALUE;

    private static final long PID = Pids.current();
    private static final long START_TIME = OwnerRecord.startTimeOf(PID);

    /** How long a waiter parks at most between looks: a fetch is a slow thing (a remote call). */
    private static final long MAX_PARK_NANOS = 1_000_000;

    private final int valueBytes;
    private final FixedCodec<T> codec;

    private SharedAsyncPointer(MappedFile file, Settings<T> settings) {
        super(file, TYPE);
        this.codec = settings.codec();
        this.valueBytes = file.header().slotSize();
    }

    // ---------------------------------------------------------------------------- factories

    /** Opens an existing pointer file created with {@code settings}' codec layout. */
    public static <T> SharedAsyncPointer<T> open(Path path, Settings<T> settings) {
        return TYPE.open(path, settings);
    }

    /** Opens the pointer, or creates it with {@code settings}; race-safe across processes. */
    public static <T> SharedAsyncPointer<T> openOrCreate(Path path, Settings<T> settings) {
        return TYPE.openOrCreate(path, settings);
    }

    private static @Nullable String problem(io.subetha.cxc.mmf.AtomicBuffer body) {
        long state = AsyncPointerDescriptor.state(body.getLongVolatile(STATE_OFFSET));
        return state == EMPTY || state == RESOLVED
                ? null
                : "state " + state + " at body offset " + STATE_OFFSET + ", expected 0 or 1";
    }

    // ------------------------------------------------------------------------------ reads

    /**
     * The value, fetching it if nobody has: if the cell is resolved, returns its value; if another
     * caller (in any process) is fetching, waits for that fetch; else claims the fetch and runs
     * {@code fetch} here, once. If the fetcher's process dies, one waiter fetches in its place; if
     * its fetch throws, one waiter fetches in its place and the fetcher's caller gets the
     * exception.
     *
     * @param fetch called at most once by this call; must not return null
     * @param timeout how long this caller waits for another's fetch (its own fetch is not bounded)
     * @throws CxcTimeoutException if another process's (or thread's) fetch did not finish in time;
     *     the message names its PID
     * @throws IllegalArgumentException if the value does not fit the codec (the fetch is released)
     */
    public T getOrFetch(Supplier<? extends T> fetch, Duration timeout) {
        Objects.requireNonNull(fetch, "fetch");
        long timeoutNanos = requirePositive(timeout);
        FixedCodec<T> c = codec;
        countOp(Op.GET_OR_FETCH);
        long start = 0;
        Backoff idle = null;
        while (true) {
            long state = body.getLongVolatile(STATE_OFFSET);
            if (AsyncPointerDescriptor.state(state) == RESOLVED) {
                T value = readValue(c, state);
                if (value != null) {
                    return value;
                }
                continue;
            }
            long owner = OwnerRecord.ownerWord(body, FETCHER_RECORD_OFFSET);
            OwnerStatus status =
                    OwnerRecord.judge(
                            body, FETCHER_RECORD_OFFSET, owner, System.nanoTime(), NEVER_STALE);
            if (status == OwnerStatus.FREE || status.isReclaimable()) {
                long mine = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(owner));
                if (OwnerRecord.claim(
                        body, FETCHER_RECORD_OFFSET, owner, mine, START_TIME, System::nanoTime)) {
                    if (status != OwnerStatus.FREE) {
                        body.getAndAddLong(TAKEOVERS_OFFSET, 1);
                    }
                    return fetchAsOwner(c, fetch, mine);
                }
                continue; // another claimant won: judge its word
            }
            if (idle == null) {
                start = System.nanoTime(); // only a wait reads the clock: the hit path does not
                idle = Backoff.cappedAt(MAX_PARK_NANOS);
            } else if (System.nanoTime() - start >= timeoutNanos) {
                throw timeout(timeout, owner);
            }
            idle.idle();
        }
    }

    /** The value if the cell is resolved; never waits, never fetches. */
    public Optional<T> tryGet() {
        FixedCodec<T> c = codec;
        countOp(Op.TRY_GET);
        while (true) {
            long state = body.getLongVolatile(STATE_OFFSET);
            if (AsyncPointerDescriptor.state(state) != RESOLVED) {
                return Optional.empty();
            }
            T value = readValue(c, state);
            if (value != null) {
                return Optional.of(value);
            }
        }
    }

    /**
     * Empties the cell: the next caller fetches again. A fetch in flight when it is called still
     * returns its value to its own caller but does not publish it.
     */
    public void reset() {
        passFileCheck();
        while (true) {
            long state = body.getLongVolatile(STATE_OFFSET);
            long next = stateWord(epoch(state) + 1, EMPTY);
            if (body.compareAndSetLong(STATE_OFFSET, state, next)) {
                body.getAndAddLong(RESETS_OFFSET, 1);
                return;
            }
        }
    }

    /** Whether the cell holds a value. */
    public boolean isResolved() {
        return AsyncPointerDescriptor.state(body.getLongVolatile(STATE_OFFSET)) == RESOLVED;
    }

    /** The PID fetching right now (its claim is held and the cell is empty), if any. */
    public OptionalLong fetcher() {
        long owner = OwnerRecord.ownerWord(body, FETCHER_RECORD_OFFSET);
        long pid = OwnerRecord.pid(owner);
        return pid == OwnerRecord.NO_OWNER || isResolved()
                ? OptionalLong.empty()
                : OptionalLong.of(pid);
    }

    /** Fetches started so far, by every process. */
    public long fetches() {
        return body.getLongVolatile(FETCHES_OFFSET);
    }

    /** Takeovers of a dead fetcher's claim so far, by every process. */
    public long takeovers() {
        return body.getLongVolatile(TAKEOVERS_OFFSET);
    }

    @Override
    public Map<String, Object> describe() {
        long state = body.getLongVolatile(STATE_OFFSET);
        long owner = OwnerRecord.ownerWord(body, FETCHER_RECORD_OFFSET);
        long pid = OwnerRecord.pid(owner);
        String shown =
                AsyncPointerDescriptor.state(state) == RESOLVED
                        ? "RESOLVED"
                        : pid == OwnerRecord.NO_OWNER ? "EMPTY" : "FETCHING";
        return fields(
                "state", shown,
                "epoch", epoch(state),
                "fetcherPid", shown.equals("FETCHING") ? pid : 0L,
                "fetches", body.getLongVolatile(FETCHES_OFFSET),
                "failedFetches", body.getLongVolatile(FAILURES_OFFSET),
                "takeovers", body.getLongVolatile(TAKEOVERS_OFFSET),
                "resets", body.getLongVolatile(RESETS_OFFSET),
                "valueBytes", valueBytes);
    }

    // ---------------------------------------------------------------------------- helpers

    private T fetchAsOwner(FixedCodec<T> c, Supplier<? extends T> fetch, long mine) {
        try {
            long state = body.getLongVolatile(STATE_OFFSET);
            if (AsyncPointerDescriptor.state(state) == RESOLVED) {
                // Resolved between our look and our claim: nothing to fetch.
                T value = readValue(c, state);
                if (value != null) {
                    return value;
                }
                state = body.getLongVolatile(STATE_OFFSET);
                if (AsyncPointerDescriptor.state(state) == RESOLVED) {
                    return Objects.requireNonNull(readValue(c, state), "resolved value");
                }
            }
            body.getAndAddLong(FETCHES_OFFSET, 1);
            T value;
            try {
                value = fetch.get();
                if (value == null) {
                    throw new NullPointerException(
                            "the fetch of " + file.path() + " returned null; a value is required");
                }
                c.write(body, VALUE_OFFSET, value);
            } catch (RuntimeException | Error e) {
                body.getAndAddLong(FAILURES_OFFSET, 1);
                throw e;
            }
            // The CAS publishes the bytes (release) unless a reset moved the epoch meanwhile.
            body.compareAndSetLong(STATE_OFFSET, state, stateWord(epoch(state), RESOLVED));
            return value;
        } finally {
            OwnerRecord.release(body, FETCHER_RECORD_OFFSET, mine);
        }
    }

    /** The value published under {@code state}, or null if the word moved while it was copied. */
    private @Nullable T readValue(FixedCodec<T> c, long state) {
        T value = null;
        RuntimeException torn = null;
        try {
            value = c.read(body, VALUE_OFFSET);
        } catch (CxcFormatException | IllegalArgumentException e) {
            torn = e; // bytes being rewritten after a reset, or real corruption: decided below
        }
        VarHandle.acquireFence(); // the copy happens before the second read of the word
        if (body.getLongVolatile(STATE_OFFSET) != state) {
            return null;
        }
        if (torn != null) {
            throw new CxcFormatException(
                    "the value resolved in "
                            + file.path()
                            + " cannot be read by "
                            + c.describe()
                            + ": "
                            + torn.getMessage()
                            + "; the file is corrupt. Reset the pointer to fetch again.");
        }
        return value;
    }

    private CxcTimeoutException timeout(Duration timeout, long owner) {
        long pid = OwnerRecord.pid(owner);
        long since = System.nanoTime() - OwnerRecord.heartbeat(body, FETCHER_RECORD_OFFSET);
        return new CxcTimeoutException(
                "timed out after "
                        + timeout
                        + " waiting for the fetch of "
                        + file.path()
                        + " by PID "
                        + pid
                        + (pid == PID ? " (this process, another thread)" : "")
                        + ", fetching for "
                        + Duration.ofNanos(Math.max(0, since)).toMillis()
                        + " ms and still alive; a fetch is replaced only when its process dies."
                        + " Retry with a longer timeout, or bound the fetch itself.");
    }

    private static long requirePositive(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(
                    "timeout must be positive, got "
                            + timeout
                            + "; it bounds the wait for a fetch");
        }
        try {
            return timeout.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }
}
