package io.subetha.cxc.lease;

import static io.subetha.cxc.lease.OwnerLeaseDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.lease.SlotBinder.Binding;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.wake.Doorbell;
import io.subetha.cxc.wake.DoorbellWaiter;
import io.subetha.cxc.wake.WaitPhases;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Named leases in one mapped file: a process {@linkplain #tryAcquire acquires} a name for at most a
 * duration, and the name is free again when the holder {@linkplain #release releases} it, when that
 * duration has passed, or at once when the holder's process is dead. Every acquisition hands out a
 * fencing token above every earlier one of its name, so a downstream store can refuse a paused
 * ex-holder's writes (an {@link io.subetha.cxc.election.FencedLedger} takes it as a term). Layout:
 * {@link OwnerLeaseDescriptor}.
 *
 * <p><b>What a token guarantees.</b> Each acquisition of a name gets a token above every token any
 * earlier acquisition of that name got, for the life of the file, whichever slots the name had: one
 * more than the last while the name keeps its slot; after the name left its slot and was bound
 * again, above the table's token floor, the highest key any slot had when its name left it. Tokens
 * of different names are unrelated (two names may show the same one). They are u32 from 1: the
 * guarantee holds until a slot's key reaches 2^32 - 1 (four billion acquisitions), then they wrap.
 *
 * <p><b>Slots.</b> A name is bound to a slot the first time it is used, and keeps it until the
 * table is full and a new name needs one: then the slot without a live holder (free, expired, or
 * held by a dead process; never a lingering one) that was least recently acquired is given to the
 * new name (lazily, so names in use keep their slots, their cached bindings and consecutive tokens;
 * judged first without {@code /proc}, then probing held slots for dead holders). A table of 256
 * slots thus serves any number of distinct names over time, at most 256 held at once; full is a
 * {@link CxcCapacityException} only when every slot has a live holder. Binding and unbinding happen
 * under the table's bind lock, an {@link io.subetha.cxc.claim.IntentLock}: the binder probes from
 * the name's home slot to the first never-bound slot (or round the table), so it sees any slot the
 * name has, and binds it at the first unbound or never-bound slot on the way, in one intent (the
 * name bytes, then the bind word). To take a slot from its name, it first CASes the slot's owner
 * word from exactly the word it judged to "retiring", which no acquirer CASes from, then stages in
 * one intent: the token floor raised to the slot's key, the bind word unbound, the new name's bytes
 * and bound word (the slot's next bind generation), and the owner word freed. Readers probe without
 * the lock: they pass unbound slots, stop at a never-bound one, and trust a name's bytes only
 * between two reads of one unchanged bind word; a name they miss while it is being bound is found
 * by the bind lock's probe.
 *
 * <p><b>Why one name never has two holders.</b> A name is bound to at most one slot at any time
 * (binds and unbinds are serialized by the bind lock, each a single intent). Each handle caches a
 * name's binding, the slot and its bound word, generation included, and the fast path (cached,
 * bound, unchanged) is a map lookup and the acquisition's CAS. An acquisition holds a name only if
 * its CAS won the slot's owner word and the bind word, read after that CAS, is still the cached
 * one: then the slot was the name's at the CAS, and stays so while the lease is live, since a slot
 * is retired only by a CAS from a word judged not live. A cache gone stale (the slot given to
 * another name, its generation moved on) is caught there: the acquirer frees what it took, never
 * publishes a deadline, and looks the name up again; meanwhile the other name's acquirers see the
 * slot held for that instant and are refused. So the live holders of a name are the holders of one
 * owner word: at most one. (Generations are 22 bits: a stale cache would pass only if its slot were
 * rebound exactly a multiple of 2^22 times while it was not used, the last time to another name of
 * the same length and FNV-1a hash.) An expired or dead holder's slot may be given away, as its
 * lease may be taken: the token is what fences it.
 *
 * <p><b>Crashes.</b> The bind lock's holder is recorded with its PID and start time; a waiter takes
 * it over only when {@code /proc} shows it dead, and replays a sealed intent first. A binder killed
 * before its retiring CAS changed nothing. Killed after it, before sealing: the slot's owner word
 * is left retiring; a reader sees no holder, an acquirer turns to the bind lock, and the next
 * holder of the lock, which knows a retiring word is never a live binder's (a live one keeps the
 * lock until its step is applied), CASes it back to free: the old name keeps its slot. Killed after
 * sealing: the next holder applies the whole step again (absolute values), so the floor, the new
 * binding and the freed owner word all happen. An acquirer killed while holding a slot it took
 * through a stale cache is a dead holder: the slot is free at once. A live binder is waited for at
 * most {@link #BIND_WAIT}, then a {@link CxcTimeoutException} names it.
 *
 * <p><b>Acquiring.</b> The slot's {@link OwnerRecord}: the acquirer judges the owner word (free;
 * expired: the lease word's deadline, published for this key, has passed; dead: its holder's
 * process is gone, a zombie, or its PID reused), and CASes exactly that word to its own PID under
 * the next key (one above the slot's, or above the token floor if that is as high). The key is the
 * fencing token: one CAS installs holder and token together, so one token never has two holders.
 * Then it publishes its heartbeat (the acquisition time) and identity as the record does, and last
 * its deadline, in the lease word tagged with its key. A crash after the CAS leaves a held lease
 * whose holder is dead: free at once for the next acquirer. Until the deadline is published,
 * readers count the lease as held unless the holder is dead.
 *
 * <p><b>Extending and releasing.</b> {@link #extend} CASes the lease word from exactly the value it
 * read, which must carry the lease's key and an unpassed deadline: a successor's publication makes
 * it fail, and a successor not yet published ignores it (wrong key). {@link #release} CASes the
 * owner word from exactly the lease's word to free (key kept, so tokens keep rising). {@link
 * #releaseNoEarlierThan} instead lowers the deadline and sets the lease word's linger bit: the name
 * stays held until then even if the holder dies (ShedLock's {@code lockAtLeastFor}).
 *
 * <p><b>Time.</b> Deadlines are in milliseconds of {@code CLOCK_MONOTONIC} ({@link
 * System#nanoTime()} on Linux HotSpot), the same for every process of the host, compared with
 * wrap-around arithmetic: a lease lasts at most {@link #MAX_AT_MOST}. An extend that races the
 * lease's own deadline may succeed at the instant a successor judged it expired: a lease is only as
 * good as its deadline, which is what the fencing token is for.
 *
 * <p><b>Names.</b> Any non-empty string: up to {@value OwnerLeaseDescriptor#MAX_NAME_BYTES} UTF-8
 * bytes it is stored as it is, beyond as its SHA-256 (as Spring Integration's JDBC registry turns
 * its keys into name-based UUIDs). Two long names with one digest would share one slot and one
 * owner word: they would exclude each other, never have two holders at once.
 *
 * <p>Leases are not reentrant: a held name is refused to every caller, its holder's own process
 * included. Thread-safe; one handle may serve every thread of a process.
 */
public final class OwnerLease extends MappedPrimitive {

    /** The longest lease: deadlines are compared mod 2^32 ms (±24.8 days). */
    public static final Duration MAX_AT_MOST = Duration.ofDays(24);

    /** How long a binder waits for a live process that holds the bind lock. */
    public static final Duration BIND_WAIT = Duration.ofSeconds(10);

    /** The ops a lease table counts, exported under these names. */
    public enum Op implements OpKind {
        ACQUIRE(1),
        EXTEND(2),
        RELEASE(3),
        READ(4);

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
     * A lease table's creation settings.
     *
     * @param capacity name slots, 1..{@value OwnerLeaseDescriptor#MAX_CAPACITY}: the most names
     *     held (or bound) at once; a slot whose name has no live holder is given to a new name when
     *     the table is full. Fixed when the file is created
     */
    public record Settings(int capacity) {
        /** The capacity of a table created without one. */
        public static final int DEFAULT_CAPACITY = 256;

        public Settings {
            CxcSettingsException.requireInRange("capacity", capacity, 1, MAX_CAPACITY, "");
        }
    }

    public static final PrimitiveType<OwnerLease, Settings> TYPE =
            PrimitiveType.<OwnerLease, Settings>define(PrimitiveKinds.OWNER_LEASE, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .shape(
                            settings -> new PrimitiveType.Shape(settings.capacity(), SLOT_LENGTH),
                            BODY_LAYOUT)
                    .defaults(new Settings(Settings.DEFAULT_CAPACITY))
                    .recorded(file -> new Settings(file.header().capacity()))
                    .construct((file, settings, options) -> new OwnerLease(file, settings));

    /** A held lease, as its acquirer got it: pass it back to extend or release it. */
    public static final class Lease implements LeaseBackend.Held {
        private final String name;
        private final int slot;
        private final long ownerWord;
        private final long acquiredAtNanos;
        private final AtomicBoolean released = new AtomicBoolean();

        private Lease(String name, int slot, long ownerWord, long acquiredAtNanos) {
            this.name = name;
            this.slot = slot;
            this.ownerWord = ownerWord;
            this.acquiredAtNanos = acquiredAtNanos;
        }

        public String name() {
            return name;
        }

        /**
         * The fencing token: above every earlier acquisition's of this name (u32, from 1; see the
         * class comment).
         */
        public long token() {
            return OwnerRecord.key(ownerWord);
        }

        public long pid() {
            return OwnerRecord.pid(ownerWord);
        }

        /** {@link System#nanoTime()} right after the acquisition. */
        public long acquiredAtNanos() {
            return acquiredAtNanos;
        }

        @Override
        public String toString() {
            return "lease " + name + " (token " + token() + ", pid " + pid() + ")";
        }
    }

    /**
     * Who holds a name, as any process sees it.
     *
     * @param acquiredAtNanos {@link System#nanoTime()} at the acquisition (CLOCK_MONOTONIC)
     * @param expiresAtNanos when it expires unless extended, in the same clock; {@link
     *     Long#MAX_VALUE} while the holder has not yet published its deadline
     * @param lingering released with {@link #releaseNoEarlierThan}: held until then even if the
     *     holder dies
     */
    public record LeaseInfo(
            long pid, long token, long acquiredAtNanos, long expiresAtNanos, boolean lingering) {}

    private static final int CLAIM_ROUNDS = 8;

    private final int capacity;

    /** The names' slots, and this handle's cache of them. */
    private final SlotBinder slots;

    /** Rung by every release, so a waiter in any process tries again at once. */
    private final Doorbell doorbell;

    /**
     * @param settings the file's: its header's capacity was checked against them on open
     */
    private OwnerLease(MappedFile file, Settings settings) {
        super(file, TYPE);
        this.capacity = settings.capacity();
        this.doorbell = new Doorbell(body, doorbellOffset(capacity), file.path());
        this.slots = new SlotBinder(body, capacity, file.path(), this::judge, BIND_WAIT.toNanos());
    }

    /**
     * A waiter that sleeps until a lease of this table is released (any name's: its look decides
     * whether the one it wants is free), for one thread at a time; close it when done.
     */
    public DoorbellWaiter waiter(WaitPhases phases) {
        return doorbell.waiter(phases);
    }

    /**
     * Sleeps until a lease of this table is released and {@code look} says so, or {@code timeout}
     * passes, on a waiter the table lends (its slot and socket kept for the next wait): for a
     * caller that waits now and then, from any thread.
     *
     * @return whether {@code look} said so
     */
    public boolean awaitRelease(BooleanSupplier look, Duration timeout) {
        return doorbell.await(WaitPhases.SLEEP_AT_ONCE, look, timeout);
    }

    /** Frees the slots and sockets of the waiters it kept, and closes the handle. */
    @Override
    public void close() {
        doorbell.close();
        super.close();
    }

    /**
     * Opens an existing table.
     *
     * @throws CxcCapacityException if the file was created with another capacity
     */
    public static OwnerLease open(Path path, Settings expected) {
        return TYPE.open(path, expected);
    }

    /** Opens the table, or creates it with {@code settings}; race-safe across processes. */
    public static OwnerLease openOrCreate(Path path, Settings settings) {
        return TYPE.openOrCreate(path, settings);
    }

    public int capacity() {
        return capacity;
    }

    /** How many names this handle caches the slot of (bounded: stale ones are swept out). */
    int cachedNames() {
        return slots.cachedNames();
    }

    // ----------------------------------------------------------------------------- acquire

    /**
     * Acquires {@code name} for {@code pid} for at most {@code atMost}, if it is free, expired, or
     * held by a dead process. Binds the name to a slot if it has none, taking one from a name
     * without a live holder when the table is full.
     *
     * @return the lease, or empty if a live holder has it (this process included)
     * @param name any non-empty name: one longer than {@value OwnerLeaseDescriptor#MAX_NAME_BYTES}
     *     UTF-8 bytes is stored as its SHA-256 ({@link OwnerLeaseDescriptor#storedName})
     * @throws IllegalArgumentException for an empty name, an invalid PID, or {@code atMost} not in
     *     (0, {@link #MAX_AT_MOST}]
     * @throws CxcCapacityException if the name has no slot and every slot is bound to a name with a
     *     live holder
     * @throws CxcTimeoutException if a live process held the bind lock for {@link #BIND_WAIT}
     */
    public Optional<Lease> tryAcquire(String name, long pid, Duration atMost) {
        Pids.requireValid(pid);
        long atMostMillis = requireAtMost("atMost", atMost);
        countOp(Op.ACQUIRE);
        Binding binding = slots.bind(name);
        for (int round = 0; round < CLAIM_ROUNDS; round++) {
            int record = slotOffset(binding.slot());
            long word = OwnerRecord.ownerWord(body, record);
            if (isRetiring(word)) {
                binding = slots.rebind(name, binding); // a binder is giving the slot away
                continue;
            }
            if (judge(record, word, nowMillis()) == OwnerStatus.LIVE) {
                if (slots.stillBound(binding)) {
                    return Optional.empty();
                }
                binding =
                        slots.rebind(name, binding); // a stale cache: the holder is another name's
                continue;
            }
            long floor = slots.tokenFloor();
            requireIntactHeader(); // after the reads the token comes from
            long mine = OwnerRecord.ownerWord(pid, nextKey(word, floor));
            long[] acquiredAt = new long[1];
            if (OwnerRecord.claim(
                    body,
                    record,
                    word,
                    mine,
                    OwnerRecord.startTimeOf(pid),
                    () -> acquiredAt[0] = System.nanoTime())) {
                if (!slots.stillBound(binding)) {
                    // The slot was given to another name since we cached it: not ours to hold.
                    OwnerRecord.release(body, record, mine);
                    doorbell.ringIfAnnounced();
                    binding = slots.rebind(name, binding);
                    continue;
                }
                // Ours: the deadline counts from after the CAS, tagged with our key.
                long deadline = deadlineAfter(acquiredAt[0], atMostMillis);
                if (!publishDeadline(
                        record, mine, leaseWord(OwnerRecord.key(mine), deadline, false))) {
                    return Optional.empty(); // taken over already (we were judged dead)
                }
                return Optional.of(new Lease(name, binding.slot(), mine, acquiredAt[0]));
            }
            // Another acquirer's CAS came first: judge its word.
        }
        return Optional.empty();
    }

    /** Publishes a new holder's lease word unless the record has moved on to another owner. */
    private boolean publishDeadline(int record, long ownerWord, long leaseWord) {
        while (true) {
            long current = body.getLongVolatile(record + LEASE_WORD_OFFSET);
            if (OwnerRecord.ownerWord(body, record) != ownerWord) {
                return false;
            }
            // From exactly the value read: a successor's publication in between wins.
            Interleaving.at(Point.LEASE_WORD_READ);
            if (body.compareAndSetLong(record + LEASE_WORD_OFFSET, current, leaseWord)) {
                return true;
            }
        }
    }

    /**
     * Moves a held lease's deadline to {@code atMost} from now (shorter or longer).
     *
     * @return false if the lease was released, expired, or taken over
     */
    public boolean extend(Lease lease, Duration atMost) {
        long atMostMillis = requireAtMost("atMost", atMost);
        countOp(Op.EXTEND);
        return moveDeadline(lease, deadlineAfter(System.nanoTime(), atMostMillis), false);
    }

    private boolean moveDeadline(Lease lease, long deadline, boolean linger) {
        if (lease.released.get()) {
            return false;
        }
        int record = slotOffset(lease.slot);
        long key = OwnerRecord.key(lease.ownerWord);
        while (true) {
            long current = body.getLongVolatile(record + LEASE_WORD_OFFSET);
            if (leaseKey(current) != key
                    || lingers(current)
                    || expired(current, nowMillis())
                    || OwnerRecord.ownerWord(body, record) != lease.ownerWord) {
                return false;
            }
            Interleaving.at(Point.LEASE_WORD_READ);
            if (body.compareAndSetLong(
                    record + LEASE_WORD_OFFSET, current, leaseWord(key, deadline, linger))) {
                // A successor that had claimed but not yet published ignores our key's word.
                return OwnerRecord.ownerWord(body, record) == lease.ownerWord;
            }
        }
    }

    /**
     * Frees a held lease.
     *
     * @return false if it had already been released, had expired (it is freed all the same if
     *     nobody took it), or was taken over
     */
    public boolean release(Lease lease) {
        countOp(Op.RELEASE);
        if (!lease.released.compareAndSet(false, true)) {
            return false;
        }
        int record = slotOffset(lease.slot);
        long current = body.getLongVolatile(record + LEASE_WORD_OFFSET);
        boolean expired =
                leaseKey(current) == OwnerRecord.key(lease.ownerWord)
                        && expired(current, nowMillis());
        boolean released = OwnerRecord.release(body, record, lease.ownerWord);
        doorbell.ringIfAnnounced();
        return released && !expired;
    }

    /**
     * Releases a held lease but keeps its name held until {@code notBeforeNanos} ({@link
     * System#nanoTime()}), even if this process dies meanwhile; a time already passed releases it
     * at once. For ShedLock's {@code lockAtLeastFor}.
     *
     * @return false if it had already been released, had expired, or was taken over
     */
    public boolean releaseNoEarlierThan(Lease lease, long notBeforeNanos) {
        long remaining = notBeforeNanos - System.nanoTime();
        if (remaining <= 0) {
            return release(lease);
        }
        countOp(Op.RELEASE);
        long deadline =
                remaining > MAX_AT_MOST.toNanos()
                        ? deadlineAfter(System.nanoTime(), MAX_AT_MOST.toMillis())
                        : deadlineAfter(notBeforeNanos, 0);
        boolean lingering = moveDeadline(lease, deadline, true);
        lease.released.set(true);
        return lingering;
    }

    // -------------------------------------------------------------------------------- reads

    /** The live holder of {@code name}, if any. Probes {@code /proc} once when it is held. */
    public Optional<LeaseInfo> holder(String name) {
        countOp(Op.READ);
        Binding binding = slots.current(name);
        return binding == null ? Optional.empty() : info(slotOffset(binding.slot()));
    }

    /**
     * A name with a live holder, as {@link #held()} lists it.
     *
     * @param name the name; one longer than {@link OwnerLeaseDescriptor#MAX_NAME_BYTES} UTF-8 bytes
     *     is stored as its SHA-256 and listed as {@code sha256:<hex>}
     */
    public record HeldName(String name, LeaseInfo holder) {}

    /**
     * Every name with a live holder now, in slot order: an operator's view (a console, an
     * inspector). Reads only, and counts no op; probes {@code /proc} once per held slot. A slot
     * whose bound length is out of range is left out, never trusted.
     */
    public List<HeldName> held() {
        List<HeldName> held = new ArrayList<>();
        for (int slot = 0; slot < capacity; slot++) {
            int record = slotOffset(slot);
            long bind = body.getLongAcquire(record + BIND_WORD_OFFSET);
            int length = boundLength(bind);
            if (!isBound(bind) || length < 1 || length > MAX_NAME_BYTES) {
                continue;
            }
            Optional<LeaseInfo> holder = info(record);
            if (holder.isPresent()) {
                held.add(new HeldName(storedNameText(record, length), holder.get()));
            }
        }
        return held;
    }

    private String storedNameText(int record, int length) {
        byte[] stored = new byte[length];
        body.getBytes(record + NAME_OFFSET, stored);
        if (stored[0] == DIGEST_MARK) {
            return "sha256:" + HexFormat.of().formatHex(stored, 1, length);
        }
        return new String(stored, StandardCharsets.UTF_8);
    }

    /** Whether {@code lease} is still held by its acquirer (not released, expired, or taken). */
    public boolean isHeld(Lease lease) {
        countOp(Op.READ);
        int record = slotOffset(lease.slot);
        long word = OwnerRecord.ownerWord(body, record);
        return !lease.released.get()
                && word == lease.ownerWord
                && judge(record, word, nowMillis()) == OwnerStatus.LIVE;
    }

    private Optional<LeaseInfo> info(int record) {
        long word = OwnerRecord.ownerWord(body, record);
        if (isRetiring(word)) {
            return Optional.empty(); // its name is being unbound: nobody holds it
        }
        long nowNanos = System.nanoTime();
        long nowMillis = Math.floorDiv(nowNanos, 1_000_000L);
        if (judge(record, word, nowMillis) != OwnerStatus.LIVE) {
            return Optional.empty();
        }
        long lease = body.getLongVolatile(record + LEASE_WORD_OFFSET);
        boolean published = leaseKey(lease) == OwnerRecord.key(word);
        long expiresAt =
                published
                        ? nowNanos + ((deadlineMillis(lease) - (int) nowMillis) * 1_000_000L)
                        : Long.MAX_VALUE;
        return Optional.of(
                new LeaseInfo(
                        OwnerRecord.pid(word),
                        OwnerRecord.key(word),
                        OwnerRecord.heartbeat(body, record),
                        expiresAt,
                        published && lingers(lease)));
    }

    /**
     * FREE, STALE (deadline passed), DEAD (holder gone; never while lingering) or LIVE. Probes
     * {@code /proc} (~10 µs) for a held, unexpired, non-lingering lease.
     */
    private OwnerStatus judge(int record, long word, long nowMillis) {
        if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER || isRetiring(word)) {
            return OwnerStatus.FREE;
        }
        long lease = body.getLongVolatile(record + LEASE_WORD_OFFSET);
        if (leaseKey(lease) == OwnerRecord.key(word)) {
            if (expired(lease, nowMillis)) {
                return OwnerStatus.STALE;
            }
            if (lingers(lease)) {
                return OwnerStatus.LIVE;
            }
        }
        return OwnerRecord.isDead(body, record, word) ? OwnerStatus.DEAD : OwnerStatus.LIVE;
    }

    /**
     * The deadline, in ms, of a lease of {@code atMostMillis} from {@code nanos}: rounded up, so a
     * lease never expires before its time (it may last up to 2 ms longer).
     */
    private static long deadlineAfter(long nanos, long atMostMillis) {
        return -Math.floorDiv(-nanos, 1_000_000L) + atMostMillis;
    }

    private static long requireAtMost(String argument, Duration atMost) {
        if (atMost.isNegative() || atMost.isZero() || atMost.compareTo(MAX_AT_MOST) > 0) {
            throw new IllegalArgumentException(
                    argument + " must be in (0, " + MAX_AT_MOST + "], got " + atMost);
        }
        // Whole ms, rounded up: a 1 ns lease lasts 1 ms.
        return Math.max(1, (atMost.toNanos() + 999_999) / 1_000_000L);
    }

    /** Bound names and live holders, as every process sees them; probes each held slot. */
    @Override
    public Map<String, Object> describe() {
        int boundNames = 0;
        int held = 0;
        long now = nowMillis();
        for (int slot = 0; slot < capacity; slot++) {
            int record = slotOffset(slot);
            long bind = body.getLongAcquire(record + BIND_WORD_OFFSET);
            if (isBound(bind)) {
                boundNames++;
                if (judge(record, OwnerRecord.ownerWord(body, record), now) == OwnerStatus.LIVE) {
                    held++;
                }
            }
        }
        return fields(
                "capacity", capacity,
                "boundNames", boundNames,
                "held", held,
                "maxNameBytes", MAX_NAME_BYTES,
                "tokenFloor", slots.tokenFloor());
    }
}
