package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.DISPATCHER_PARKED_OFFSET;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The dispatcher threads of one registry handle: each looks at the mailboxes of every pass the
 * handle serves, takes requests addressed to it ({@link PassMailbox#tryTake}), runs the handler and
 * publishes the answer, ringing the caller's waiter on the callers' doorbell if it announced it
 * sleeps. With nothing to do, one of them at a time holds the handle's {@link DispatcherBell}: it
 * announces its socket in every entry it serves, looks once more, and sleeps until rung (its {@link
 * PassTicker} bounding the sleep); the others park with a back-off.
 */
final class PassDispatchers {

    private final String name;
    private final int count;
    private final PassWaiting waiting;
    private final PassMailbox mailbox;
    private final PassBindings bindings;
    private final DispatcherBell doorbell;
    private final io.subetha.cxc.wake.Doorbell callers;
    private final PassTicker ticker;
    private final AtomicBoolean closing;

    /** Counts each request served. */
    private final Runnable served;

    /** Started once, with the handle's lock held; read at close. */
    private final List<Thread> threads = new ArrayList<>();

    PassDispatchers(
            String name,
            int count,
            PassWaiting waiting,
            PassMailbox mailbox,
            PassBindings bindings,
            DispatcherBell doorbell,
            io.subetha.cxc.wake.Doorbell callers,
            PassTicker ticker,
            AtomicBoolean closing,
            Runnable served) {
        this.name = name;
        this.count = count;
        this.waiting = waiting;
        this.mailbox = mailbox;
        this.bindings = bindings;
        this.doorbell = doorbell;
        this.callers = callers;
        this.ticker = ticker;
        this.closing = closing;
        this.served = served;
    }

    /** Starts the threads, the first time; with the handle's lock held. */
    void start() {
        if (!threads.isEmpty()) {
            return;
        }
        for (int i = 0; i < count; i++) {
            Thread thread = new Thread(this::dispatch, "cxc-pass-dispatcher-" + name + "-" + i);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    /** The threads started; with the handle's lock held. */
    List<Thread> threads() {
        return List.copyOf(threads);
    }

    private void dispatch() {
        Waiter waiter = new Waiter(waiting);
        Waiter.Blocker blocker = this::blockForRequests;
        int slots = mailbox.slotsPerPass();
        while (!closing.get()) {
            boolean any = false;
            for (PassBindings.Registration r : bindings.served()) {
                if (!bindings.stillOurs(r)) {
                    bindings.lost(r);
                    continue;
                }
                for (int i = 0; i < slots; i++) {
                    int slot = mailbox.slotOffset(r.entryOffset(), i);
                    long running = mailbox.tryTake(slot, r.ownerWord());
                    if (running != 0) {
                        serve(r, slot, running);
                        any = true;
                    }
                }
            }
            if (any) {
                waiter = new Waiter(waiting);
            } else {
                waiter.await(blocker);
            }
        }
    }

    private void serve(PassBindings.Registration r, int slot, long running) {
        served.run();
        int maxPayload = mailbox.maxPayload();
        int length = mailbox.requestLength(slot);
        byte[] result;
        boolean failed = false;
        if (length < 0 || length > maxPayload) {
            result =
                    mailbox.failure(
                            "java.lang.IllegalArgumentException",
                            "request length "
                                    + Integer.toUnsignedString(length)
                                    + " is outside 0.."
                                    + maxPayload);
            failed = true;
        } else {
            byte[] args = mailbox.readRequest(slot, length);
            try {
                byte[] out = r.handler().handle(args);
                result = out == null ? new byte[0] : out;
                if (result.length > maxPayload) {
                    result =
                            mailbox.failure(
                                    "java.lang.IllegalArgumentException",
                                    "the handler's result of "
                                            + result.length
                                            + " bytes exceeds maxPayloadBytes "
                                            + maxPayload);
                    failed = true;
                }
            } catch (Throwable e) {
                result =
                        mailbox.failure(
                                e.getClass().getName(),
                                e.getMessage() == null ? "" : e.getMessage());
                failed = true;
            }
        }
        if (mailbox.answer(r.entryOffset(), slot, running, result, failed)) {
            wakeCaller(slot);
        }
    }

    /**
     * After publishing an answer: rings the caller's waiter alone if it announced it sleeps. Our
     * caller may have taken its answer and freed the slot, and a new call named another waiter
     * meanwhile: that one is rung at most once for nothing, and looks again.
     */
    private void wakeCaller(int slot) {
        long named = mailbox.callerWaiter(slot);
        if (named > 0 && named <= callers.slots()) { // anything else: a damaged slot, ring nobody
            callers.ringIfAnnounced((int) named - 1);
        }
    }

    /**
     * A dispatcher with nothing to do: the one that holds the wake socket announces itself in its
     * entries and sleeps on it; the others park.
     */
    private void blockForRequests(long suggestedNanos) {
        if (!doorbell.tryHold()) {
            LockSupport.parkNanos(suggestedNanos);
            return;
        }
        long address = doorbell.address();
        PassBindings.Registration[] mine = bindings.served();
        try {
            doorbell.drain(); // before the last look: a ring drained after it could be lost
            for (PassBindings.Registration r : mine) {
                doorbell.announce(r.entryOffset() + DISPATCHER_PARKED_OFFSET, address);
            }
            if (!hasRequest(mine)) {
                ticker.dispatcherSleeps();
                try {
                    doorbell.sleep();
                } finally {
                    ticker.dispatcherWoke();
                }
            }
        } finally {
            for (PassBindings.Registration r : mine) {
                doorbell.withdraw(r.entryOffset() + DISPATCHER_PARKED_OFFSET, address);
            }
            doorbell.letGo();
        }
    }

    private boolean hasRequest(PassBindings.Registration[] mine) {
        for (PassBindings.Registration r : mine) {
            if (mailbox.hasRequest(r.entryOffset(), r.ownerWord())) {
                return true;
            }
        }
        return false;
    }
}
