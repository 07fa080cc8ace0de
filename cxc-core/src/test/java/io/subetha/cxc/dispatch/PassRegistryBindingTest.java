package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Which process serves which pass id: binding ids to entries under the binder record (the first
 * reusable entry, a dead owner's id taken over in place, a binder record a live process holds
 * waited for), entries reused after unregistering without a caller ever seeing half of one, an id a
 * live process elsewhere owns refused and a dead one's taken over, and what a handle keeps of its
 * bindings (one wake socket for all its passes, a cached entry that is only a hint, a pass taken
 * from it dropped, each op counted once, all freed at close).
 */
class PassRegistryBindingTest extends PassRegistryFixture {

    private static long ownerWord(AtomicBuffer raw, int entryOffset) {
        return OwnerRecord.ownerWord(raw, entryOffset + OWNER_RECORD_OFFSET);
    }

    @Test
    void aNewIdIsBoundToTheFirstReusableEntry() {
        PassRegistry owner = open(3, 1, 64);
        AtomicBuffer raw = RawBody.of(file());

        owner.register(5, args -> args);
        owner.register(6, args -> args);

        assertThat(raw.getLongVolatile(entry(0, 1, 64) + PASS_ID_OFFSET)).isEqualTo(5);
        assertThat(raw.getLongVolatile(entry(1, 1, 64) + PASS_ID_OFFSET)).isEqualTo(6);
        assertThat(ownerWord(raw, entry(2, 1, 64))).isZero();
        owner.unregister(5);
        owner.register(7, args -> args);
        assertThat(raw.getLongVolatile(entry(0, 1, 64) + PASS_ID_OFFSET)).isEqualTo(7);
        assertThat(ownerWord(raw, entry(2, 1, 64))).isZero();
    }

    @Test
    void aDeadOwnersIdInTheFirstEntryIsTakenOverInPlaceKeepingItsCount() {
        PassRegistry owner = open(2, 1, 64);
        AtomicBuffer raw = RawBody.of(file());
        int first = entry(0, 1, 64);
        bind(raw, first, 9, DEAD_PID, 4);
        raw.setLongVolatile(first + CALLS_OFFSET, 5);

        owner.register(9, args -> PassChild.bytes(PassChild.value(args) + 9));

        assertThat(ownerWord(raw, first)).isEqualTo(OwnerRecord.ownerWord(SELF, 5));
        assertThat(raw.getLongVolatile(first + CALLS_OFFSET)).isEqualTo(5);
        assertThat(ownerWord(raw, entry(1, 1, 64))).isZero();
        assertThat(PassChild.value(open(2, 1, 64).execute(9, PassChild.bytes(1), LONG)))
                .isEqualTo(10);
        assertThat(raw.getLongVolatile(first + CALLS_OFFSET)).isEqualTo(6);
    }

    /**
     * The binder record held by a live process (PID 1, planted): register waits in its back-off,
     * binding nothing, until the record is released; then it binds and releases the record under
     * the next generation.
     */
    @Test
    void aBinderRecordHeldByALiveProcessIsWaitedForUntilReleased() {
        PassRegistry owner = open(1, 1, 64);
        AtomicBuffer raw = RawBody.of(file());
        int binder = BINDER_OFFSET + OwnerRecord.OWNER_WORD_OFFSET;
        raw.setLongVolatile(binder, OwnerRecord.ownerWord(1, 6));
        Thread[] registering = new Thread[1];
        CompletableFuture<Void> register =
                CompletableFuture.runAsync(
                        () -> {
                            registering[0] = Thread.currentThread();
                            owner.register(3, args -> args);
                        });
        soon(LONG)
                .until(
                        () ->
                                registering[0] != null
                                        && Arrays.stream(registering[0].getStackTrace())
                                                .anyMatch(
                                                        f -> f.getMethodName().equals("lockBinder"))
                                        && registering[0].getState() == Thread.State.TIMED_WAITING);
        assertThat(register).isNotDone();
        assertThat(ownerWord(raw, entry(0, 1, 64))).isZero();

        raw.setLongVolatile(binder, OwnerRecord.freed(OwnerRecord.ownerWord(1, 6)));

        assertThat(register).succeedsWithin(LONG);
        assertThat(raw.getLongVolatile(binder)).isEqualTo(OwnerRecord.ownerWord(0, 7));
        assertThat(owner.isRegistered(3)).isTrue();
    }

    /**
     * Another process takes pass 7 over from this handle (its owner word rewritten, as a process
     * that judged this one dead would): the blocked dispatcher is woken by the ticker, drops the
     * pass, and serves the other one still.
     */
    @Test
    void aPassTakenFromThisHandleLeavesItsRegistrations() {
        PassRegistry owner =
                open(
                        2,
                        1,
                        64,
                        new PassWaiting(
                                Duration.ZERO,
                                Duration.ZERO,
                                Duration.ofMillis(5),
                                Duration.ofHours(1)));
        owner.register(7, args -> args);
        owner.register(8, args -> PassChild.bytes(PassChild.value(args) + 8));
        AtomicBuffer raw = RawBody.of(file());
        int taken = entry(0, 1, 64);
        assertThat(raw.getLongVolatile(taken + PASS_ID_OFFSET)).isEqualTo(7);
        long word = ownerWord(raw, taken);
        long theirs = OwnerRecord.ownerWord(1, OwnerRecord.nextGeneration(word));
        raw.setLongVolatile(taken + OWNER_RECORD_OFFSET + OwnerRecord.OWNER_WORD_OFFSET, theirs);
        raw.setLongVolatile(taken + BOUND_KEY_OFFSET, OwnerRecord.key(theirs));

        soon(LONG).until(() -> owner.registeredHere().equals(List.of(8L)));

        assertThat(PassChild.value(open(2, 1, 64).execute(8, PassChild.bytes(1), LONG)))
                .isEqualTo(9);
        assertThat(ownerWord(raw, taken)).isEqualTo(theirs);
    }

    @Test
    void eachOpIsCountedOnceByTheHandleThatMadeIt() {
        PassRegistry owner = open(2, 1, 64);
        PassRegistry caller = open(2, 1, 64);
        owner.register(1, args -> args);
        owner.register(2, args -> args);
        owner.unregister(2);
        for (int i = 0; i < 3; i++) {
            caller.execute(1, new byte[1], LONG);
        }
        assertThat(caller.isRegistered(1)).isTrue();
        assertThat(caller.registeredCount()).isEqualTo(1);

        assertThat(owner.opCounters().get(PassRegistry.Op.REGISTER)).isEqualTo(2);
        assertThat(owner.opCounters().get(PassRegistry.Op.UNREGISTER)).isEqualTo(1);
        assertThat(owner.opCounters().get(PassRegistry.Op.SERVE)).isEqualTo(3);
        assertThat(owner.opCounters().get(PassRegistry.Op.EXECUTE)).isZero();
        assertThat(caller.opCounters().get(PassRegistry.Op.EXECUTE)).isEqualTo(3);
        assertThat(caller.opCounters().get(PassRegistry.Op.READ)).isEqualTo(2);
        assertThat(caller.opCounters().get(PassRegistry.Op.SERVE)).isZero();
    }

    @Test
    void closingAHandleForgetsItsRegistrationsAndFreesTheirEntries() {
        PassRegistry owner = open(2, 1, 64);
        owner.register(1, args -> args);
        owner.register(2, args -> args);
        AtomicBuffer raw = RawBody.of(file());

        owner.close();

        assertThat(owner.registeredHere()).isEmpty();
        assertThat(OwnerRecord.pid(ownerWord(raw, entry(0, 1, 64)))).isZero();
        assertThat(OwnerRecord.pid(ownerWord(raw, entry(1, 1, 64)))).isZero();
        assertThatThrownBy(() -> owner.unregister(1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void everyPassOfAHandleNamesItsOneWakeSocketAndACallToEachWakesItsDispatcher() {
        PassWaiting blockAtOnce = new PassWaiting(Duration.ZERO, Duration.ZERO, HOUR, HOUR);
        PassRegistry owner = open(3, 1, 64, blockAtOnce);
        owner.register(1, args -> PassChild.bytes(PassChild.value(args) + 1));
        owner.register(2, args -> PassChild.bytes(PassChild.value(args) + 2));
        PassRegistry caller = open(3, 1, 64, blockAtOnce);
        AtomicBuffer raw = RawBody.of(file());
        long first = raw.getLongVolatile(entry(0, 1, 64) + WAKE_ADDRESS_OFFSET);

        assertThat(first).isNotZero();
        assertThat(raw.getLongVolatile(entry(1, 1, 64) + WAKE_ADDRESS_OFFSET)).isEqualTo(first);
        assertThat(owner.describe().get("wakeSocket"))
                .isEqualTo(
                        String.valueOf(WakeServer.socketOf(WakeServer.directory(file()), first)));
        assertThat(caller.describe()).containsEntry("wakeSocket", "none");
        // Every wait of both sides is an hour: only the pokes through that socket serve these.
        assertTimeoutPreemptively(
                LIMIT,
                () -> {
                    for (int i = 0; i < 20; i++) {
                        long pass = 1 + i % 2;
                        assertThat(PassChild.value(caller.execute(pass, PassChild.bytes(i), HOUR)))
                                .isEqualTo(i + pass);
                    }
                });
    }

    /**
     * The caller last found id 5 in entry 0; it is re-registered into entry 1 meanwhile (entry 0
     * now serves id 6): the caller's next call finds it there.
     */
    @Test
    void aCallFindsAnIdThatMovedToAnotherEntrySinceItsLastCall() {
        PassRegistry owner = open(3, 1, 64, PassWaiting.DEFAULT);
        PassRegistry caller = open(3, 1, 64, PassWaiting.DEFAULT);
        owner.register(5, args -> new byte[] {5});
        assertThat(caller.execute(5, new byte[0], LIMIT)).containsExactly(5);
        owner.unregister(5);
        owner.register(6, args -> new byte[] {6});
        owner.register(5, args -> new byte[] {55});
        AtomicBuffer raw = RawBody.of(file());
        assertThat(raw.getLongVolatile(entry(0, 1, 64) + PASS_ID_OFFSET)).isEqualTo(6);
        assertThat(raw.getLongVolatile(entry(1, 1, 64) + PASS_ID_OFFSET)).isEqualTo(5);

        assertThat(caller.execute(5, new byte[0], LIMIT)).containsExactly(55);
        assertThat(caller.isRegistered(5)).isTrue();
        assertThat(caller.execute(6, new byte[0], LIMIT)).containsExactly(6);
    }

    @Test
    void registeringAndUnregisteringMoreIdsThanMaxPassesReusesTheEntries() {
        PassRegistry owner = open(2, 2, 64);
        PassRegistry caller = open(2, 2, 64);
        owner.register(1, args -> PassChild.bytes(PassChild.value(args) + 1));

        for (long id = 100; id < 100 + 50; id++) {
            long bump = id;
            owner.register(id, args -> PassChild.bytes(PassChild.value(args) + bump));
            assertThat(PassChild.value(caller.execute(id, PassChild.bytes(7), LONG)))
                    .isEqualTo(7 + id);
            assertThat(PassChild.value(caller.execute(1, PassChild.bytes(7), LONG))).isEqualTo(8);
            owner.unregister(id);
            assertThat(caller.isRegistered(id)).isFalse();
        }
        // The last id still names its entry as unregistered; the earlier ones are gone.
        assertThatThrownBy(() -> caller.execute(149, PassChild.bytes(1), LONG))
                .isInstanceOf(PassNotRegisteredException.class)
                .hasMessageContaining("its last owner unregistered it");
        assertThatThrownBy(() -> caller.execute(100, PassChild.bytes(1), LONG))
                .isInstanceOf(PassNotRegisteredException.class)
                .hasMessageContaining("not registered by any process");
        assertThat(caller.registeredCount()).isEqualTo(1);

        // Both entries live: the next id is a capacity error naming the limit.
        owner.register(200, args -> args);
        assertThatThrownBy(() -> owner.register(201, args -> args))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("all 2 pass entries (maxPasses)");
        assertThat(caller.registeredCount()).isEqualTo(2);
    }

    @Test
    void anEntryBeingReusedShowsNeitherItsOldNorItsNewId() {
        PassRegistry owner = open(1, 1, 64);
        PassRegistry caller = open(1, 1, 64);
        owner.register(5, args -> args);
        assertThat(caller.execute(5, PassChild.bytes(3), LONG)).isEqualTo(PassChild.bytes(3));
        owner.unregister(5);

        try (StepGate<Void> held =
                StepGate.holdAt(
                        Point.PASS_ENTRY_CLAIMED,
                        () -> {
                            owner.register(9, args -> PassChild.bytes(99));
                            return null;
                        })) {
            // Owner word claimed, id not yet rewritten: the entry names no id at all.
            assertThat(caller.isRegistered(5)).isFalse();
            assertThat(caller.isRegistered(9)).isFalse();
            assertThatThrownBy(() -> caller.execute(5, PassChild.bytes(1), LONG))
                    .isInstanceOf(PassNotRegisteredException.class);
            assertThat(passes(caller)).isEmpty();
            held.release();
        }
        assertThat(caller.execute(9, PassChild.bytes(1), LONG)).isEqualTo(PassChild.bytes(99));
        assertThat(caller.isRegistered(5)).isFalse();
        assertThat(passes(caller)).hasSize(1);
        assertThat(passes(caller).get(0)).containsEntry("passId", 9L).containsEntry("calls", 1L);
    }

    @Test
    void anIdBoundToALiveProcessElsewhereIsOwnedAndOneBoundToADeadOneIsTakenOver() {
        PassRegistry owner = open(2, 1, 64);
        AtomicBuffer raw = RawBody.of(file());
        // Init never dies: a live owner in another process.
        bind(raw, entry(0, 1, 64), 7, 1, 3);
        assertThat(owner.isRegistered(7)).isTrue();
        assertThat(owner.registeredCount()).isEqualTo(1);
        assertThatThrownBy(() -> owner.register(7, args -> args))
                .isInstanceOfSatisfying(
                        PassOwnedException.class,
                        e -> {
                            assertThat(e.ownerPid()).isEqualTo(1);
                            assertThat(e.passId()).isEqualTo(7);
                        })
                .hasMessageContaining(
                        "is registered by live process PID 1; it is freed when that process"
                                + " unregisters it, closes its registry or dies");

        // Bound to a dead process, with calls served: taken over in place, its count kept.
        int second = entry(1, 1, 64);
        bind(raw, second, 8, DEAD_PID, 4);
        raw.setLongVolatile(second + CALLS_OFFSET, 5);
        assertThat(owner.isRegistered(8)).isFalse();
        assertThat(owner.registeredCount()).isEqualTo(1);
        owner.register(8, args -> PassChild.bytes(PassChild.value(args) + 1));
        assertThat(OwnerRecord.ownerWord(raw, second + OWNER_RECORD_OFFSET))
                .isEqualTo(OwnerRecord.ownerWord(Pids.current(), 5));
        assertThat(raw.getLongVolatile(second + BOUND_KEY_OFFSET)).isEqualTo(5);
        PassRegistry caller = open(2, 1, 64);
        assertThat(PassChild.value(caller.execute(8, PassChild.bytes(1), LONG))).isEqualTo(2);
        assertThat(passes(caller))
                .anySatisfy(
                        p -> assertThat(p).containsEntry("passId", 8L).containsEntry("calls", 6L))
                .anySatisfy(
                        p ->
                                assertThat(p)
                                        .containsEntry("passId", 7L)
                                        .containsEntry("ownerPid", 1L));
        assertThat(caller.registeredCount()).isEqualTo(2);
        assertThat(owner.registeredHere()).containsExactly(8L);
    }
}
