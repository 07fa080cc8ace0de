package io.subetha.cxc.dispatch;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The thread that completes one registry handle's async calls: it sends each call's request once a
 * mailbox slot is free, polls for its answer, and completes its future with the result or the
 * exception a blocking call would throw. It parks between looks; it never blocks on a wake
 * connection.
 */
final class PassCompleter {

    private final String name;
    private final PassWaiting waiting;
    private final PassCaller caller;
    private final AtomicBoolean closing;
    private final ConcurrentLinkedQueue<PassCall> calls = new ConcurrentLinkedQueue<>();

    /** Started by the first async call, with the handle's lock held. */
    private @Nullable Thread thread;

    PassCompleter(String name, PassWaiting waiting, PassCaller caller, AtomicBoolean closing) {
        this.name = name;
        this.waiting = waiting;
        this.caller = caller;
        this.closing = closing;
    }

    /** Takes over {@code call}, starting the thread on first use; with the handle's lock held. */
    void add(PassCall call) {
        calls.add(call);
        if (thread != null) {
            return;
        }
        Thread t = new Thread(this::complete, "cxc-pass-completer-" + name);
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /** The thread, to join at close, or null; with the handle's lock held. */
    @Nullable Thread thread() {
        return thread;
    }

    /** Fails every call still pending (at close, once the thread stopped). */
    void failPending(String why) {
        PassCall call;
        while ((call = calls.poll()) != null) {
            caller.fail(call, new IllegalStateException(why));
        }
    }

    private void complete() {
        Waiter waiter = new Waiter(waiting);
        while (!closing.get()) {
            boolean progressed = false;
            for (var it = calls.iterator(); it.hasNext(); ) {
                PassCall call = it.next();
                try {
                    if (!caller.trySubmit(call, null)) {
                        continue;
                    }
                    byte[] result = caller.poll(call);
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
}
