package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassChild.bytes;
import static io.subetha.cxc.dispatch.PassChild.value;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import io.subetha.cxc.testing.RawBody;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How both sides sleep and are woken, each announcing itself in the file before it blocks: a caller
 * on the file's callers' doorbell, rung alone by the dispatcher that answers it; the dispatcher on
 * its owner's wake socket (owner-only, beside the file, deleted on close), with its blocking read
 * of its only caller's connection and what only the selector sees (a second caller, a caller that
 * leaves, closing). And the bounds of every wait when no ring comes: a lost ring to a caller (its
 * waiter's safety look), a request the dispatcher was not rung for (the owner's ticker), a
 * deadline, a slot claimed by another caller, an owner gone, close. Waits other than the bound
 * under test are an hour long.
 */
class PassRegistryWakeTest extends PassRegistryFixture {

    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void closeChildren() {
        children.close();
    }

    /**
     * Until the call blocks, looking first after Awaitility's default delay: time for the owner's
     * dispatcher to take the request (and its handler to start) before the test looks at the slot.
     */
    private static void awaitBlocked(PassRegistry caller) {
        await().atMost(LIMIT).until(() -> caller.describe().get("blockedCalls").equals(1));
    }

    /** Until the call blocks, looking every millisecond from the start. */
    private static void awaitBlockedPromptly(PassRegistry caller) {
        soon(LIMIT).until(() -> caller.describe().get("blockedCalls").equals(1));
    }

    /** Registers pass 4 in a handle of this process: its handler waits for {@link #release}. */
    private void gatedOwner() {
        open(2, 2, 64, PassWaiting.DEFAULT)
                .register(
                        4,
                        args -> {
                            release.await();
                            return bytes(value(args) + 4);
                        });
    }

    /**
     * The dispatcher finds no caller's waiter named when it answers (taken from the slot while the
     * caller was blocked: a ring lost), so it rings nobody: the caller's waiter's safety look sees
     * the answer in the file; the call's own timeout and owner checks are an hour away.
     */
    @Test
    void aLostRingIsRecoveredByTheCallersSafetyLook() {
        gatedOwner();
        PassRegistry caller = open(2, 2, 64, blockAtOnce(Duration.ofMillis(20), HOUR));
        CompletableFuture<byte[]> call =
                CompletableFuture.supplyAsync(() -> caller.execute(4, bytes(3), HOUR));
        awaitBlocked(caller);

        AtomicBuffer body = RawBody.of(file());
        int stolen = 0;
        for (int i = 0; i < 2; i++) {
            int slot = ENTRIES_OFFSET + ENTRY_HEADER_LENGTH + i * (int) slotStride(64);
            long waiter = body.getLongVolatile(slot + CALLER_WAITER_OFFSET);
            int state = state(body.getLongVolatile(slot + STATE_WORD_OFFSET));
            if (state == STATE_RUNNING
                    && waiter != 0
                    && body.compareAndSetLong(slot + CALLER_WAITER_OFFSET, waiter, 0)) {
                stolen++;
            }
        }
        assertThat(stolen).as("the blocked call's named waiter, taken").isEqualTo(1);
        release.countDown();

        assertTimeoutPreemptively(LIMIT, () -> assertThat(value(call.get())).isEqualTo(3 + 4));
        assertThat(caller.describe()).containsEntry("blockedCalls", 0);
    }

    /**
     * The dispatcher waits untimed on its wake socket; a request it is not poked for (its parked
     * announcement taken from the file before the call, so the caller pokes nobody) is found by the
     * owner handle's ticker, which wakes it. The caller's connection is made by a first call, so no
     * new connection wakes the dispatcher either; the caller's own waits are an hour long.
     */
    @Test
    void aRequestTheBlockedDispatcherWasNotPokedForIsServedAfterTheTickersLooks() {
        PassRegistry owner = open(2, 2, 64, blockAtOnce(Duration.ofMillis(20), HOUR));
        owner.register(5, args -> bytes(value(args) + 5));
        PassRegistry caller = open(2, 2, 64, blockAtOnce(HOUR, HOUR));
        assertTimeoutPreemptively(
                LIMIT, () -> assertThat(value(caller.execute(5, bytes(1), HOUR))).isEqualTo(6));

        AtomicBuffer body = RawBody.of(file());
        int[] stolen = {0};
        await().atMost(LIMIT)
                .until(
                        () -> {
                            for (int i = 0; i < 2; i++) {
                                int parked =
                                        ENTRIES_OFFSET
                                                + i * (int) entryStride(2, 64)
                                                + DISPATCHER_PARKED_OFFSET;
                                long address = body.getLongVolatile(parked);
                                if (address != 0 && body.compareAndSetLong(parked, address, 0)) {
                                    stolen[0]++;
                                }
                            }
                            return stolen[0] == 1;
                        });

        assertTimeoutPreemptively(
                LIMIT, () -> assertThat(value(caller.execute(5, bytes(2), HOUR))).isEqualTo(7));
        assertThat(stolen[0]).as("announcements taken: the second call poked nobody").isEqualTo(1);
    }

    /**
     * The answer never comes: the call ends at its deadline, which bounds its sleep on the doorbell
     * (its owner checks an hour apart); its waiter then serves the next call.
     */
    @Test
    void aBlockedCallsTimeoutEndsItsSleep() {
        gatedOwner();
        PassRegistry caller = open(2, 2, 64, blockAtOnce(Duration.ofMillis(20), HOUR));

        assertTimeoutPreemptively(
                LIMIT,
                () ->
                        assertThatThrownBy(
                                        () -> caller.execute(4, bytes(1), Duration.ofMillis(300)))
                                .isInstanceOf(CxcTimeoutException.class)
                                .hasMessageContaining("within PT0.3S")
                                .hasMessageContaining("its handler was still running"));
        assertThat(caller.describe()).containsEntry("blockedCalls", 0);
        release.countDown();
        assertTimeoutPreemptively(
                LIMIT, () -> assertThat(value(caller.execute(4, bytes(2), HOUR))).isEqualTo(6));
    }

    /** Closing the caller's handle closes the waiter its blocked call sleeps on: the call fails. */
    @Test
    void closeEndsABlockedCallsSleep() throws Exception {
        gatedOwner();
        PassRegistry caller = open(2, 2, 64, blockAtOnce(HOUR, HOUR));
        CompletableFuture<byte[]> call =
                CompletableFuture.supplyAsync(() -> caller.execute(4, bytes(1), HOUR));
        awaitBlocked(caller);

        assertTimeoutPreemptively(LIMIT, caller::close);

        assertThatThrownBy(() -> call.get(LIMIT.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was closed while the call to pass 4 was pending");
    }

    /**
     * An owner process killed while the caller sleeps: the caller's sleep ends at its next owner
     * check (every second), which finds the owner dead: the call fails naming the PID.
     */
    @Test
    void aKilledOwnerIsFoundByABlockedCallsOwnerCheck() throws Exception {
        ChildJvm owner = children.add(ChildJvm.start("owner", PassChild.class));
        owner.send("open " + file() + " 2 2 64");
        assertThat(owner.readLine(LIMIT)).isEqualTo("ok");
        owner.send("register 4 gate");
        assertThat(owner.readLine(LIMIT)).isEqualTo("ok");
        PassRegistry caller = open(2, 2, 64, blockAtOnce(HOUR, Duration.ofSeconds(1)));
        CompletableFuture<byte[]> call =
                CompletableFuture.supplyAsync(() -> caller.execute(4, bytes(0), HOUR));
        assertThat(owner.readLine(LIMIT)).isEqualTo("running 0");
        awaitBlocked(caller);

        owner.kill();

        assertThatThrownBy(() -> call.get(LIMIT.toSeconds(), TimeUnit.SECONDS))
                .cause()
                .isInstanceOfSatisfying(
                        PassOwnerDiedException.class,
                        e -> assertThat(e.ownerPid()).isEqualTo(owner.pid()))
                .hasMessageContaining("PID " + owner.pid() + ", died");
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }

    /** An owner of pass 7, one dispatcher, whose handler waits for {@link #release}. */
    private PassRegistry gatedOwnerOfPass7() {
        PassRegistry owner = open(1, 2, 64, PassWaiting.DEFAULT);
        owner.register(
                7,
                args -> {
                    started.countDown();
                    release.await();
                    return PassChild.bytes(PassChild.value(args) + 7);
                });
        return owner;
    }

    /**
     * The blocked call's slot, while its handler runs, is found claimed and running for another
     * caller (a new generation): the call's safety look sees it, and the call fails as reclaimed.
     * Its owner checks are an hour apart, so only the claim check can end it.
     */
    @Test
    void aBlockedCallWhoseSlotAnotherCallerClaimedIsWokenByItsSafetyLook() throws Exception {
        gatedOwnerOfPass7();
        PassRegistry caller = open(1, 2, 64, blockAtOnce(Duration.ofMillis(5), HOUR));
        CompletableFuture<byte[]> call =
                CompletableFuture.supplyAsync(() -> caller.execute(7, PassChild.bytes(1), HOUR));
        assertThat(started.await(LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        awaitBlockedPromptly(caller);
        AtomicBuffer raw = RawBody.of(file());
        int mine = -1;
        for (int i = 0; i < 2; i++) {
            int s = slot(entry(0, 2, 64), i, 64);
            if (state(raw.getLongVolatile(s + STATE_WORD_OFFSET)) == STATE_RUNNING) {
                mine = s;
            }
        }
        assertThat(mine).isPositive();
        long word = raw.getLongVolatile(mine + STATE_WORD_OFFSET);
        raw.setLongVolatile(
                mine + STATE_WORD_OFFSET, packState(STATE_RUNNING, generation(word) + 1, 1));

        assertTimeoutPreemptively(
                LIMIT,
                () ->
                        assertThat(call)
                                .failsWithin(LIMIT)
                                .withThrowableThat()
                                .havingCause()
                                .isInstanceOf(PassOwnerDiedException.class)
                                .withMessageContaining("was reclaimed"));
        assertThat(caller.describe()).containsEntry("blockedCalls", 0);
    }

    /**
     * A blocked call's request waits behind a running one (one dispatcher); its owner unregisters
     * the pass. The call's sleep ends at its owner check (every 20 ms), which finds the request
     * unserved and the pass gone: the call fails naming the owner.
     */
    @Test
    void aBlockedCallsOwnerThatUnregistersIsFoundAtItsOwnerCheck() throws Exception {
        PassRegistry owner = gatedOwnerOfPass7();
        PassRegistry first = open(1, 2, 64, PassWaiting.DEFAULT);
        CompletableFuture<byte[]> running = first.executeAsync(7, PassChild.bytes(1), HOUR);
        assertThat(started.await(LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        PassRegistry caller =
                open(1, 2, 64, blockAtOnce(Duration.ofMillis(5), Duration.ofMillis(20)));
        CompletableFuture<byte[]> call =
                CompletableFuture.supplyAsync(() -> caller.execute(7, PassChild.bytes(2), HOUR));
        awaitBlockedPromptly(caller);

        owner.unregister(7);

        assertTimeoutPreemptively(
                LIMIT,
                () ->
                        assertThat(call)
                                .failsWithin(LIMIT)
                                .withThrowableThat()
                                .havingCause()
                                .isInstanceOf(PassOwnerDiedException.class)
                                .withMessageContaining("unregistered by its owner"));
        release.countDown();
        assertThat(PassChild.value(running.get(LIMIT.toSeconds(), TimeUnit.SECONDS))).isEqualTo(8);
    }

    /**
     * The entry names a wake socket that is not there (a rebound entry's stale hint), while the
     * owner's dispatcher announced its real one: each call pokes the announced socket through a
     * pooled connection, so the dispatcher, whose own waits are an hour long, serves every call.
     */
    @Test
    void aDispatcherParkedOnAnotherSocketThanItsEntryNamesIsPokedThroughThePool() {
        PassRegistry owner = open(1, 2, 64, blockAtOnce(HOUR, HOUR));
        owner.register(7, args -> PassChild.bytes(PassChild.value(args) + 7));
        AtomicBuffer raw = RawBody.of(file());
        int e = entry(0, 2, 64);
        long real = raw.getLongVolatile(e + WAKE_ADDRESS_OFFSET);
        assertThat(real).isNotZero();
        raw.setLongVolatile(e + WAKE_ADDRESS_OFFSET, real + (1L << 22)); // another sequence
        PassRegistry caller = open(1, 2, 64, PassWaiting.DEFAULT);

        assertTimeoutPreemptively(
                LIMIT,
                () -> {
                    for (int i = 0; i < 5; i++) {
                        soon(LIMIT)
                                .until(
                                        () ->
                                                raw.getLongVolatile(e + DISPATCHER_PARKED_OFFSET)
                                                        == real);
                        assertThat(PassChild.value(caller.execute(7, PassChild.bytes(i), HOUR)))
                                .isEqualTo(i + 7);
                    }
                });
    }

    private static PassWaiting blockAtOnce(Duration maxPark) {
        return new PassWaiting(Duration.ZERO, Duration.ZERO, maxPark, HOUR);
    }

    private final CountDownLatch handlerEntered = new CountDownLatch(1);

    /** Pass 7 in a handle of this process: one dispatcher, a handler that waits for release. */
    private void gatedOwnerAndItsTicker() {
        PassRegistry owner = open(1, 2, 64, PassWaiting.DEFAULT);
        owner.register(
                7,
                args -> {
                    handlerEntered.countDown();
                    release.await();
                    return args;
                });
        // Its dispatcher blocks (and starts the owner's own ticker) before any call.
        soon().until(() -> owner.describe().get("passes") != null && ownerTickerStarted(owner));
    }

    private static boolean ownerTickerStarted(PassRegistry owner) {
        return java.util.Arrays.stream(Thread.getAllStackTraces().keySet().toArray(new Thread[0]))
                .anyMatch(
                        t ->
                                t.getName().equals("cxc-pass-ticker-calls.passes")
                                        && t.isAlive()
                                        && t.getState() == Thread.State.TIMED_WAITING);
    }

    private static void assertTimesOutAt(PassRegistry caller, Duration timeout) {
        assertTimeoutPreemptively(
                LIMIT,
                () ->
                        org.assertj.core.api.Assertions.assertThatThrownBy(
                                        () -> caller.execute(7, new byte[1], timeout))
                                .isInstanceOf(CxcTimeoutException.class)
                                .hasMessageContaining("within " + timeout));
    }

    /**
     * A call blocked behind a gated handler, with looks and owner checks an hour apart, ends at its
     * deadline; its handle starts no ticker of its own (its sleeps are its waiter's), and a call
     * blocked beside it is answered once the handler returns.
     */
    @Test
    void aBlockedCallEndsAtItsDeadlineAndItsHandleStartsNoTicker() throws Exception {
        gatedOwnerAndItsTicker();
        java.util.Set<Thread> before = tickers();
        PassRegistry caller = open(1, 2, 64, blockAtOnce(HOUR));
        CompletableFuture<byte[]> first =
                CompletableFuture.supplyAsync(() -> caller.execute(7, new byte[1], HOUR));
        soon().until(() -> caller.describe().get("blockedCalls").equals(1));
        // The dispatcher holds the first call in its handler, so the timed calls below wait in
        // the other slot as requests (withdrawn, not abandoned, at their deadlines).
        assertThat(handlerEntered.await(LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        assertTimesOutAt(caller, Duration.ofMillis(100));
        assertTimesOutAt(caller, Duration.ofMillis(20));

        assertThat(startedAfter(before)).as("no caller's ticker").isEmpty();
        assertThat(first).isNotDone();
        release.countDown();
        assertThat(first.get(LIMIT.toSeconds(), TimeUnit.SECONDS)).hasSize(1);
        assertThat(caller.describe()).containsEntry("blockedCalls", 0);
    }

    private static java.util.Set<Thread> tickers() {
        java.util.Set<Thread> found = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("cxc-pass-ticker-calls.passes") && t.isAlive()) {
                found.add(t);
            }
        }
        return found;
    }

    private static java.util.Set<Thread> startedAfter(java.util.Set<Thread> before) {
        java.util.Set<Thread> now = tickers();
        now.removeAll(before);
        return now;
    }

    /** Awaitility polling every millisecond from the start (its default waits 100 ms first). */
    private static org.awaitility.core.ConditionFactory soon() {
        return await().atMost(LIMIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
    }

    /** An owner of pass 7 (adds 7) whose ticker looks every {@code maxPark}. */
    private PassRegistry owner(Duration maxPark) {
        PassRegistry owner = open(2, 2, 64, blockAtOnce(maxPark, HOUR));
        owner.register(7, args -> bytes(value(args) + 7));
        return owner;
    }

    /** Calls pass 7 {@code times} times from {@code caller}, checking every answer. */
    private static void calls(PassRegistry caller, int from, int times) {
        assertTimeoutPreemptively(
                LIMIT,
                () -> {
                    for (int i = from; i < from + times; i++) {
                        assertThat(value(caller.execute(7, bytes(i), HOUR))).isEqualTo(i + 7);
                    }
                });
    }

    /**
     * Calls until the owner's dispatcher waits solo: it counts only the waits it blocks in (a
     * request already there when it looks is served without one), so the number of calls varies.
     */
    private static int callUntilSolo(PassRegistry owner, PassRegistry caller) {
        int made = 0;
        while (!owner.waitsSolo() && made < 100 * WakeServer.SOLO_AFTER) {
            calls(caller, made, 1);
            made++;
        }
        awaitSolo(owner, true);
        return made;
    }

    private static void awaitSolo(PassRegistry owner, boolean solo) {
        await().atMost(LIMIT).until(() -> owner.waitsSolo() == solo);
    }

    @Test
    void theOnlyCallersConnectionIsReadInBlockingModeAfterARunOfWaits() {
        PassRegistry owner = owner(HOUR);
        PassRegistry caller = open(2, 2, 64, blockAtOnce(HOUR, HOUR));

        calls(caller, 0, 3);
        assertThat(owner.waitsSolo()).as("after 3 calls, still the selector").isFalse();
        // Each call costs the dispatcher at least one wait, and a wait that ends with nothing to do
        // (woken early under load) counts too, so the run is some calls short of SOLO_AFTER; never
        // near the three above (63 calls were once enough on a loaded machine).
        assertThat(callUntilSolo(owner, caller)).isGreaterThanOrEqualTo(WakeServer.SOLO_AFTER / 2);

        // The owner's ticker looks once an hour: only the caller's pokes, read in blocking mode,
        // can have served these.
        calls(caller, 100, 50);
        assertThat(owner.waitsSolo()).isTrue();
    }

    /**
     * A second caller's connection is not watched while the dispatcher reads the first: its call is
     * found by the owner's ticker, which ends the solo wait by closing the first connection. The
     * first caller's next poke fails and is sent again on a fresh connection; from then on two
     * connections keep the selector, and both callers' calls are answered.
     */
    @Test
    void aSecondCallerIsServedAndTheFirstReconnects() {
        PassRegistry owner = owner(Duration.ofMillis(20));
        PassRegistry first = open(2, 2, 64, blockAtOnce(HOUR, HOUR));
        callUntilSolo(owner, first);

        PassRegistry second = open(2, 2, 64, blockAtOnce(HOUR, HOUR));
        calls(second, 1000, 1);
        assertThat(owner.waitsSolo()).as("woken out of its solo wait").isFalse();

        // The first caller's pooled connection, closed by the owner, fails its next poke; the
        // connection it makes next to wait on is taken in by the selector, which wakes the
        // dispatcher.
        for (int i = 0; i < 3 * WakeServer.SOLO_AFTER; i++) {
            calls(first, 2000 + i, 1);
            calls(second, 3000 + i, 1);
        }
        assertThat(owner.waitsSolo()).as("two connections: the selector").isFalse();
    }

    /** Two callers calling at once, one of them the solo connection's, each answer its own. */
    @Test
    void concurrentCallersAfterASoloWaitGetTheirOwnAnswers() {
        PassRegistry owner = owner(Duration.ofMillis(20));
        PassRegistry first = open(2, 2, 64, blockAtOnce(HOUR, HOUR));
        int made = callUntilSolo(owner, first);
        PassRegistry second = open(2, 2, 64, blockAtOnce(HOUR, HOUR));

        CompletableFuture<Void> a = CompletableFuture.runAsync(() -> calls(first, 10_000, 500));
        CompletableFuture<Void> b = CompletableFuture.runAsync(() -> calls(second, 20_000, 500));

        assertTimeoutPreemptively(LIMIT, () -> CompletableFuture.allOf(a, b).get());
        assertThat(owner.describe().get("passes").toString()).contains("calls=" + (made + 1000));
    }

    /** The solo caller closes its handle: the read ends, and the selector takes in the next. */
    @Test
    void aSoloCallerThatLeavesHandsTheWaitBackToTheSelector() {
        PassRegistry owner = owner(HOUR);
        PassRegistry first = open(2, 2, 64, blockAtOnce(HOUR, HOUR));
        callUntilSolo(owner, first);

        first.close();
        awaitSolo(owner, false);

        // Its ticker looks once an hour: the new connection was taken in by the selector.
        calls(open(2, 2, 64, blockAtOnce(HOUR, HOUR)), 500, 3);
    }

    /** Closing the owner ends its dispatcher's blocking read at once; calls then find no owner. */
    @Test
    void closingTheOwnerEndsASoloWait() {
        PassRegistry owner = owner(HOUR);
        PassRegistry caller = open(2, 2, 64, blockAtOnce(HOUR, HOUR));
        callUntilSolo(owner, caller);

        assertTimeoutPreemptively(Duration.ofSeconds(10), owner::close);

        assertThat(owner.waitsSolo()).isFalse();
        assertThatThrownBy(() -> caller.execute(7, bytes(1), Duration.ofSeconds(5)))
                .isInstanceOf(PassNotRegisteredException.class);
    }

    /**
     * Both sides block at once, each for up to 10 s per poll: the calls still complete promptly
     * (well within the preemptive bound), so the answers and requests arrive by pokes, not polls.
     */
    @Test
    void blockedCallerAndDispatcherAreWokenThroughTheWakeSocket() {
        PassWaiting blockAtOnce =
                new PassWaiting(
                        Duration.ZERO,
                        Duration.ZERO,
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(1));
        PassRegistry owner = open(2, 2, 64, blockAtOnce);
        PassRegistry caller = open(2, 2, 64, blockAtOnce);
        owner.register(4, args -> PassChild.bytes(PassChild.value(args) + 4));

        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                Duration.ofSeconds(60),
                () -> {
                    for (long i = 0; i < 50; i++) {
                        assertThat(PassChild.value(caller.execute(4, PassChild.bytes(i), LONG)))
                                .isEqualTo(i + 4);
                    }
                });
    }

    /** The wake socket is owner-only, beside the file, and deleted on close. */
    @Test
    void theWakeSocketIsOwnerOnlyAndDeletedOnClose() throws IOException {
        PassRegistry owner = PassRegistry.openOrCreate(file(), new PassRegistry.Settings(2, 2, 64));
        owner.register(4, args -> args);
        Path socket = Path.of(String.valueOf(owner.describe().get("wakeSocket")));
        assertThat(socket.getParent()).isEqualTo(WakeServer.directory(file()));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())))
                .isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)))
                .isEqualTo("rw-------");

        owner.close();

        assertThat(socket).doesNotExist();
        assertThat(socket.getParent()).doesNotExist();
    }

    /**
     * With the wake socket gone (a failed channel), blocked sides fall back to their poll interval:
     * calls still complete, none hangs or is lost.
     */
    @Test
    void withoutItsWakeSocketACallCostsAPollNotAHang() throws IOException {
        PassWaiting blockAtOnce =
                new PassWaiting(
                        Duration.ZERO, Duration.ZERO, Duration.ofMillis(2), Duration.ofSeconds(1));
        PassRegistry owner = open(2, 2, 64, blockAtOnce);
        owner.register(4, args -> PassChild.bytes(PassChild.value(args) + 4));
        Files.delete(Path.of(String.valueOf(owner.describe().get("wakeSocket"))));
        PassRegistry caller = open(2, 2, 64, blockAtOnce);

        for (long i = 0; i < 20; i++) {
            assertThat(PassChild.value(caller.execute(4, PassChild.bytes(i), LONG)))
                    .isEqualTo(i + 4);
        }
    }
}
