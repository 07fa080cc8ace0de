package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.BINDER_OFFSET;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.BOUND_KEY_OFFSET;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.CALLS_OFFSET;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.HANDLER_KEY_OFFSET;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.NO_PASS;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.OWNER_RECORD_OFFSET;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.PASS_ID_OFFSET;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.WAKE_ADDRESS_OFFSET;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import io.subetha.cxc.wait.Backoff;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Which process serves which pass id: the entries of a registry file ({@link
 * PassRegistryDescriptor}), bound under the binder record, each owned through the ownership block
 * ({@link OwnerRecord}); and the passes this handle serves.
 *
 * <p>Each pass id is bound to at most one entry at a time: ids are bound only under the registry's
 * binder record, an {@link OwnerRecord} whose dead holder's is taken over. An entry has one owner
 * at a time; registering an id a live process owns is a {@link PassOwnedException} naming that PID,
 * and an owner that is provably dead ({@code /proc}: gone, a zombie, or its PID reused) is taken
 * over by one CAS from exactly the judged owner word. Ownership is by process liveness only, not by
 * heartbeat: a handler may run as long as it likes.
 *
 * <p>A binder claims the owner word first (a new key: readers now see an entry being bound), then
 * writes the id and zeroes its counters, then publishes the bound key. A binder killed in between
 * leaves an entry owned by a dead PID whose keys differ: no reader sees an id in it, and the next
 * binder reuses it. Unregistering frees the owner word and keeps its key, so the entry still names
 * its id until a binder reuses it.
 */
final class PassBindings {

    private static final Duration BINDER_WAIT = Duration.ofSeconds(10);

    /** One pass this handle serves. */
    record Registration(
            long passId, int entry, int entryOffset, long ownerWord, PassHandler handler) {}

    /** Where a pass id is bound: the entry and the owner word it is bound under. */
    record Binding(int entry, int entryOffset, long ownerWord) {}

    private final AtomicBuffer body;
    private final PassLayout layout;
    private final Path file;
    private final long pid;
    private final long startTime;

    /** Where each pass id was last found: a hint, checked against the entry's binding on use. */
    private final Map<Long, Integer> entries = new ConcurrentHashMap<>();

    /** The passes this handle serves; changed only with this object's lock. */
    private final Map<Long, Registration> registrations = new ConcurrentHashMap<>();

    /** What the dispatchers serve: copied on every change. */
    private volatile Registration[] served = new Registration[0];

    PassBindings(AtomicBuffer body, PassLayout layout, Path file, long pid, long startTime) {
        this.body = body;
        this.layout = layout;
        this.file = file;
        this.pid = pid;
        this.startTime = startTime;
    }

    // ----------------------------------------------------------------- what this handle serves

    /** The passes this handle serves now: read by its dispatchers and its ticker. */
    Registration[] served() {
        return served;
    }

    List<Long> heldIds() {
        return List.copyOf(registrations.keySet());
    }

    int heldCount() {
        return registrations.size();
    }

    synchronized void requireNotHeld(long passId) {
        if (registrations.containsKey(passId)) {
            throw new IllegalStateException(
                    "pass "
                            + passId
                            + " is already registered through this handle of "
                            + file
                            + "; unregister it first");
        }
    }

    /**
     * Binds {@code passId} to an entry and claims it for this handle, holding the binder record
     * ({@link #lockBinder}): the entry already bound to the id if its owner is gone, else the first
     * entry whose owner is gone (never used, unregistered, dead, or a dead binder's half-bound
     * one).
     *
     * @param wakeAddress this handle's wake socket, named in the entry (0: none)
     * @param handlerKey which handler this is (0: not said): a live owner with the same non-zero
     *     key makes this a standby rather than a refusal
     * @return the registration, or null when a live owner serves the same handler key (this handle
     *     stands by: nothing was written)
     */
    synchronized @Nullable Registration bind(
            long passId, PassHandler handler, long wakeAddress, long handlerKey) {
        Registration r = claimEntry(passId, handler, wakeAddress, handlerKey);
        if (r == null) {
            return null;
        }
        registrations.put(passId, r);
        entries.put(passId, r.entry);
        republish();
        return r;
    }

    private @Nullable Registration claimEntry(
            long passId, PassHandler handler, long wakeAddress, long handlerKey) {
        while (true) {
            int reusable = -1;
            long reusableWord = 0;
            int bound = -1;
            long boundWord = 0;
            for (int entry = 0; entry < layout.maxPasses(); entry++) {
                int offset = layout.entryOffset(entry);
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
                if (!requireGone(passId, layout.entryOffset(entry), word, handlerKey)) {
                    return null; // the same handler lives elsewhere: stand by
                }
            } else if (reusable >= 0) {
                entry = reusable;
                word = reusableWord;
            } else {
                throw new CxcCapacityException(
                        "all "
                                + layout.maxPasses()
                                + " pass entries (maxPasses) of "
                                + file
                                + " are registered by live processes; unregister one, or create"
                                + " the registry with a larger maxPasses");
            }
            int offset = layout.entryOffset(entry);
            int record = offset + OWNER_RECORD_OFFSET;
            long mine = OwnerRecord.ownerWord(pid, OwnerRecord.nextGeneration(word));
            if (!OwnerRecord.claim(body, record, word, mine, startTime, System::nanoTime)) {
                continue; // its owner word moved (released meanwhile): judge afresh
            }
            Interleaving.at(Point.PASS_ENTRY_CLAIMED);
            if (bound < 0) {
                body.setLongRelease(offset + PASS_ID_OFFSET, passId);
                body.setLongRelease(offset + CALLS_OFFSET, 0);
            }
            body.setLongRelease(offset + WAKE_ADDRESS_OFFSET, wakeAddress);
            body.setLongRelease(offset + HANDLER_KEY_OFFSET, handlerKey);
            body.setLongRelease(offset + BOUND_KEY_OFFSET, OwnerRecord.key(mine));
            return new Registration(passId, entry, offset, mine, handler);
        }
    }

    /**
     * True if the owner of {@code word} (bound to {@code passId}) is gone; false if it lives and
     * serves the same non-zero {@code handlerKey} (a copy of this handler: stand by); throws if it
     * lives with another handler.
     */
    private boolean requireGone(long passId, int entryOffset, long word, long handlerKey) {
        int record = entryOffset + OWNER_RECORD_OFFSET;
        long owner = OwnerRecord.pid(word);
        if (owner == OwnerRecord.NO_OWNER) {
            return true;
        }
        if (OwnerRecord.isOwnedBy(body, record, word, pid, startTime)) {
            throw owned(
                    passId,
                    owner,
                    "already registered by this process (PID "
                            + owner
                            + ") through another handle; one process registers an id once");
        }
        if (OwnerRecord.isDead(body, record, word)) {
            return true;
        }
        long ownersKey = handlerKeyOf(entryOffset, word);
        if (handlerKey != 0 && ownersKey == handlerKey) {
            return false;
        }
        throw owned(
                passId,
                owner,
                "registered by live process PID "
                        + owner
                        + (handlerKey != 0 && ownersKey != 0
                                ? " with another handler (key "
                                        + Long.toHexString(ownersKey)
                                        + ", this one's "
                                        + Long.toHexString(handlerKey)
                                        + "): two different handlers cannot share one id"
                                : "")
                        + "; it is freed when that process unregisters it, closes its registry"
                        + " or dies");
    }

    /**
     * The handler key the entry's owner {@code word} bound (0: not said, or the entry moved on):
     * read between two reads of the owner word, so a key is never paired with another owner.
     */
    long handlerKeyOf(int entryOffset, long word) {
        long key = body.getLongAcquire(entryOffset + HANDLER_KEY_OFFSET);
        return ownerWord(entryOffset) == word
                        && body.getLongVolatile(entryOffset + BOUND_KEY_OFFSET)
                                == OwnerRecord.key(word)
                ? key
                : 0;
    }

    private PassOwnedException owned(long passId, long owner, String how) {
        return new PassOwnedException(
                passId, owner, "pass " + passId + " of " + file + " is " + how);
    }

    /**
     * Takes the binder record, waiting (up to {@link #BINDER_WAIT}) while a live process holds it;
     * a dead holder's is taken over by CAS from the judged word.
     *
     * @return the owner word installed, to {@linkplain #unlockBinder release}
     */
    long lockBinder() {
        long deadline = System.nanoTime() + BINDER_WAIT.toNanos();
        Backoff backoff = Backoff.parking(Waiter.FIRST_PARK_NANOS, 1_000_000);
        while (true) {
            long word = OwnerRecord.ownerWord(body, BINDER_OFFSET);
            if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER
                    || OwnerRecord.isDead(body, BINDER_OFFSET, word)) {
                long mine = OwnerRecord.ownerWord(pid, OwnerRecord.nextGeneration(word));
                if (OwnerRecord.claim(
                        body, BINDER_OFFSET, word, mine, startTime, System::nanoTime)) {
                    return mine;
                }
                continue;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new CxcTimeoutException(
                        "waited "
                                + BINDER_WAIT
                                + " for the binder record of "
                                + file
                                + ", held by live process PID "
                                + OwnerRecord.pid(word)
                                + ", to bind pass ids to entries");
            }
            backoff.idle();
        }
    }

    void unlockBinder(long binder) {
        OwnerRecord.release(body, BINDER_OFFSET, binder);
    }

    /**
     * Gives up {@code passId}: its entry's owner word is freed by CAS from the word this handle
     * installed.
     *
     * @throws IllegalStateException if this handle did not register it
     */
    synchronized void unbind(long passId) {
        Registration r = registrations.remove(passId);
        if (r == null) {
            throw new IllegalStateException(
                    "pass " + passId + " is not registered through this handle of " + file);
        }
        republish();
        release(r);
    }

    /** Gives up every pass this handle serves (at close). */
    synchronized void unbindAll() {
        for (Registration r : registrations.values()) {
            release(r);
        }
        registrations.clear();
        republish();
    }

    /** Our word was replaced (we were judged dead, or the file was rewritten): stop serving. */
    synchronized void lost(Registration r) {
        if (registrations.remove(r.passId, r)) {
            republish();
        }
    }

    private void release(Registration r) {
        OwnerRecord.release(body, r.entryOffset + OWNER_RECORD_OFFSET, r.ownerWord);
    }

    private void republish() {
        served = registrations.values().toArray(new Registration[0]);
    }

    boolean stillOurs(Registration r) {
        return OwnerRecord.ownerWord(body, r.entryOffset + OWNER_RECORD_OFFSET) == r.ownerWord;
    }

    // ------------------------------------------------------------------- what every process sees

    /** Whether a live process has {@code passId} bound (probes {@code /proc}). */
    boolean isLive(long passId) {
        Binding binding = bindingOf(passId);
        return binding != null && ownerIsLive(binding.entryOffset, binding.ownerWord);
    }

    /** The entries bound to a pass id by a live process (probes each owner). */
    int liveCount() {
        int count = 0;
        for (int entry = 0; entry < layout.maxPasses(); entry++) {
            int offset = layout.entryOffset(entry);
            long word = ownerWord(offset);
            if (boundId(offset, word) != NO_PASS && ownerIsLive(offset, word)) {
                count++;
            }
        }
        return count;
    }

    private boolean ownerIsLive(int entryOffset, long word) {
        int record = entryOffset + OWNER_RECORD_OFFSET;
        return OwnerRecord.pid(word) != OwnerRecord.NO_OWNER
                && !OwnerRecord.isDead(body, record, word);
    }

    long ownerWord(int entryOffset) {
        return OwnerRecord.ownerWord(body, entryOffset + OWNER_RECORD_OFFSET);
    }

    /** The wake socket the entry's binder named (0: none); a hint only. */
    long wakeAddress(int entryOffset) {
        return body.getLongAcquire(entryOffset + WAKE_ADDRESS_OFFSET);
    }

    long ownerStartTime(int entryOffset, long word) {
        return OwnerRecord.startTime(body, entryOffset + OWNER_RECORD_OFFSET, word);
    }

    /**
     * The id entry {@code entryOffset} is bound to under its owner word {@code word}, or {@link
     * PassRegistryDescriptor#NO_PASS} if none (never bound, or being bound). Reads the bound key,
     * then the id, then both words again: a binder changes the owner word before the id, and
     * publishes the bound key after it, so an unchanged pair proves the id belongs to {@code word}.
     */
    long boundId(int entryOffset, long word) {
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

    /**
     * The entry bound to {@code passId}, or null: the cached entry if still bound to it, else a
     * scan of every entry (entries are reused, so there is no end marker).
     */
    @Nullable Binding bindingOf(long passId) {
        Integer cached = entries.get(passId);
        if (cached != null) {
            Binding binding = bindingAt(cached, passId);
            if (binding != null) {
                return binding;
            }
            entries.remove(passId, cached);
        }
        for (int entry = 0; entry < layout.maxPasses(); entry++) {
            Binding binding = bindingAt(entry, passId);
            if (binding != null) {
                entries.put(passId, entry);
                return binding;
            }
        }
        return null;
    }

    private @Nullable Binding bindingAt(int entry, long passId) {
        int offset = layout.entryOffset(entry);
        long word = ownerWord(offset);
        return boundId(offset, word) == passId ? new Binding(entry, offset, word) : null;
    }

    /**
     * Why the call's owner can no longer answer, or null: the pass moved on and the request was not
     * taken, or the process that took it is dead.
     */
    @Nullable CxcException ownerGone(PassCall call, boolean running) {
        long current = ownerWord(call.entryOffset);
        boolean dead =
                ProcessProbe.status(call.ownerPid(), call.ownerStartTime) == ProcessStatus.DEAD;
        if (dead) {
            return new PassOwnerDiedException(
                    call.passId,
                    call.ownerPid(),
                    running,
                    "the owner of pass "
                            + call.passId
                            + " in "
                            + file
                            + " changed: PID "
                            + call.ownerPid()
                            + ", died before the call was answered; "
                            + (running
                                    ? "its handler had started: it may have run, so retry only a"
                                            + " call that is safe to run twice"
                                    : "its handler had not started: the call may be retried, and"
                                            + " the copy that takes the pass over answers it"));
        }
        if (current != call.addressed && !running) {
            return new PassOwnerDiedException(
                    call.passId,
                    call.ownerPid(),
                    false,
                    "the owner of pass "
                            + call.passId
                            + " changed, and the call may be retried (its handler had not"
                            + " started): pass "
                            + call.passId
                            + " of "
                            + file
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
}
