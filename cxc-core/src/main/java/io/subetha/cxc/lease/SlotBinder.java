package io.subetha.cxc.lease;

import static io.subetha.cxc.lease.OwnerLeaseDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Where the names of an {@link OwnerLease} table live: finds a name's slot without locking, binds
 * it under the table's bind lock, and gives a slot whose name has no live holder to a new name when
 * the table is full; caches each name's binding for its handle. The protocol, and why it never lets
 * one name have two holders, is in {@link OwnerLease}'s class comment.
 */
final class SlotBinder {

    /** Judges a slot's owner word as the lease table does: free, stale, dead, or live. */
    @FunctionalInterface
    interface Judge {
        OwnerStatus status(int record, long ownerWord, long nowMillis);
    }

    private final AtomicBuffer body;
    private final int capacity;
    private final Path path;
    private final Judge judge;
    private final long bindWaitNanos;
    private final Map<String, Binding> boundSlots = new ConcurrentHashMap<>();

    /** Taken by every binder: names are bound to and taken from slots one step at a time. */
    private final IntentLock bindLock;

    SlotBinder(AtomicBuffer body, int capacity, Path path, Judge judge, long bindWaitNanos) {
        this.body = body;
        this.capacity = capacity;
        this.path = path;
        this.judge = judge;
        this.bindWaitNanos = bindWaitNanos;
        this.bindLock =
                new IntentLock(
                        body,
                        bindLockOffset(capacity),
                        BIND_STEP_ENTRIES,
                        MAX_NAME_BYTES,
                        "the bind lock of " + path);
    }

    /** The highest key of any slot whose name left it: every new key is above it. */
    long tokenFloor() {
        return body.getLongAcquire(FLOOR_OFFSET);
    }

    /** The binding of {@code name} if it has one: cached and unchanged, or found by a probe. */
    @Nullable Binding current(String name) {
        Binding binding = boundSlots.get(name);
        return binding != null && stillBound(binding) ? binding : find(name, storedName(name));
    }

    /**
     * Caches a binding. At most one binding per slot is current, so once the cache holds twice as
     * many as there are slots, the stale ones (names since moved or gone) are swept out: a handle
     * that sees names come and go without end keeps a bounded cache.
     */
    private void remember(String name, Binding binding) {
        boundSlots.put(name, binding);
        if (boundSlots.size() > 2 * capacity) {
            boundSlots.values().removeIf(cached -> !stillBound(cached));
        }
    }

    /** How many names this handle has cached. */
    int cachedNames() {
        return boundSlots.size();
    }

    /** A name's slot as a handle caches it: the bound word it had, generation included. */
    record Binding(int slot, long boundWord) {}

    /** Whether {@code binding}'s slot is still bound to its name: its bind word is unchanged. */
    boolean stillBound(Binding binding) {
        return body.getLongAcquire(slotOffset(binding.slot()) + BIND_WORD_OFFSET)
                == binding.boundWord();
    }

    /** The slot of {@code name}: cached, found by a probe, or bound now under the bind lock. */
    Binding bind(String name) {
        Binding cached = boundSlots.get(name);
        if (cached != null) {
            return cached;
        }
        byte[] bytes = storedName(name);
        Binding found = find(name, bytes);
        return found != null ? found : bindLocked(name, bytes);
    }

    /** Forgets a binding found stale (or being retired) and looks the name up again. */
    Binding rebind(String name, Binding stale) {
        boundSlots.remove(name, stale);
        byte[] bytes = storedName(name);
        Binding found = find(name, bytes);
        if (found != null && !found.equals(stale)) {
            return found;
        }
        // Not bound anywhere, or bound where it was but retiring: the bind lock settles it.
        return bindLocked(name, bytes);
    }

    /**
     * Probes from the name's home slot without locking: a slot bound to it is the answer; an
     * unbound slot or one bound to another name is passed; a never-bound one ends the probe (no
     * binder went further). A name is bound to at most one slot (binders hold the bind lock), and
     * its bytes are read between two reads of an unchanged bind word, so an answer was true when
     * read; a binding made meanwhile may be missed, which the bind lock's own probe then finds.
     *
     * @return the binding, or null if the name is bound nowhere
     */
    @Nullable Binding find(String name, byte[] bytes) {
        int hash = OwnerLeaseDescriptor.hash(bytes);
        int home = Integer.remainderUnsigned(hash, capacity);
        for (int i = 0; i < capacity; i++) {
            int slot = (home + i) % capacity;
            int record = slotOffset(slot);
            long word = body.getLongAcquire(record + BIND_WORD_OFFSET);
            if (word == EMPTY) {
                return null;
            }
            if (boundTo(word, bytes.length, hash)
                    && nameEquals(record, bytes)
                    && body.getLongAcquire(record + BIND_WORD_OFFSET) == word) {
                Binding binding = new Binding(slot, word);
                remember(name, binding);
                return binding;
            }
        }
        return null;
    }

    /**
     * Under the bind lock: the name's slot if a binder bound it meanwhile (a retirement of it that
     * a dead binder left half-done is rolled back), else binds it at the first unbound or
     * never-bound slot of its probe, else retires a slot ({@link #retire}) and binds it there.
     */
    private Binding bindLocked(String name, byte[] bytes) {
        int hash = OwnerLeaseDescriptor.hash(bytes);
        int home = Integer.remainderUnsigned(hash, capacity);
        bindLock.lock(bindWaitNanos);
        try {
            int free = -1;
            for (int i = 0; i < capacity; i++) {
                int slot = (home + i) % capacity;
                int record = slotOffset(slot);
                long word = body.getLongAcquire(record + BIND_WORD_OFFSET);
                if (word == EMPTY || isUnbound(word)) {
                    free = free < 0 ? slot : free;
                    if (word == EMPTY) {
                        break;
                    }
                } else if (boundTo(word, bytes.length, hash) && nameEquals(record, bytes)) {
                    rollBackRetiring(record);
                    Binding binding = new Binding(slot, word);
                    remember(name, binding);
                    return binding;
                }
            }
            long retired = NOT_RETIRED;
            if (free < 0) {
                free = retire(name, home);
                retired = OwnerRecord.ownerWord(body, slotOffset(free));
            }
            Binding binding = bindAt(free, bytes, hash, retired);
            remember(name, binding);
            return binding;
        } finally {
            bindLock.unlock();
        }
    }

    /** No retirement: the slot was unbound or never bound. */
    private static final long NOT_RETIRED = -1;

    /**
     * Binds {@code bytes} at {@code slot} in one intent of the bind lock; for a slot being retired
     * ({@code retiring} its owner word), raises the token floor to its key and marks it unbound
     * first, and frees its owner word last.
     */
    private Binding bindAt(int slot, byte[] bytes, int hash, long retiring) {
        int record = slotOffset(slot);
        long old = body.getLongAcquire(record + BIND_WORD_OFFSET);
        if (retiring != NOT_RETIRED) {
            long key = OwnerRecord.key(retiring);
            stageIfHigher(FLOOR_OFFSET, tokenFloor(), key);
            bindLock.stage(record + BIND_WORD_OFFSET, unboundWord(bindGeneration(old)));
        }
        body.putBytes(bindLock.payloadOffset(), Arrays.copyOf(bytes, MAX_NAME_BYTES));
        bindLock.stageCopy(record + NAME_OFFSET, MAX_NAME_BYTES);
        long bound = boundWord(bytes.length, hash, nextBindGeneration(old));
        bindLock.stage(record + BIND_WORD_OFFSET, bound);
        if (retiring != NOT_RETIRED) {
            bindLock.stage(record + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.freed(retiring));
        }
        bindLock.commit();
        // Still under the bind lock, a hint for the next binder's choice of a slot to retire: a
        // slot just bound counts as just acquired, so its name gets to use it first (a monotonic
        // raise, as claimants do: a holder's own later raise is never undone).
        OwnerRecord.raiseHeartbeat(body, record, System.nanoTime());
        return new Binding(slot, bound);
    }

    private void stageIfHigher(int offset, long current, long value) {
        if (value > current) {
            bindLock.stage(offset, value);
        }
    }

    /**
     * Under the bind lock, with every slot bound: CASes to retiring the owner word of the slot,
     * among those without a live holder (free, expired, or dead; never lingering), that was least
     * recently acquired, preferring those it can judge without {@code /proc}.
     *
     * @return the slot, its owner word now retiring
     * @throws CxcCapacityException if every slot has a live holder
     */
    private int retire(String name, int home) {
        while (true) {
            int victim = leastRecentlyAcquired(home, false);
            if (victim < 0) {
                victim = leastRecentlyAcquired(home, true);
            }
            if (victim < 0) {
                throw full(name);
            }
            int record = slotOffset(victim);
            long word = OwnerRecord.ownerWord(body, record);
            boolean retireable =
                    judge.status(record, word, nowMillis()) != OwnerStatus.LIVE
                            && !isRetiring(word);
            if (retireable
                    && body.compareAndSetLong(
                            record + OwnerRecord.OWNER_WORD_OFFSET,
                            word,
                            retiringWord(OwnerRecord.key(word)))) {
                Interleaving.at(Point.LEASE_SLOT_RETIRING);
                return victim;
            }
            // Acquired meanwhile: look again.
        }
    }

    /**
     * The slot without a live holder whose last acquisition is oldest, or -1; judged without {@code
     * /proc} (free or expired) unless {@code probe}, then dead holders too.
     */
    private int leastRecentlyAcquired(int home, boolean probe) {
        int oldest = -1;
        long oldestAge = -1;
        long nowNanos = System.nanoTime();
        long now = Math.floorDiv(nowNanos, 1_000_000L);
        for (int i = 0; i < capacity; i++) {
            int slot = (home + i) % capacity;
            int record = slotOffset(slot);
            long word = rollBackRetiring(record);
            OwnerStatus status =
                    probe ? judge.status(record, word, now) : judgeWithoutProbe(record, word, now);
            long age = nowNanos - OwnerRecord.heartbeat(body, record);
            if (status != OwnerStatus.LIVE && age > oldestAge) {
                oldest = slot;
                oldestAge = age;
            }
        }
        return oldest;
    }

    /** {@link #judge} without the {@code /proc} probe: a held, unexpired lease counts as live. */
    private OwnerStatus judgeWithoutProbe(int record, long word, long nowMillis) {
        if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER) {
            return OwnerStatus.FREE;
        }
        long lease = body.getLongVolatile(record + LEASE_WORD_OFFSET);
        return leaseKey(lease) == OwnerRecord.key(word) && expired(lease, nowMillis)
                ? OwnerStatus.STALE
                : OwnerStatus.LIVE;
    }

    /**
     * Under the bind lock: a retiring owner word can only be a binder's that died before sealing
     * its step (a live one holds the lock until its step is applied), so it is CASed back to free.
     *
     * @return the owner word now
     */
    private long rollBackRetiring(int record) {
        long word = OwnerRecord.ownerWord(body, record);
        if (isRetiring(word)) {
            body.compareAndSetLong(
                    record + OwnerRecord.OWNER_WORD_OFFSET, word, OwnerRecord.freed(word));
            return OwnerRecord.ownerWord(body, record);
        }
        return word;
    }

    private CxcCapacityException full(String name) {
        return new CxcCapacityException(
                path
                        + " is full: all "
                        + capacity
                        + " name slots are bound to names with a live holder, so \""
                        + name
                        + "\" cannot be leased. A slot is given to a new name once its own has no"
                        + " live holder: release leases sooner, or create the table with a larger"
                        + " capacity (up to "
                        + MAX_CAPACITY
                        + ") in a new file");
    }

    private boolean nameEquals(int record, byte[] bytes) {
        byte[] stored = new byte[bytes.length];
        body.getBytes(record + NAME_OFFSET, stored);
        return Arrays.equals(stored, bytes);
    }
}
