package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.wake.DoorbellWaiter;
import io.subetha.cxc.wake.WaitPhases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The caller's side of a call: finds the pass's binding, publishes the request through the {@link
 * PassMailbox} (waiting for a free slot), rings the owner's dispatcher if it announced it sleeps,
 * and waits for the answer, checking the owner's liveness every {@code ownerCheck}. A caller about
 * to block names its waiter of the callers' doorbell ({@code callers}) in its slot and sleeps on it
 * until the dispatcher that answers rings that waiter alone; a lost ring costs the waiter's
 * adaptive safety look. Every wait ends at the call's deadline.
 */
final class PassCaller {

    private final Path file;
    private final PassWaiting waiting;
    private final WaitPhases phases;
    private final PassMailbox mailbox;
    private final PassBindings bindings;
    private final DispatcherBell doorbell;
    private final io.subetha.cxc.wake.Doorbell callers;
    private final AtomicBoolean closing;

    /** The waiters this handle's calls wait on now: closed by {@link #wakeAll}, to end them. */
    private final Set<DoorbellWaiter> inUse = ConcurrentHashMap.newKeySet();

    /** This handle's calls in {@link #awaitAnswer} now. */
    private final AtomicInteger blocked = new AtomicInteger();

    PassCaller(
            Path file,
            PassWaiting waiting,
            PassMailbox mailbox,
            PassBindings bindings,
            DispatcherBell doorbell,
            io.subetha.cxc.wake.Doorbell callers,
            AtomicBoolean closing) {
        this.file = file;
        this.waiting = waiting;
        this.phases = new WaitPhases(waiting.spin(), waiting.yield());
        this.mailbox = mailbox;
        this.bindings = bindings;
        this.doorbell = doorbell;
        this.callers = callers;
        this.closing = closing;
    }

    /**
     * A call to {@code passId}, addressed to the owner its binding names now.
     *
     * @throws PassNotRegisteredException if no process has it bound
     */
    PassCall begin(
            long passId,
            byte[] args,
            Duration timeout,
            @Nullable CompletableFuture<byte[]> future) {
        PassBindings.Binding binding = bindings.bindingOf(passId);
        if (binding == null) {
            throw new PassNotRegisteredException(
                    passId,
                    "pass "
                            + passId
                            + " of "
                            + file
                            + " is not registered by any process (never registered, or its entry"
                            + " was reused for another id after it was unregistered)");
        }
        int offset = binding.entryOffset();
        long word = binding.ownerWord();
        if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER) {
            throw new PassNotRegisteredException(
                    passId,
                    "pass "
                            + passId
                            + " of "
                            + file
                            + " is not registered: its last owner unregistered it");
        }
        PassCall call =
                new PassCall(
                        passId,
                        offset,
                        args,
                        timeout,
                        word,
                        bindings.ownerStartTime(offset, word),
                        future);
        call.nextCheck = System.nanoTime() + waiting.ownerCheck().toNanos();
        return call;
    }

    /** Sends the call, waits for its answer, and returns it (or throws its outcome). */
    byte[] execute(PassCall call) {
        DoorbellWaiter sleeper = callers.lend();
        inUse.add(sleeper);
        try {
            Waiter waiter = new Waiter(waiting);
            while (!trySubmit(call, sleeper)) {
                requireNotClosed();
                waiter.await();
            }
            while (true) {
                byte[] result = poll(call);
                if (result != null) {
                    return result;
                }
                if (closing.get()) {
                    return closedWhilePending(call);
                }
                awaitAnswer(call, sleeper);
            }
        } finally {
            inUse.remove(sleeper);
            callers.giveBack(sleeper);
        }
    }

    /**
     * Waits on the callers' doorbell until the call is answered (or its slot reclaimed, or the
     * handle closing), or its next owner check or deadline comes: {@link #poll} looks at each.
     */
    private void awaitAnswer(PassCall call, DoorbellWaiter sleeper) {
        if (call.namedWaiter == 0) {
            int slot = sleeper.slot();
            if (slot >= 0) {
                // Named before the waiter announces itself (in its first sleep): the dispatcher
                // that answers after reading it rings the slot, one that read it earlier answered
                // before the announcement, which the waiter's last look then sees.
                call.namedWaiter = slot + 1L;
                mailbox.nameWaiter(call, call.namedWaiter);
            }
        }
        long now = System.nanoTime();
        long until = Math.min(call.nextCheck, call.deadline) - now;
        blocked.incrementAndGet();
        try {
            sleeper.await(() -> !pending(call), Duration.ofNanos(Math.max(1, until)), phases);
        } finally {
            blocked.decrementAndGet();
        }
    }

    /** Whether the call still waits for its answer: nothing for {@link #poll} to act on. */
    private boolean pending(PassCall call) {
        if (closing.get()) {
            return false;
        }
        long word = mailbox.stateWord(call.slot);
        int state = state(word);
        return PassMailbox.sameClaim(word, call.claimed)
                && (state == STATE_REQUEST || state == STATE_RUNNING);
    }

    /** This handle's calls waiting for their answers now. */
    int blockedCount() {
        return blocked.get();
    }

    /** Ends every wait of this handle's calls (at close, once closing is set). */
    void wakeAll() {
        for (DoorbellWaiter sleeper : inUse) {
            sleeper.close(); // a closed waiter's wait returns at once; it is not kept
        }
    }

    private void requireNotClosed() {
        if (closing.get()) {
            throw new IllegalStateException(file + " is closed");
        }
    }

    /** The handle closed under a pending call: withdraws it (an answer that came is returned). */
    private byte[] closedWhilePending(PassCall call) {
        String message =
                file + " was closed while the call to pass " + call.passId + " was pending";
        CxcException why = new CxcException(message);
        try {
            return mailbox.withdraw(call, why);
        } catch (CxcException e) {
            if (e == why) {
                throw new IllegalStateException(message);
            }
            throw e;
        }
    }

    /**
     * Claims a free slot and publishes the request; false if none is free yet. Throws when the wait
     * for a slot is over (timeout, owner gone).
     */
    boolean trySubmit(PassCall call, @Nullable DoorbellWaiter sleeper) {
        if (call.slot >= 0) {
            return true;
        }
        // A caller that blocks at once names its waiter with its request: the answer's ring is
        // then the only system call of its wait (a plain socket's caller also writes, then reads).
        long named = 0;
        if (sleeper != null && waiting.blocksAtOnce()) {
            named = sleeper.slot() + 1L; // 0 if it has none
        }
        call.namedWaiter = named;
        if (mailbox.tryPublish(call, named)) {
            wakeDispatcher(call);
            return true;
        }
        long now = System.nanoTime();
        if (now - call.nextCheck >= 0) {
            call.nextCheck = now + waiting.ownerCheck().toNanos();
            mailbox.reclaimDeadSlots(call.entryOffset);
            CxcException gone = bindings.ownerGone(call, false);
            if (gone != null) {
                throw gone;
            }
        }
        if (now - call.deadline >= 0) {
            throw new CxcCapacityException(
                    "all "
                            + mailbox.slotsPerPass()
                            + " mailbox slots (mailboxSlots) of pass "
                            + call.passId
                            + " in "
                            + file
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
    byte @Nullable [] poll(PassCall call) {
        long word = mailbox.stateWord(call.slot);
        if (!PassMailbox.sameClaim(word, call.claimed)) {
            throw slotReclaimed(call);
        }
        int state = state(word);
        if (state == STATE_RESPONSE || state == STATE_FAILED) {
            return mailbox.take(call, word);
        }
        long now = System.nanoTime();
        if (now - call.nextCheck >= 0) {
            call.nextCheck = now + waiting.ownerCheck().toNanos();
            CxcException gone = bindings.ownerGone(call, state == STATE_RUNNING);
            if (gone != null) {
                return mailbox.withdraw(call, gone);
            }
        }
        if (now - call.deadline >= 0) {
            return mailbox.withdraw(
                    call,
                    new CxcTimeoutException(
                            "pass "
                                    + call.passId
                                    + " of "
                                    + file
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

    private CxcException slotReclaimed(PassCall call) {
        return new PassOwnerDiedException(
                call.passId,
                call.ownerPid(),
                "the mailbox slot of a call to pass "
                        + call.passId
                        + " in "
                        + file
                        + " was reclaimed: its owner, PID "
                        + call.ownerPid()
                        + ", was judged dead while the call was pending");
    }

    /** Fails an async call: withdraws its request if it was sent, and completes its future. */
    void fail(PassCall call, RuntimeException why) {
        try {
            if (call.slot >= 0) {
                mailbox.withdraw(call, new CxcException(why.getMessage()));
            }
            Objects.requireNonNull(call.future).completeExceptionally(why);
        } catch (RuntimeException e) {
            Objects.requireNonNull(call.future).completeExceptionally(why);
        }
    }

    // ---------------------------------------------------------------------------------- wake-up

    /** After publishing a request: rings the owner's dispatcher if it announced it sleeps. */
    private void wakeDispatcher(PassCall call) {
        long address = doorbell.takeAnnouncement(call.entryOffset + DISPATCHER_PARKED_OFFSET);
        if (address != 0) {
            doorbell.ringAt(address);
        }
    }
}
