package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassPlantedStatesTest.DEAD_PID;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.bind;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.entry;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Binding ids to entries under the binder record, and what a handle keeps of them: the first
 * reusable entry is the one bound, a dead owner's id is taken over in place (entry 0 included), a
 * binder record a live process holds is waited for, a pass taken from this handle leaves its
 * registrations, and each op is counted once.
 */
class PassBindingTest {

    private static final Duration LONG = Duration.ofSeconds(30);
    private static final long SELF = Pids.current();

    @TempDir Path dir;
    private final List<PassRegistry> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(PassRegistry::close);
    }

    private Path file() {
        return dir.resolve("calls.passes");
    }

    private PassRegistry open(int maxPasses) {
        return open(maxPasses, PassWaiting.DEFAULT);
    }

    private PassRegistry open(int maxPasses, PassWaiting waiting) {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        file(), new PassRegistry.Settings(maxPasses, 1, 64).withWaiting(waiting));
        opened.add(registry);
        return registry;
    }

    private static long ownerWord(AtomicBuffer raw, int entryOffset) {
        return OwnerRecord.ownerWord(raw, entryOffset + OWNER_RECORD_OFFSET);
    }

    @Test
    void aNewIdIsBoundToTheFirstReusableEntry() {
        PassRegistry owner = open(3);
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
        PassRegistry owner = open(2);
        AtomicBuffer raw = RawBody.of(file());
        int first = entry(0, 1, 64);
        bind(raw, first, 9, DEAD_PID, 4);
        raw.setLongVolatile(first + CALLS_OFFSET, 5);

        owner.register(9, args -> PassChild.bytes(PassChild.value(args) + 9));

        assertThat(ownerWord(raw, first)).isEqualTo(OwnerRecord.ownerWord(SELF, 5));
        assertThat(raw.getLongVolatile(first + CALLS_OFFSET)).isEqualTo(5);
        assertThat(ownerWord(raw, entry(1, 1, 64))).isZero();
        assertThat(PassChild.value(open(2).execute(9, PassChild.bytes(1), LONG))).isEqualTo(10);
        assertThat(raw.getLongVolatile(first + CALLS_OFFSET)).isEqualTo(6);
    }

    /**
     * The binder record held by a live process (PID 1, planted): register waits in its back-off,
     * binding nothing, until the record is released; then it binds and releases the record under
     * the next generation.
     */
    @Test
    void aBinderRecordHeldByALiveProcessIsWaitedForUntilReleased() {
        PassRegistry owner = open(1);
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

        assertThat(PassChild.value(open(2).execute(8, PassChild.bytes(1), LONG))).isEqualTo(9);
        assertThat(ownerWord(raw, taken)).isEqualTo(theirs);
    }

    @Test
    void eachOpIsCountedOnceByTheHandleThatMadeIt() {
        PassRegistry owner = open(2);
        PassRegistry caller = open(2);
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
        PassRegistry owner = open(2);
        owner.register(1, args -> args);
        owner.register(2, args -> args);
        AtomicBuffer raw = RawBody.of(file());

        owner.close();

        assertThat(owner.registeredHere()).isEmpty();
        assertThat(OwnerRecord.pid(ownerWord(raw, entry(0, 1, 64)))).isZero();
        assertThat(OwnerRecord.pid(ownerWord(raw, entry(1, 1, 64)))).isZero();
        assertThatThrownBy(() -> owner.unregister(1)).isInstanceOf(IllegalStateException.class);
    }

    /** Awaitility polling every millisecond from the start (its default waits 100 ms first). */
    private static org.awaitility.core.ConditionFactory soon(Duration atMost) {
        return await().atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
    }
}
