package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.subetha.cxc.testing.RawBody;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * What {@code close()} owes the threads and calls of its handle: the completer and the ticker it
 * started are stopped before it returns, a pending async call fails and its request is withdrawn, a
 * running handler is waited for (and still answers), an interrupt ends that wait but is kept, a
 * dispatcher blocked on its wake socket is woken at once, a call waiting for a slot fails, and a
 * closed handle refuses to register or call.
 */
class PassRegistryCloseTest extends PassRegistryFixture {

    private static final PassWaiting BLOCK_AT_ONCE =
            new PassWaiting(Duration.ZERO, Duration.ZERO, HOUR, HOUR);

    /** An owner of pass 7 whose handler waits for {@link #release}. */
    private PassRegistry gatedOwner() {
        PassRegistry owner = open(1, 2, 64);
        owner.register(
                7,
                args -> {
                    started.countDown();
                    release.await();
                    return PassChild.bytes(PassChild.value(args) + 7);
                });
        return owner;
    }

    private static Set<Thread> threads(String prefix) {
        Set<Thread> found = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix + "calls.passes") && t.isAlive()) {
                found.add(t);
            }
        }
        return found;
    }

    private static boolean waitsIn(Thread thread, String method) {
        return thread.getState() == Thread.State.TIMED_WAITING
                && Arrays.stream(thread.getStackTrace())
                        .anyMatch(f -> f.getMethodName().equals(method));
    }

    @Test
    void closeStopsTheCompleterItStartedBeforeItReturnsAndACallerStartsNoTicker() throws Exception {
        gatedOwner();
        // The owner's own ticker starts once its dispatcher blocks: not the caller's.
        soon(LONG).until(() -> threads("cxc-pass-ticker-").size() == 1);
        Set<Thread> before = threads("cxc-pass-ticker-");
        PassRegistry caller = open(1, 2, 64, BLOCK_AT_ONCE);
        CompletableFuture<byte[]> blocked =
                CompletableFuture.supplyAsync(() -> caller.execute(7, PassChild.bytes(1), HOUR));
        soon(LONG).until(() -> caller.describe().get("blockedCalls").equals(1));
        CompletableFuture<byte[]> async = caller.executeAsync(7, PassChild.bytes(2), HOUR);
        Set<Thread> ticker = threads("cxc-pass-ticker-");
        ticker.removeAll(before);
        Set<Thread> completer = threads("cxc-pass-completer-");
        assertThat(ticker).as("a caller's waits need no ticker").isEmpty();
        assertThat(completer).hasSize(1);
        release.countDown();
        assertThat(PassChild.value(blocked.get(30, TimeUnit.SECONDS))).isEqualTo(8);
        assertThat(PassChild.value(async.get(30, TimeUnit.SECONDS))).isEqualTo(9);

        caller.close();

        assertThat(completer.iterator().next().isAlive()).as("the completer").isFalse();
    }

    @Test
    void closeFailsAPendingAsyncCallAndWithdrawsItsRequest() {
        PassRegistry caller = open(1, 2, 64);
        bind(RawBody.of(file()), entry(0, 2, 64), 7, 1, 3); // PID 1: alive, never serves
        CompletableFuture<byte[]> call = caller.executeAsync(7, new byte[1], HOUR);
        PassRegistry other = open(1, 2, 64);
        assertThat(other.describe()).containsEntry("busySlots", 1);

        caller.close();

        assertThat(call)
                .failsWithin(LONG)
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(IllegalStateException.class)
                .withMessageContaining("was closed while the call was pending");
        assertThat(other.describe()).containsEntry("busySlots", 0);
    }

    @Test
    void closeWaitsForARunningHandlerWhoseAnswerStillReachesItsCaller() throws Exception {
        PassRegistry owner = gatedOwner();
        PassRegistry caller = open(1, 2, 64);
        CompletableFuture<byte[]> call = caller.executeAsync(7, PassChild.bytes(3), LONG);
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        Thread[] closer = new Thread[1];
        CompletableFuture<Void> closing =
                CompletableFuture.runAsync(
                        () -> {
                            closer[0] = Thread.currentThread();
                            owner.close();
                        });
        soon(LONG).until(() -> closer[0] != null && waitsIn(closer[0], "join"));
        assertThat(closing).isNotDone();

        release.countDown();

        assertThat(closing).succeedsWithin(LONG);
        assertThat(PassChild.value(call.get(30, TimeUnit.SECONDS))).isEqualTo(10);
        assertThat(threads("cxc-pass-dispatcher-")).isEmpty();
    }

    @Test
    void anInterruptedCloseStopsWaitingForTheHandlerAndKeepsTheInterrupt() throws Exception {
        PassRegistry owner = gatedOwner();
        PassRegistry caller = open(1, 2, 64);
        caller.executeAsync(7, PassChild.bytes(3), LONG);
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread closer =
                new Thread(
                        () -> {
                            owner.close();
                            interrupted.set(Thread.currentThread().isInterrupted());
                        });
        closer.start();
        soon(LONG).until(() -> waitsIn(closer, "join"));

        closer.interrupt();

        closer.join(LONG.toMillis());
        assertThat(closer.isAlive()).isFalse();
        assertThat(interrupted).isTrue();
        assertThat(owner.isClosed()).isTrue();
    }

    @Test
    void closeWakesADispatcherBlockedOnItsWakeSocketAtOnce() {
        PassRegistry owner = open(1, 2, 64, BLOCK_AT_ONCE);
        owner.register(7, args -> args);
        PassRegistry caller = open(1, 2, 64);
        assertThat(caller.execute(7, new byte[] {1}, LONG)).containsExactly(1);
        Thread dispatcher = threads("cxc-pass-dispatcher-").iterator().next();
        soon(LONG)
                .until(
                        () ->
                                Arrays.stream(dispatcher.getStackTrace())
                                        .anyMatch(
                                                f -> f.getMethodName().equals("blockForRequests")));

        assertTimeoutPreemptively(Duration.ofSeconds(5), owner::close);

        assertThat(dispatcher.isAlive()).isFalse();
    }

    /** A call waiting for a free slot when its handle closes fails at once, not at its timeout. */
    @Test
    void aCallWaitingForASlotFailsWhenItsHandleCloses() {
        PassRegistry caller = open(1, 2, 64);
        io.subetha.cxc.mmf.AtomicBuffer raw = RawBody.of(file());
        int e = entry(0, 2, 64);
        bind(raw, e, 7, 1, 3); // PID 1: alive, never serves
        long self = io.subetha.cxc.process.Pids.current();
        long start = io.subetha.cxc.claim.OwnerRecord.startTimeOf(self);
        for (int i = 0; i < 2; i++) { // both slots claimed by this process, alive: never reclaimed
            int s = slot(e, i, 64);
            raw.setLongVolatile(
                    s + PassRegistryDescriptor.CALLER_IDENTITY_OFFSET,
                    PassRegistryDescriptor.callerIdentity(5, start));
            raw.setLongVolatile(
                    s + PassRegistryDescriptor.STATE_WORD_OFFSET,
                    PassRegistryDescriptor.packState(
                            PassRegistryDescriptor.STATE_CLAIMED, 5, self));
        }
        Thread[] calling = new Thread[1];
        CompletableFuture<byte[]> call =
                CompletableFuture.supplyAsync(
                        () -> {
                            calling[0] = Thread.currentThread();
                            return caller.execute(7, new byte[1], HOUR);
                        });
        soon(LONG).until(() -> calling[0] != null && waitsIn(calling[0], "execute"));

        caller.close();

        assertThat(call)
                .failsWithin(LONG)
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(IllegalStateException.class)
                .withMessageEndingWith(" is closed");
    }

    @Test
    void aClosedHandleRefusesToRegisterOrCall() {
        PassRegistry owner = open(1, 1, 64);
        owner.register(1, args -> args);
        PassRegistry caller = open(1, 1, 64);
        caller.close();
        assertThatThrownBy(() -> caller.execute(1, new byte[0], LONG))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith(" is closed");
        assertThatThrownBy(() -> caller.register(2, args -> args))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith(" is closed");
        assertThat(caller.executeAsync(1, new byte[0], LONG))
                .failsWithin(LONG)
                .withThrowableThat()
                .withMessageContaining("is closed");
        assertThatThrownBy(() -> owner.execute(1, null, LONG))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> owner.execute(1, new byte[0], null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> owner.execute(1, new byte[65], LONG))
                .hasMessageContaining("args of 65 bytes exceed maxPayloadBytes 64 of");
        assertThat(owner.execute(1, new byte[64], LONG)).hasSize(64);
    }
}
