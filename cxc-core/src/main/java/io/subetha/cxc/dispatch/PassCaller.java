package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The caller's side of a call: finds the pass's binding, publishes the request through the {@link
 * PassMailbox} (waiting for a free slot), rings the owner's dispatcher if it announced it sleeps,
 * and waits for the answer, checking the owner's liveness every {@code ownerCheck}; a caller about
 * to block announces its line's token in its slot and sleeps on the line until rung, bounded by the
 * handle's {@link PassTicker}. Every wait ends at the call's deadline.
 */
final class PassCaller {

    private final Path file;
    private final PassWaiting waiting;
    private final PassMailbox mailbox;
    private final PassBindings bindings;
    private final Doorbell doorbell;
    private final PassTicker ticker;
    private final AtomicBoolean closing;

    PassCaller(
            Path file,
            PassWaiting waiting,
            PassMailbox mailbox,
            PassBindings bindings,
            Doorbell doorbell,
            PassTicker ticker,
            AtomicBoolean closing) {
        this.file = file;
        this.waiting = waiting;
        this.mailbox = mailbox;
        this.bindings = bindings;
        this.doorbell = doorbell;
        this.ticker = ticker;
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
        call.wakeAddress = bindings.wakeAddress(offset);
        return call;
    }

    /** Sends the call, waits for its answer, and returns it (or throws its outcome). */
    byte[] execute(PassCall call) {
        try {
            Waiter waiter = new Waiter(waiting);
            while (!trySubmit(call)) {
                requireNotClosed();
                waiter.await();
            }
            waiter = new Waiter(waiting);
            Waiter.Blocker blocker = nanos -> blockForAnswer(call, nanos);
            while (true) {
                byte[] result = poll(call);
                if (result != null) {
                    return result;
                }
                if (closing.get()) {
                    return closedWhilePending(call);
                }
                waiter.await(blocker);
            }
        } finally {
            giveBack(call);
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
    boolean trySubmit(PassCall call) {
        if (call.slot >= 0) {
            return true;
        }
        // A caller that blocks at once says so with its request: the answer's ring is then the
        // only system call of its wait (a plain socket's caller also writes, then reads).
        long token = 0;
        if (call.future == null && waiting.blocksAtOnce()) {
            WakeConnection wake = connection(call, call.wakeAddress);
            token = wake == null ? 0 : wake.token;
        }
        call.announced = token;
        if (mailbox.tryPublish(call, token)) {
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
        if (address == 0) {
            return;
        }
        if (address != call.wakeAddress) {
            // Not the socket the call waits on (its entry was rebound meanwhile): a pooled line.
            doorbell.ringAt(address);
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

    /**
     * A caller waiting for its answer: blocks in an untimed read on its wake connection (the ticker
     * bounds it), else parks.
     */
    private void blockForAnswer(PassCall call, long suggestedNanos) {
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
            if (!doorbell.announce(tokenOffset, wake.token)) {
                return; // the dispatcher just took a token: look again
            }
            long word = mailbox.stateWord(call.slot);
            int state = state(word);
            if (PassMailbox.sameClaim(word, call.claimed)
                    && (state == STATE_REQUEST || state == STATE_RUNNING)) {
                ticker.blocks(call, wake);
                try {
                    if (!closing.get()) { // close() closes the connections it finds blocked
                        wake.await();
                    }
                } finally {
                    if (!ticker.unblocks(call, wake)) {
                        call.wake = null; // the ticker or close() closed it to wake us
                    }
                }
            }
            doorbell.withdraw(tokenOffset, wake.token);
        } catch (EOFException e) {
            // The owner's socket closed: it closed its registry or died. Check it now.
            doorbell.withdraw(tokenOffset, wake.token);
            call.nextCheck = System.nanoTime();
            drop(call);
        } catch (IOException e) {
            doorbell.withdraw(tokenOffset, wake.token);
            drop(call);
        }
    }

    /** The call's connection to the wake socket at {@code address}, or null if none. */
    private @Nullable WakeConnection connection(PassCall call, long address) {
        if (call.wake != null) {
            if (call.wake.address == address) {
                return call.wake;
            }
            giveBack(call);
        }
        WakeConnection wake = doorbell.lend(address);
        call.wake = wake;
        return wake;
    }

    void giveBack(PassCall call) {
        WakeConnection wake = call.wake;
        if (wake == null) {
            return;
        }
        call.wake = null;
        doorbell.giveBack(wake);
    }

    /** The connection failed: close it; the next block connects afresh. */
    private void drop(PassCall call) {
        WakeConnection wake = call.wake;
        call.wake = null;
        if (wake != null) {
            wake.close();
        }
    }
}
