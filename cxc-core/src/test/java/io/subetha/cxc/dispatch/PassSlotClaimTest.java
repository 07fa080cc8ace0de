package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassPlantedStatesTest.DEAD_PID;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.bind;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.entry;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.slot;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The caller's side of a mailbox slot, word by word: what a claim writes into the slot before it
 * publishes the request (the fields other processes judge it by), a publication that loses its CAS,
 * and the checks a caller waiting for a free slot makes. Owners that never serve are planted as PID
 * 1 (alive, and never a dispatcher of this file), so the slot can be read while pending.
 */
class PassSlotClaimTest {

    private static final Duration LONG = Duration.ofSeconds(30);
    private static final Duration HOUR = Duration.ofHours(1);
    private static final long SELF = Pids.current();

    /** Reclaims and owner checks every 5 ms. */
    private static final PassWaiting QUICK_CHECKS =
            new PassWaiting(
                    Duration.ofNanos(20_000),
                    Duration.ZERO,
                    Duration.ofMillis(1),
                    Duration.ofMillis(5));

    @TempDir Path dir;
    private final List<PassRegistry> opened = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void closeAll() {
        release.countDown();
        opened.forEach(PassRegistry::close);
    }

    private Path file() {
        return dir.resolve("calls.passes");
    }

    private PassRegistry open(int slots) {
        return open(slots, PassWaiting.DEFAULT);
    }

    private PassRegistry open(int slots, PassWaiting waiting) {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        file(), new PassRegistry.Settings(1, slots, 64).withWaiting(waiting));
        opened.add(registry);
        return registry;
    }

    private static int busy(PassRegistry registry) {
        return (Integer) registry.describe().get("busySlots");
    }

    @Test
    void aPublishedRequestCarriesItsCallerIdentityAddressedOwnerAndArgumentsInItsSlot() {
        PassRegistry caller = open(1);
        AtomicBuffer raw = RawBody.of(file());
        int e = entry(0, 1, 64);
        long ownerStart = OwnerRecord.startTimeOf(1);
        bind(raw, e, 7, 1, 3);
        raw.setLongVolatile(
                e + OWNER_RECORD_OFFSET + OwnerRecord.IDENTITY_OFFSET,
                (3L << 32) | (ownerStart & 0xFFFF_FFFFL));

        CompletableFuture<byte[]> call = caller.executeAsync(7, new byte[] {4, 5, 6}, LONG);

        int s = slot(e, 0, 64);
        long word = raw.getLongVolatile(s + STATE_WORD_OFFSET);
        assertThat(word).isEqualTo(packState(STATE_REQUEST, 1, SELF));
        assertThat(raw.getLongVolatile(s + CALLER_IDENTITY_OFFSET))
                .isEqualTo(callerIdentity(1, OwnerRecord.startTimeOf(SELF)));
        assertThat(raw.getLongVolatile(s + OWNER_START_TIME_OFFSET))
                .isEqualTo(ownerStart & 0xFFFF_FFFFL);
        assertThat(raw.getLongVolatile(s + ADDRESSED_OWNER_OFFSET))
                .isEqualTo(OwnerRecord.ownerWord(1, 3));
        assertThat(raw.getIntVolatile(s + LENGTH_OFFSET)).isEqualTo(3);
        byte[] payload = new byte[3];
        raw.getBytes(s + SLOT_HEADER_LENGTH, payload);
        assertThat(payload).containsExactly(4, 5, 6);
        assertThat(raw.getLongVolatile(s + WAKE_TOKEN_OFFSET)).as("an async call's").isZero();
        assertThat(call).isNotDone();
        assertThat(busy(caller)).isEqualTo(1);
    }

    /** The wake token in the slot when the request is published, by how the caller waits. */
    private long tokenWithTheRequest(PassRegistry caller, boolean async) {
        int s = slot(entry(0, 1, 64), 0, 64);
        AtomicBuffer raw = RawBody.of(file());
        Thread test = Thread.currentThread();
        AtomicLong token = new AtomicLong(-1);
        try (var seen =
                Interleaving.install(
                        p -> {
                            if (p == Point.PASS_REQUEST_WRITTEN && Thread.currentThread() == test) {
                                token.set(raw.getLongVolatile(s + WAKE_TOKEN_OFFSET));
                            }
                        })) {
            byte[] answer =
                    async
                            ? caller.executeAsync(7, PassChild.bytes(1), LONG).join()
                            : caller.execute(7, PassChild.bytes(1), LONG);
            assertThat(PassChild.value(answer)).isEqualTo(8);
        }
        return token.get();
    }

    @Test
    void onlyASynchronousCallerThatBlocksAtOnceWritesItsWakeTokenWithTheRequest() {
        PassRegistry owner = open(1);
        owner.register(7, args -> PassChild.bytes(PassChild.value(args) + 7));
        Duration ms = Duration.ofMillis(1);
        PassRegistry caller = open(1, new PassWaiting(Duration.ZERO, Duration.ZERO, ms, HOUR));
        assertThat(tokenWithTheRequest(caller, false)).as("blocks at once").isNotZero();
        assertThat(tokenWithTheRequest(caller, true)).as("async, blocks at once").isZero();
        assertThat(busy(caller)).isZero();
        PassRegistry yielding = open(1, new PassWaiting(Duration.ZERO, ms, ms, HOUR));
        assertThat(tokenWithTheRequest(yielding, false)).as("yields first").isZero();
        assertThat(busy(yielding)).isZero();
        PassRegistry spinning = open(1, new PassWaiting(ms, Duration.ZERO, ms, HOUR));
        assertThat(tokenWithTheRequest(spinning, false)).as("spins first").isZero();
        assertThat(busy(spinning)).isZero();
    }

    /**
     * A reclaimer frees the slot between the claim and the publication (it judged the caller dead):
     * the publishing CAS fails, nothing is believed, and the call claims the slot afresh under the
     * next generation and is answered. (Believing the lost CAS waits for an answer to a request
     * nobody can see, and times out.)
     */
    @Test
    void aSlotFreedBeforeItsRequestIsPublishedIsClaimedAgainAndTheCallIsAnswered() {
        PassRegistry owner = open(1);
        owner.register(7, args -> PassChild.bytes(PassChild.value(args) + 7));
        PassRegistry caller = open(1);
        AtomicBuffer raw = RawBody.of(file());
        int s = slot(entry(0, 1, 64), 0, 64);
        Thread test = Thread.currentThread();
        AtomicInteger freed = new AtomicInteger();
        try (var reclaimer =
                Interleaving.install(
                        p -> {
                            if (p == Point.PASS_REQUEST_WRITTEN
                                    && Thread.currentThread() == test
                                    && freed.get() == 0) {
                                long word = raw.getLongVolatile(s + STATE_WORD_OFFSET);
                                assertThat(state(word)).isEqualTo(STATE_CLAIMED);
                                raw.compareAndSetLong(
                                        s + STATE_WORD_OFFSET, word, withState(word, STATE_FREE));
                                freed.incrementAndGet();
                            }
                        })) {
            byte[] answer = caller.execute(7, PassChild.bytes(2), Duration.ofSeconds(5));
            assertThat(PassChild.value(answer)).isEqualTo(9);
        }
        assertThat(freed).hasValue(1);
        long word = raw.getLongVolatile(s + STATE_WORD_OFFSET);
        assertThat(word)
                .as("claimed twice, freed by the answered call")
                .isEqualTo(packState(STATE_FREE, 2, SELF));
    }

    /**
     * An async call keeps the one slot it claimed: the completer does not claim another for it on
     * each of its rounds, and the slot is free once the future has its answer.
     */
    @Test
    void anAsyncCallHoldsOneSlotAndFreesItWhenAnswered() throws Exception {
        PassRegistry owner = open(4);
        CountDownLatch started = new CountDownLatch(1);
        owner.register(
                7,
                args -> {
                    started.countDown();
                    release.await();
                    return PassChild.bytes(PassChild.value(args) + 7);
                });
        PassRegistry caller = open(4);

        CompletableFuture<byte[]> call = caller.executeAsync(7, PassChild.bytes(3), LONG);
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(busy(caller)).isEqualTo(1);
        release.countDown();

        assertThat(PassChild.value(call.get(30, TimeUnit.SECONDS))).isEqualTo(10);
        assertThat(busy(caller)).isZero();
    }

    /** Slot 0 of entry 0 claimed by this process for an earlier call: alive, never reclaimed. */
    private static void occupyTheOnlySlot(AtomicBuffer raw) {
        int s = slot(entry(0, 1, 64), 0, 64);
        raw.setLongVolatile(
                s + CALLER_IDENTITY_OFFSET, callerIdentity(5, OwnerRecord.startTimeOf(SELF)));
        raw.setLongVolatile(s + STATE_WORD_OFFSET, packState(STATE_CLAIMED, 5, SELF));
    }

    @Test
    void aCallWaitingForASlotFailsAtOnceWhenItsOwnerIsFoundDead() {
        PassRegistry caller = open(1, QUICK_CHECKS);
        AtomicBuffer raw = RawBody.of(file());
        bind(raw, entry(0, 1, 64), 7, DEAD_PID, 3);
        occupyTheOnlySlot(raw);

        assertThatThrownBy(() -> caller.execute(7, PassChild.bytes(1), Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(
                        PassOwnerDiedException.class,
                        e -> assertThat(e.ownerPid()).isEqualTo(DEAD_PID))
                .hasMessageContaining("PID " + DEAD_PID + ", died while the call was pending")
                .hasMessageNotContaining("its handler had started");
        assertThat(busy(caller)).as("the live claim is kept").isEqualTo(1);
    }

    @Test
    void aCallWaitingForASlotFailsWhenItsOwnerUnregisters() {
        PassRegistry caller = open(1, QUICK_CHECKS);
        AtomicBuffer raw = RawBody.of(file());
        int e = entry(0, 1, 64);
        bind(raw, e, 7, 1, 3);
        occupyTheOnlySlot(raw);

        CompletableFuture<byte[]> call =
                caller.executeAsync(7, PassChild.bytes(1), Duration.ofSeconds(5));
        assertThat(call).isNotDone();
        raw.setLongVolatile(
                e + OWNER_RECORD_OFFSET + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.freed(OwnerRecord.ownerWord(1, 3)));

        assertThat(call)
                .failsWithin(LONG)
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(PassOwnerDiedException.class)
                .withMessageContaining(
                        "was unregistered by its owner, PID 1 before it took the call");
    }

    /** A caller that finds the only slot busy waits, and claims it under the next generation. */
    @Test
    void aCallerWaitsForABusySlotAndTakesItOnceFreed() {
        PassRegistry owner = open(1);
        owner.register(7, args -> PassChild.bytes(PassChild.value(args) + 7));
        PassRegistry caller = open(1, QUICK_CHECKS);
        AtomicBuffer raw = RawBody.of(file());
        occupyTheOnlySlot(raw);
        int s = slot(entry(0, 1, 64), 0, 64);

        CompletableFuture<byte[]> call = caller.executeAsync(7, PassChild.bytes(5), LONG);
        assertThat(call).isNotDone();
        raw.setLongVolatile(s + STATE_WORD_OFFSET, packState(STATE_FREE, 5, SELF));

        assertThat(PassChild.value(call.join())).isEqualTo(12);
        soon(LONG).until(() -> busy(caller) == 0);
        assertThat(generation(raw.getLongVolatile(s + STATE_WORD_OFFSET))).isEqualTo(6);
    }

    /** Awaitility polling every millisecond from the start (its default waits 100 ms first). */
    private static org.awaitility.core.ConditionFactory soon(Duration atMost) {
        return await().atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
    }
}
