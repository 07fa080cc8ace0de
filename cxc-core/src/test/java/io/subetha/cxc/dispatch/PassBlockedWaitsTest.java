package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassPlantedStatesTest.entry;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.slot;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What ends a blocked wait when no poke can: the caller's ticker finds the call's slot claimed by
 * another caller, or its owner gone at the ticker's own owner check; and a dispatcher whose entry
 * names another wake socket than the one it blocks on is still poked, through a pooled connection.
 * Every other wait is an hour long, so only the path under test ends the call.
 */
class PassBlockedWaitsTest {

    private static final Duration LIMIT = Duration.ofSeconds(20);
    private static final Duration HOUR = Duration.ofHours(1);

    @TempDir Path dir;
    private final List<PassRegistry> opened = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch started = new CountDownLatch(1);

    @AfterEach
    void closeAll() {
        release.countDown();
        opened.forEach(PassRegistry::close);
    }

    private Path file() {
        return dir.resolve("calls.passes");
    }

    private PassRegistry open(PassWaiting waiting) {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        file(), new PassRegistry.Settings(1, 2, 64).withWaiting(waiting));
        opened.add(registry);
        return registry;
    }

    private static PassWaiting blockAtOnce(Duration maxPark, Duration ownerCheck) {
        return new PassWaiting(Duration.ZERO, Duration.ZERO, maxPark, ownerCheck);
    }

    /** An owner of pass 7, one dispatcher, whose handler waits for {@link #release}. */
    private PassRegistry gatedOwner() {
        PassRegistry owner = open(PassWaiting.DEFAULT);
        owner.register(
                7,
                args -> {
                    started.countDown();
                    release.await();
                    return PassChild.bytes(PassChild.value(args) + 7);
                });
        return owner;
    }

    private static void awaitBlocked(PassRegistry caller) {
        soon(LIMIT).until(() -> caller.describe().get("blockedCalls").equals(1));
    }

    /**
     * The blocked call's slot, while its handler runs, is found claimed and running for another
     * caller (a new generation): the ticker wakes the call at its first look, and the call fails as
     * reclaimed. Its owner checks are an hour apart, so only the claim check can end it.
     */
    @Test
    void aBlockedCallWhoseSlotAnotherCallerClaimedIsWokenByTheTicker() throws Exception {
        gatedOwner();
        PassRegistry caller = open(blockAtOnce(Duration.ofMillis(5), HOUR));
        CompletableFuture<byte[]> call =
                CompletableFuture.supplyAsync(() -> caller.execute(7, PassChild.bytes(1), HOUR));
        assertThat(started.await(LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        awaitBlocked(caller);
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
     * the pass. The caller's ticker, looking every 5 ms, at its owner check (every 20 ms) finds the
     * request unserved and the pass gone, and wakes the call, which fails naming the owner.
     */
    @Test
    void aBlockedCallsOwnerThatUnregistersIsFoundAtTheTickersOwnerCheck() throws Exception {
        PassRegistry owner = gatedOwner();
        PassRegistry first = open(PassWaiting.DEFAULT);
        CompletableFuture<byte[]> running = first.executeAsync(7, PassChild.bytes(1), HOUR);
        assertThat(started.await(LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        PassRegistry caller = open(blockAtOnce(Duration.ofMillis(5), Duration.ofMillis(20)));
        CompletableFuture<byte[]> call =
                CompletableFuture.supplyAsync(() -> caller.execute(7, PassChild.bytes(2), HOUR));
        awaitBlocked(caller);

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
        PassRegistry owner = open(blockAtOnce(HOUR, HOUR));
        owner.register(7, args -> PassChild.bytes(PassChild.value(args) + 7));
        AtomicBuffer raw = RawBody.of(file());
        int e = entry(0, 2, 64);
        long real = raw.getLongVolatile(e + WAKE_ADDRESS_OFFSET);
        assertThat(real).isNotZero();
        raw.setLongVolatile(e + WAKE_ADDRESS_OFFSET, real + (1L << 22)); // another sequence
        PassRegistry caller = open(PassWaiting.DEFAULT);

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

    /** Awaitility polling every millisecond from the start (its default waits 100 ms first). */
    private static org.awaitility.core.ConditionFactory soon(Duration atMost) {
        return await().atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
    }
}
