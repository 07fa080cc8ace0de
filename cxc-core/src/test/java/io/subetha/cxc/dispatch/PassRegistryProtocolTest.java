package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The call protocol's steps, word by word: what a claim writes into its slot before it publishes
 * the request (the fields other processes judge it by, the wake token of a caller that blocks at
 * once), a claim or a publication that loses its CAS, a caller waiting for a free slot, an async
 * call's slot, how a pending call ends when its entry or its slot moves on (taken over, rebound,
 * claimed by another caller), a request addressed to an owner word the dispatcher no longer holds,
 * and the handler's odd outcomes. Owners that never serve are planted as PID 1 (alive, and never a
 * dispatcher of this file), so a slot can be read while its call is pending.
 */
class PassRegistryProtocolTest extends PassRegistryFixture {

    @Test
    void aPublishedRequestCarriesItsCallerIdentityAddressedOwnerAndArgumentsInItsSlot() {
        PassRegistry caller = open(1, 1, 64);
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
        assertThat(raw.getLongVolatile(s + CALLER_WAITER_OFFSET)).as("an async call's").isZero();
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
                                token.set(raw.getLongVolatile(s + CALLER_WAITER_OFFSET));
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
        PassRegistry owner = open(1, 1, 64);
        owner.register(7, args -> PassChild.bytes(PassChild.value(args) + 7));
        Duration ms = Duration.ofMillis(1);
        PassRegistry caller =
                open(1, 1, 64, new PassWaiting(Duration.ZERO, Duration.ZERO, ms, HOUR));
        assertThat(tokenWithTheRequest(caller, false)).as("blocks at once").isNotZero();
        assertThat(tokenWithTheRequest(caller, true)).as("async, blocks at once").isZero();
        assertThat(busy(caller)).isZero();
        PassRegistry yielding = open(1, 1, 64, new PassWaiting(Duration.ZERO, ms, ms, HOUR));
        assertThat(tokenWithTheRequest(yielding, false)).as("yields first").isZero();
        assertThat(busy(yielding)).isZero();
        PassRegistry spinning = open(1, 1, 64, new PassWaiting(ms, Duration.ZERO, ms, HOUR));
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
        PassRegistry owner = open(1, 1, 64);
        owner.register(7, args -> PassChild.bytes(PassChild.value(args) + 7));
        PassRegistry caller = open(1, 1, 64);
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
        PassRegistry owner = open(1, 4, 64);
        CountDownLatch started = new CountDownLatch(1);
        owner.register(
                7,
                args -> {
                    started.countDown();
                    release.await();
                    return PassChild.bytes(PassChild.value(args) + 7);
                });
        PassRegistry caller = open(1, 4, 64);

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
        PassRegistry caller = open(1, 1, 64, QUICK_CHECKS);
        AtomicBuffer raw = RawBody.of(file());
        bind(raw, entry(0, 1, 64), 7, DEAD_PID, 3);
        occupyTheOnlySlot(raw);

        assertThatThrownBy(() -> caller.execute(7, PassChild.bytes(1), Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(
                        PassOwnerDiedException.class,
                        e -> assertThat(e.ownerPid()).isEqualTo(DEAD_PID))
                .hasMessageContaining("PID " + DEAD_PID + ", died before the call was answered")
                .hasMessageContaining("the call may be retried")
                .hasMessageNotContaining("its handler had started");
        assertThat(busy(caller)).as("the live claim is kept").isEqualTo(1);
    }

    @Test
    void aCallWaitingForASlotFailsWhenItsOwnerUnregisters() {
        PassRegistry caller = open(1, 1, 64, QUICK_CHECKS);
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
        PassRegistry owner = open(1, 1, 64);
        owner.register(7, args -> PassChild.bytes(PassChild.value(args) + 7));
        PassRegistry caller = open(1, 1, 64, QUICK_CHECKS);
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

    @Test
    void aCallerWhoseClaimLosesWritesNothingIntoTheWinnersSlot() {
        PassRegistry loser = open(1, 1, 64);
        PassRegistry winner = open(1, 1, 64);
        AtomicBuffer raw = RawBody.of(file());
        bind(raw, entry(0, 1, 64), 7, 1, 3); // PID 1: alive, never serves
        int s = slot(entry(0, 1, 64), 0, 64);
        CompletableFuture<byte[]> won;

        try (StepGate<byte[]> held =
                StepGate.holdAt(
                        Point.PASS_SLOT_JUDGED,
                        () -> loser.execute(7, new byte[] {9, 9, 9, 9}, Duration.ofMillis(200)))) {
            won = winner.executeAsync(7, new byte[] {1, 2}, LONG);
            long request = raw.getLongVolatile(s + STATE_WORD_OFFSET);
            assertThat(request).isEqualTo(packState(STATE_REQUEST, 1, Pids.current()));

            assertThatThrownBy(held::release)
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("all 1 mailbox slots (mailboxSlots) of pass 7");

            assertThat(raw.getLongVolatile(s + STATE_WORD_OFFSET)).isEqualTo(request);
        }
        assertThat(raw.getIntVolatile(s + LENGTH_OFFSET)).isEqualTo(2);
        byte[] payload = new byte[4];
        raw.getBytes(s + SLOT_HEADER_LENGTH, payload);
        assertThat(payload).containsExactly(1, 2, 0, 0);
        assertThat(won).isNotDone();
    }

    /** Pending to PID 1 (alive, never serves); then the entry's owner word is rewritten. */
    private CompletableFuture<byte[]> pendingThenRebound(long newOwner, long newKey, long newId) {
        PassRegistry caller = open(1, 1, 64, checksEvery(Duration.ofMillis(200)));
        AtomicBuffer raw = RawBody.of(file());
        int e = entry(0, 1, 64);
        bind(raw, e, 7, 1, 3);
        CompletableFuture<byte[]> call = caller.executeAsync(7, new byte[1], LONG);
        assertThat(call).isNotDone();
        raw.setLongVolatile(
                e + OWNER_RECORD_OFFSET + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(newOwner, newKey));
        raw.setLongVolatile(e + PASS_ID_OFFSET, newId);
        raw.setLongVolatile(e + BOUND_KEY_OFFSET, newKey);
        return call;
    }

    @Test
    void aPassTakenOverBeforeItsRequestRanFailsTheCallNamingBothOwners() {
        CompletableFuture<byte[]> call = pendingThenRebound(SELF, 4, 7);

        assertThat(call)
                .failsWithin(LONG)
                .withThrowableThat()
                .havingCause()
                .isInstanceOfSatisfying(
                        PassOwnerDiedException.class, e -> assertThat(e.ownerPid()).isEqualTo(1))
                .withMessageContaining(
                        "pass 7 of "
                                + file()
                                + " was taken over from PID 1 by PID "
                                + SELF
                                + " before it took the call");
    }

    @Test
    void anEntryReboundToAnotherIdBeforeTheRequestRanFailsTheCallAsUnregistered() {
        CompletableFuture<byte[]> call = pendingThenRebound(SELF, 4, 8);

        assertThat(call)
                .failsWithin(LONG)
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(PassOwnerDiedException.class)
                .withMessageContaining(
                        "was unregistered by its owner, PID 1 before it took the call");
    }

    /**
     * The pending call's slot was reclaimed and claimed by another caller (a new generation): the
     * call fails at its next look as reclaimed, and leaves the other caller's claim alone.
     */
    @Test
    void aCallWhoseSlotIsClaimedByAnotherCallerFailsAsReclaimed() {
        PassRegistry caller = open(1, 1, 64, checksEvery(HOUR));
        AtomicBuffer raw = RawBody.of(file());
        bind(raw, entry(0, 1, 64), 7, 1, 3);
        int s = slot(entry(0, 1, 64), 0, 64);

        CompletableFuture<byte[]> call = caller.executeAsync(7, new byte[1], Duration.ofSeconds(5));
        long request = raw.getLongVolatile(s + STATE_WORD_OFFSET);
        long other = packState(STATE_REQUEST, generation(request) + 1, 1);
        raw.setLongVolatile(s + STATE_WORD_OFFSET, other);

        assertThat(call)
                .failsWithin(LONG)
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(PassOwnerDiedException.class)
                .withMessageContaining("was reclaimed: its owner, PID 1, was judged dead");
        assertThat(raw.getLongVolatile(s + STATE_WORD_OFFSET)).isEqualTo(other);
    }

    /**
     * A request addressed to an owner word the entry no longer has (sent to the pass's previous
     * owner, whose caller is told it died) is never run by the new owner's dispatcher, which serves
     * the other slot's request.
     */
    @Test
    void aRequestAddressedToAnotherOwnerWordIsNeverServed() {
        PassRegistry owner = open(1, 2, 64);
        owner.register(7, args -> PassChild.bytes(PassChild.value(args) + 7));
        AtomicBuffer raw = RawBody.of(file());
        int e = entry(0, 2, 64);
        long current = OwnerRecord.ownerWord(raw, e + OWNER_RECORD_OFFSET);
        int foreign = slot(e, 0, 64);
        raw.setLongVolatile(
                foreign + ADDRESSED_OWNER_OFFSET,
                OwnerRecord.ownerWord(SELF, OwnerRecord.key(current) - 1));
        raw.setIntVolatile(foreign + LENGTH_OFFSET, 0);
        long request = packState(STATE_REQUEST, 9, 1);
        raw.setLongVolatile(foreign + STATE_WORD_OFFSET, request);
        PassRegistry caller = open(1, 2, 64);

        assertThat(PassChild.value(caller.execute(7, PassChild.bytes(1), LONG))).isEqualTo(8);

        assertThat(raw.getLongVolatile(foreign + STATE_WORD_OFFSET)).isEqualTo(request);
        assertThat(passes(caller).get(0)).containsEntry("calls", 1L);
    }

    @Test
    void aHandlersNullResultIsEmptyAndItsFailureIsCutToThePayloadLimit() {
        PassRegistry owner = open(4, 1, 64);
        owner.register(1, args -> null);
        owner.register(
                2,
                args -> {
                    throw new IllegalStateException();
                });
        String longMessage = "x".repeat(100);
        owner.register(
                3,
                args -> {
                    throw new IllegalStateException(longMessage);
                });
        owner.register(4, args -> new byte[64]);
        PassRegistry caller = open(4, 1, 64);
        assertThat(caller.execute(1, new byte[2], LONG)).isEmpty();
        assertThatThrownBy(() -> caller.execute(2, new byte[0], LONG))
                .isInstanceOfSatisfying(
                        PassFailedException.class,
                        e -> {
                            assertThat(e.handlerException())
                                    .isEqualTo("java.lang.IllegalStateException");
                            assertThat(e.handlerMessage()).isEmpty();
                            assertThat(e.ownerPid()).isEqualTo(Pids.current());
                            assertThat(e.passId()).isEqualTo(2);
                        })
                .hasMessage(
                        "pass 2 failed in its owner, PID "
                                + Pids.current()
                                + ": java.lang.IllegalStateException");
        String type = "java.lang.IllegalStateException";
        assertThatThrownBy(() -> caller.execute(3, new byte[0], LONG))
                .isInstanceOfSatisfying(
                        PassFailedException.class,
                        e ->
                                assertThat(e.handlerMessage())
                                        .isEqualTo("x".repeat(64 - type.length() - 1)));
        assertThat(caller.execute(4, new byte[64], LONG)).hasSize(64); // exactly the limit
    }
}
