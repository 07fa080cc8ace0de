package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassChild.bytes;
import static io.subetha.cxc.dispatch.PassChild.twice;
import static io.subetha.cxc.dispatch.PassChild.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real JVMs on one registry file: an owner in one process, callers in others; owners and callers
 * killed with SIGKILL in the middle of calls.
 */
class PassRegistryProcessTest {

    /** Calls per caller process in the two-caller test; 10,000 by default. */
    private static final int CALLS = Integer.getInteger("cxc.dispatch.calls", 10_000);

    /** Owner kills at random points of a hot call loop, and caller kills likewise. */
    private static final int KILLS = Integer.getInteger("cxc.dispatch.kills", 3);

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration LONG = Duration.ofSeconds(60);

    @TempDir Path dir;

    private final ChildJvmGroup children = new ChildJvmGroup();
    private final List<PassRegistry> opened = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        children.close();
        opened.forEach(PassRegistry::close);
    }

    private Path file() {
        return dir.resolve("calls.passes");
    }

    private ChildJvm start(String name, int slots) {
        ChildJvm child = children.add(ChildJvm.start(name, PassChild.class));
        assertThat(child.ask("open " + file() + " 8 " + slots + " 64")).isEqualTo("ok");
        return child;
    }

    private PassRegistry here(int slots) {
        PassRegistry registry =
                PassRegistry.openOrCreate(file(), new PassRegistry.Settings(8, slots, 64));
        opened.add(registry);
        return registry;
    }

    @Test
    void twoCallerProcessesGetExactlyTheirOwnResultsFromAThird() {
        ChildJvm owner = start("owner", 8);
        assertThat(owner.ask("register 1 twice")).isEqualTo("ok");
        ChildJvm b = start("caller-b", 8);
        ChildJvm c = start("caller-c", 8);

        b.send("call 1 " + CALLS);
        c.send("call 1 " + CALLS);

        assertThat(b.readLine(Duration.ofMinutes(3))).isEqualTo("done " + CALLS);
        assertThat(c.readLine(Duration.ofMinutes(3))).isEqualTo("done " + CALLS);
        PassRegistry observer = here(8);
        assertThat(observer.describe()).containsEntry("busySlots", 0);
        assertThat(observer.describe().get("passes").toString())
                .contains("calls=" + (2L * CALLS))
                .contains("ownerPid=" + owner.pid());
    }

    @Test
    void registeringAnIdALiveProcessOwnsNamesThatProcess() {
        ChildJvm owner = start("owner", 2);
        assertThat(owner.ask("register 1 twice")).isEqualTo("ok");
        PassRegistry registry = here(2);

        assertThatThrownBy(() -> registry.register(1, args -> args))
                .isInstanceOfSatisfying(
                        PassOwnedException.class,
                        e -> assertThat(e.ownerPid()).isEqualTo(owner.pid()))
                .hasMessageContaining("live process PID " + owner.pid());
        assertThat(registry.isRegistered(1)).isTrue();
        assertThat(registry.registeredCount()).isEqualTo(1);
    }

    @Test
    void ownerKilledMidCallFailsTheCallNamingItsPidAndARestartedOwnerServesAgain()
            throws Exception {
        ChildJvm owner = start("owner", 2);
        assertThat(owner.ask("register 2 gate")).isEqualTo("ok");
        PassRegistry caller = here(2);
        CompletableFuture<byte[]> call = caller.executeAsync(2, bytes(0), LONG);
        assertThat(owner.readLine(WAIT)).isEqualTo("running 0");

        owner.kill();

        assertThatThrownBy(() -> call.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        PassOwnerDiedException.class,
                        e -> assertThat(e.ownerPid()).isEqualTo(owner.pid()))
                .hasMessageContaining("PID " + owner.pid() + ", died")
                .hasMessageContaining("its handler had started");
        assertThat(caller.isRegistered(2)).isFalse();

        ChildJvm restarted = start("owner-again", 2);
        assertThat(restarted.ask("register 2 gate")).isEqualTo("ok");
        for (long i = 1; i <= 5; i++) {
            assertThat(value(caller.execute(2, bytes(i), LONG))).isEqualTo(i);
        }
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }

    @Test
    void callToAnOwnerKilledBeforeItTookTheRequestFailsNamingItsPid() throws Exception {
        ChildJvm owner = start("owner", 2);
        assertThat(owner.ask("register 2 gate")).isEqualTo("ok");
        PassRegistry caller = here(2);
        owner.suspend(); // alive but frozen: the request stays unanswered in the mailbox
        CompletableFuture<byte[]> call = caller.executeAsync(2, bytes(5), LONG);
        owner.kill();

        assertThatThrownBy(() -> call.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(PassOwnerDiedException.class)
                .hasMessageContaining("PID " + owner.pid() + ", died");
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }

    /** Killed between writing an answer and publishing it: the call fails, the slot is freed. */
    @Test
    void ownerKilledMidResponseFailsTheCallAndFreesTheSlot() throws Exception {
        ChildJvm owner = start("owner", 1);
        assertThat(owner.ask("register 2 twice")).isEqualTo("ok");
        assertThat(owner.ask("freeze-at PASS_ANSWER_WRITTEN")).isEqualTo("ok");
        PassRegistry caller = here(1);
        CompletableFuture<byte[]> call = caller.executeAsync(2, bytes(21), LONG);
        assertThat(owner.readLine(WAIT)).isEqualTo("frozen PASS_ANSWER_WRITTEN");

        owner.kill();

        assertThatThrownBy(() -> call.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(PassOwnerDiedException.class)
                .hasMessageContaining("PID " + owner.pid() + ", died");
        ChildJvm restarted = start("owner-again", 1);
        assertThat(restarted.ask("register 2 twice")).isEqualTo("ok");
        assertThat(value(caller.execute(2, bytes(21), LONG))).isEqualTo(twice(21));
    }

    /** A caller killed between writing its request and publishing it: its slot is reclaimed. */
    /**
     * Both sides block at once (no spinning): every answer arrives through a poke on the owner's
     * wake socket, and each caller gets exactly its own results.
     */
    @Test
    void callersAndOwnerThatBlockAtOnceGetTheirOwnResultsThroughTheWakeSocket() {
        ChildJvm owner = start("owner", 4);
        assertThat(owner.ask("park")).isEqualTo("ok");
        assertThat(owner.ask("register 1 twice")).isEqualTo("ok");
        ChildJvm b = start("caller-b", 4);
        ChildJvm c = start("caller-c", 4);
        assertThat(b.ask("park")).isEqualTo("ok");
        assertThat(c.ask("park")).isEqualTo("ok");

        b.send("call 1 " + CALLS / 5);
        c.send("call 1 " + CALLS / 5);

        assertThat(b.readLine(Duration.ofMinutes(3))).isEqualTo("done " + CALLS / 5);
        assertThat(c.readLine(Duration.ofMinutes(3))).isEqualTo("done " + CALLS / 5);
    }

    /** A SIGKILLed owner's wake socket is deleted when the next owner starts its own. */
    @Test
    void aKilledOwnersWakeSocketIsDeletedByTheNextOwner() {
        ChildJvm owner = start("owner", 2);
        assertThat(owner.ask("register 1 twice")).isEqualTo("ok");
        owner.send("wake-socket");
        Path socket = Path.of(owner.readLine(WAIT));
        assertThat(socket).exists().hasParent(WakeServer.directory(file()));

        owner.kill();
        assertThat(socket).exists();
        PassRegistry next = here(2);
        next.register(1, args -> args);

        assertThat(socket).doesNotExist();
        assertThat(Path.of(String.valueOf(next.describe().get("wakeSocket")))).exists();
    }

    /**
     * A binder SIGKILLed while it reuses an unregistered id's entry (owner word claimed, id not yet
     * written, holding the binder record): no reader sees either id there, and the next binder
     * takes the dead binder's record and the half-bound entry over.
     */
    @Test
    void binderKilledMidReuseLeavesTheEntryToTheNextBinder() {
        PassRegistry here = PassRegistry.openOrCreate(file(), new PassRegistry.Settings(1, 1, 64));
        opened.add(here);
        here.register(5, args -> args);
        here.unregister(5);
        ChildJvm binder = children.add(ChildJvm.start("binder", PassChild.class));
        assertThat(binder.ask("open " + file() + " 1 1 64")).isEqualTo("ok");
        assertThat(binder.ask("freeze-at PASS_ENTRY_CLAIMED")).isEqualTo("ok");
        binder.send("register 9 twice");
        assertThat(binder.readLine(WAIT)).isEqualTo("frozen PASS_ENTRY_CLAIMED");
        assertThat(here.isRegistered(9)).isFalse();
        assertThatThrownBy(() -> here.execute(5, bytes(1), LONG))
                .isInstanceOf(PassNotRegisteredException.class);

        binder.kill();

        here.register(7, args -> bytes(twice(value(args))));
        assertThat(value(here.execute(7, bytes(4), LONG))).isEqualTo(twice(4));
        assertThat(here.isRegistered(9)).isFalse();
        assertThat(here.registeredCount()).isEqualTo(1);
    }

    @Test
    void callerKilledMidRequestLeavesItsSlotToTheNextCaller() {
        ChildJvm owner = start("owner", 1);
        assertThat(owner.ask("register 2 twice")).isEqualTo("ok");
        ChildJvm frozen = start("caller", 1);
        assertThat(frozen.ask("freeze-at PASS_REQUEST_WRITTEN")).isEqualTo("ok");
        frozen.send("call-one 2 8 60000");
        assertThat(frozen.readLine(WAIT)).isEqualTo("frozen PASS_REQUEST_WRITTEN");
        PassRegistry caller = here(1);
        assertThat(caller.describe()).containsEntry("busySlots", 1);

        frozen.kill();

        assertThat(value(caller.execute(2, bytes(9), LONG))).isEqualTo(twice(9));
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }

    /**
     * The owner is SIGKILLed at random points of a hot loop of calls (mid-request, mid-handler,
     * mid-response): every call either returns its own result or fails naming the dead owner, and a
     * restarted owner serves the whole mailbox again.
     */
    @Test
    void ownerKilledAtRandomPointsLeavesNoStuckSlotAndNoCrossTalk() throws Exception {
        Random random = new Random(16);
        PassRegistry caller = here(2);
        AtomicLong answered = new AtomicLong();
        for (int round = 0; round < KILLS; round++) {
            ChildJvm owner = start("owner-" + round, 2);
            assertThat(owner.ask("register 3 twice")).isEqualTo("ok");
            AtomicBoolean stop = new AtomicBoolean();
            List<CompletableFuture<Void>> loops = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long base = (round * 10L + t) * 1_000_000_000L;
                loops.add(
                        CompletableFuture.runAsync(
                                () -> hammer(caller, 3, base, stop, answered, owner.pid())));
            }
            long before = answered.get();
            while (answered.get() - before < 50 + random.nextInt(500)) {
                LockSupport.parkNanos(1_000_000);
            }
            owner.kill();
            stop.set(true);
            for (CompletableFuture<Void> loop : loops) {
                loop.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        }
        ChildJvm last = start("owner-last", 2);
        assertThat(last.ask("register 3 twice")).isEqualTo("ok");
        for (long i = 1; i <= 10; i++) {
            assertThat(value(caller.execute(3, bytes(i), LONG))).isEqualTo(twice(i));
        }
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }

    /** Calls until {@code stop}; every answer is checked; only the owner's death may fail one. */
    private static void hammer(
            PassRegistry caller,
            long passId,
            long base,
            AtomicBoolean stop,
            AtomicLong answered,
            long ownerPid) {
        for (long i = 1; ; i++) {
            long arg = base + i;
            try {
                long got = value(caller.execute(passId, bytes(arg), LONG));
                assertThat(got).as("answer to %d", arg).isEqualTo(twice(arg));
                answered.incrementAndGet();
            } catch (PassOwnerDiedException e) {
                assertThat(e.ownerPid()).isEqualTo(ownerPid);
                return;
            } catch (CxcException e) {
                throw new AssertionError("call " + arg + " failed otherwise than by the kill", e);
            }
            if (stop.get() && i > 1_000_000) {
                return;
            }
        }
    }

    /**
     * Callers SIGKILLed mid-call (a hot loop, and one whose call is running in the owner, killed
     * while announced asleep on the callers' doorbell): their slots are reclaimed by the next
     * caller that finds the mailbox full, the answer's ring to the dead waiter is dropped, and
     * answers meant for them reach nobody else.
     */
    @Test
    void callersKilledMidCallLeaveTheirSlotsToTheNextCaller() throws Exception {
        ChildJvm owner = start("owner", 1);
        assertThat(owner.ask("register 4 gate")).isEqualTo("ok");
        PassRegistry caller = here(1);

        ChildJvm blocked = start("caller-blocked", 1);
        blocked.send("call-one 4 0 60000");
        assertThat(owner.readLine(WAIT)).isEqualTo("running 0");
        io.subetha.cxc.mmf.AtomicBuffer raw = io.subetha.cxc.testing.RawBody.of(file());
        org.awaitility.Awaitility.await()
                .atMost(WAIT)
                .until(
                        () ->
                                raw.getLongVolatile(
                                                PassRegistryDescriptor.DOORBELL_OFFSET
                                                        + io.subetha.cxc.wake.DoorbellDescriptor
                                                                .ANNOUNCED_OFFSET)
                                        != 0);
        blocked.kill();
        assertThat(owner.ask("release")).isEqualTo("ok");
        // The one slot holds an answer for a dead caller: reclaimed, never read by this call.
        assertThat(value(caller.execute(4, bytes(77), LONG))).isEqualTo(77);

        Random random = new Random(4);
        for (int round = 0; round < KILLS; round++) {
            ChildJvm hot = start("caller-hot-" + round, 1);
            assertThat(hot.ask("hot 4")).isEqualTo("hot");
            LockSupport.parkNanos(Duration.ofMillis(50 + random.nextInt(300)).toNanos());
            hot.kill();
            long arg = 1000 + round;
            assertThat(value(caller.execute(4, bytes(arg), LONG))).isEqualTo(arg);
        }
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }
}
