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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bounds of a caller blocked in its untimed read on a wake connection (issue 16's parked round
 * trip): nothing but a poke wakes the read itself, so each test makes the poke impossible and shows
 * what ends the wait instead. Polls are made an hour long, so only the bound under test can end a
 * call within the tests' preemptive limits.
 */
class PassWakeTest {

    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final Duration HOUR = Duration.ofHours(1);

    @TempDir Path dir;

    private final List<PassRegistry> opened = new ArrayList<>();
    private final ChildJvmGroup children = new ChildJvmGroup();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void closeAll() {
        release.countDown();
        children.close();
        opened.forEach(PassRegistry::close);
    }

    private Path file() {
        return dir.resolve("calls.passes");
    }

    private PassRegistry open(PassWaiting waiting) {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        file(), new PassRegistry.Settings(2, 2, 64).withWaiting(waiting));
        opened.add(registry);
        return registry;
    }

    /** Blocks at once, never polls, checks the owner every {@code ownerCheck}. */
    private static PassWaiting blockAtOnce(Duration maxPark, Duration ownerCheck) {
        return new PassWaiting(Duration.ZERO, Duration.ZERO, maxPark, ownerCheck);
    }

    /** Registers pass 4 in a handle of this process: its handler waits for {@link #release}. */
    private void gatedOwner() {
        open(PassWaiting.DEFAULT)
                .register(
                        4,
                        args -> {
                            release.await();
                            return bytes(value(args) + 4);
                        });
    }

    private static void awaitBlocked(PassRegistry caller) {
        await().atMost(LIMIT).until(() -> caller.describe().get("blockedCalls").equals(1));
    }

    /**
     * The dispatcher finds no wake token when it answers (taken from the slot while the caller was
     * blocked: a poke lost), so it pokes nobody: the caller's ticker sees the answer in the file
     * and wakes it, one or two ticks later; the call's own timeout is an hour away.
     */
    @Test
    void aLostPokeIsRecoveredByTheTicker() {
        gatedOwner();
        PassRegistry caller = open(blockAtOnce(Duration.ofMillis(20), HOUR));
        CompletableFuture<byte[]> call =
                CompletableFuture.supplyAsync(() -> caller.execute(4, bytes(3), HOUR));
        awaitBlocked(caller);

        AtomicBuffer body = RawBody.of(file());
        int stolen = 0;
        for (int i = 0; i < 2; i++) {
            int slot = REGISTRY_HEADER_LENGTH + ENTRY_HEADER_LENGTH + i * (int) slotStride(64);
            long token = body.getLongVolatile(slot + WAKE_TOKEN_OFFSET);
            int state = state(body.getLongVolatile(slot + STATE_WORD_OFFSET));
            if (state == STATE_RUNNING
                    && token != 0
                    && body.compareAndSetLong(slot + WAKE_TOKEN_OFFSET, token, 0)) {
                stolen++;
            }
        }
        assertThat(stolen).as("the blocked call's announced wake token, taken").isEqualTo(1);
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
        PassRegistry owner = open(blockAtOnce(Duration.ofMillis(20), HOUR));
        owner.register(5, args -> bytes(value(args) + 5));
        PassRegistry caller = open(blockAtOnce(HOUR, HOUR));
        assertTimeoutPreemptively(
                LIMIT, () -> assertThat(value(caller.execute(5, bytes(1), HOUR))).isEqualTo(6));

        AtomicBuffer body = RawBody.of(file());
        int[] stolen = {0};
        await().atMost(LIMIT)
                .until(
                        () -> {
                            for (int i = 0; i < 2; i++) {
                                int parked =
                                        REGISTRY_HEADER_LENGTH
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
     * The answer never comes: the call ends at its deadline, woken in its read by the ticker (its
     * owner checks an hour apart). The caller's ticker looks every 20 ms, so the next call is not
     * left to its poke alone.
     */
    @Test
    void aBlockedCallsTimeoutEndsItsRead() {
        gatedOwner();
        PassRegistry caller = open(blockAtOnce(Duration.ofMillis(20), HOUR));

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
        // The timed-out call's connection was closed, not reused: the next call connects afresh.
        assertTimeoutPreemptively(
                LIMIT, () -> assertThat(value(caller.execute(4, bytes(2), HOUR))).isEqualTo(6));
    }

    /** Closing the caller's handle closes the connection its blocked call reads: the call fails. */
    @Test
    void closeEndsABlockedCallsRead() throws Exception {
        gatedOwner();
        PassRegistry caller = open(blockAtOnce(HOUR, HOUR));
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
     * An owner process killed while the caller is blocked in its read: the owner's end of the
     * connection closes with it, so the read returns at once and the caller checks the owner: the
     * call fails naming the PID, with no poll and an owner check only every second.
     */
    @Test
    void aKilledOwnerEndsABlockedCallsRead() throws Exception {
        ChildJvm owner = children.add(ChildJvm.start("owner", PassChild.class));
        owner.send("open " + file() + " 2 2 64");
        assertThat(owner.readLine(LIMIT)).isEqualTo("ok");
        owner.send("register 4 gate");
        assertThat(owner.readLine(LIMIT)).isEqualTo("ok");
        PassRegistry caller = open(blockAtOnce(HOUR, Duration.ofSeconds(1)));
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
}
