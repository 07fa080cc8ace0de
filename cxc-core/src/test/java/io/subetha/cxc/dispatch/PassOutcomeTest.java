package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassPlantedStatesTest.DEAD_PID;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.bind;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.entry;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.passes;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.slot;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a pending call ends, for each word another party can leave in its slot or its entry: an
 * answer whose length or failure text is malformed, an owner found dead while its handler runs or
 * before it took the request, a pass taken over or rebound meanwhile, a slot claimed again by
 * another caller, and a request addressed to an owner word the dispatcher no longer holds.
 */
class PassOutcomeTest {

    private static final Duration LONG = Duration.ofSeconds(30);
    private static final Duration HOUR = Duration.ofHours(1);
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

    private PassRegistry open(int slots, int payload) {
        return open(slots, payload, PassWaiting.DEFAULT);
    }

    private PassRegistry open(int slots, int payload, PassWaiting waiting) {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        file(), new PassRegistry.Settings(1, slots, payload).withWaiting(waiting));
        opened.add(registry);
        return registry;
    }

    private static int busy(PassRegistry registry) {
        return (Integer) registry.describe().get("busySlots");
    }

    private static PassWaiting checksEvery(Duration ownerCheck) {
        return new PassWaiting(
                Duration.ofNanos(20_000), Duration.ZERO, Duration.ofMillis(1), ownerCheck);
    }

    @Test
    void anAnswerWithANegativeLengthIsACorruptFileErrorAndTheSlotIsFreed() {
        PassRegistry owner = open(1, 64);
        owner.register(1, args -> args);
        PassRegistry caller = open(1, 64);
        AtomicBuffer raw = RawBody.of(file());
        int s = slot(entry(0, 1, 64), 0, 64);
        try (var planted =
                Interleaving.install(
                        p -> {
                            if (p == Point.PASS_ANSWER_WRITTEN) {
                                raw.setIntVolatile(s + LENGTH_OFFSET, -1);
                            }
                        })) {
            assertThatThrownBy(() -> caller.execute(1, new byte[3], LONG))
                    .isExactlyInstanceOf(CxcException.class)
                    .hasMessageContaining(
                            "answered with a length of 4294967295 bytes, outside 0..64; the file"
                                    + " is corrupt");
        }
        assertThat(busy(caller)).isZero();
    }

    /** A failure whose class name alone fills the payload: no newline, so no message. */
    @Test
    void aFailureTextCutBeforeItsNewlineIsAllClassAndNoMessage() {
        PassRegistry owner = open(1, 16);
        owner.register(
                1,
                args -> {
                    throw new IllegalStateException("boom");
                });
        PassRegistry caller = open(1, 16);

        assertThatThrownBy(() -> caller.execute(1, new byte[0], LONG))
                .isInstanceOfSatisfying(
                        PassFailedException.class,
                        e -> {
                            assertThat(e.handlerException()).isEqualTo("java.lang.Illega");
                            assertThat(e.handlerMessage()).isEmpty();
                        });
    }

    /** A failure text that starts with its newline (planted): no class, all message. */
    @Test
    void aFailureTextStartingWithItsNewlineIsNoClassAndAllMessage() {
        PassRegistry owner = open(1, 64);
        owner.register(
                1,
                args -> {
                    throw new IllegalStateException("boom");
                });
        PassRegistry caller = open(1, 64);
        AtomicBuffer raw = RawBody.of(file());
        int s = slot(entry(0, 1, 64), 0, 64);
        byte[] text = "\nboom".getBytes(StandardCharsets.UTF_8);
        try (var planted =
                Interleaving.install(
                        p -> {
                            if (p == Point.PASS_ANSWER_WRITTEN) {
                                raw.putBytes(s + SLOT_HEADER_LENGTH, text);
                                raw.setIntVolatile(s + LENGTH_OFFSET, text.length);
                            }
                        })) {
            assertThatThrownBy(() -> caller.execute(1, new byte[0], LONG))
                    .isInstanceOfSatisfying(
                            PassFailedException.class,
                            e -> {
                                assertThat(e.handlerException()).isEmpty();
                                assertThat(e.handlerMessage()).isEqualTo("boom");
                            });
        }
    }

    /**
     * A request of a pass bound to a dead PID, taken by that owner's dispatcher (the test plays it:
     * REQUEST to RUNNING) before it died: the caller's owner check fails the call saying the
     * handler may have run, and frees the slot itself (a dead dispatcher never will).
     */
    @Test
    void aDeadOwnersRunningSlotIsFreedByTheCallerThatFindsItDead() {
        PassRegistry caller = open(1, 64, checksEvery(Duration.ofMillis(300)));
        AtomicBuffer raw = RawBody.of(file());
        bind(raw, entry(0, 1, 64), 7, DEAD_PID, 3);
        int s = slot(entry(0, 1, 64), 0, 64);

        CompletableFuture<byte[]> call = caller.executeAsync(7, new byte[1], LONG);
        long request = raw.getLongVolatile(s + STATE_WORD_OFFSET);
        assertThat(state(request)).isEqualTo(STATE_REQUEST);
        assertThat(
                        raw.compareAndSetLong(
                                s + STATE_WORD_OFFSET, request, withState(request, STATE_RUNNING)))
                .isTrue();

        assertThat(call)
                .failsWithin(LONG)
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(PassOwnerDiedException.class)
                .withMessageContaining(
                        "died while the call was pending (its handler had started: it may have"
                                + " run)");
        assertThat(raw.getLongVolatile(s + STATE_WORD_OFFSET))
                .isEqualTo(withState(request, STATE_FREE));
    }

    /**
     * The same running slot, but the call times out before any owner check: a timeout is not an
     * owner's death, so the slot is left abandoned for its dispatcher (here a dead one, whose slot
     * the next full mailbox reclaims).
     */
    @Test
    void aCallThatTimesOutWhileRunningAbandonsTheSlotEvenIfTheOwnerIsDead() {
        PassRegistry caller = open(1, 64, checksEvery(HOUR));
        AtomicBuffer raw = RawBody.of(file());
        bind(raw, entry(0, 1, 64), 7, DEAD_PID, 3);
        int s = slot(entry(0, 1, 64), 0, 64);

        CompletableFuture<byte[]> call =
                caller.executeAsync(7, new byte[1], Duration.ofMillis(100));
        long request = raw.getLongVolatile(s + STATE_WORD_OFFSET);
        raw.compareAndSetLong(s + STATE_WORD_OFFSET, request, withState(request, STATE_RUNNING));

        assertThat(call)
                .failsWithin(LONG)
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(CxcTimeoutException.class)
                .withMessageContaining("its handler was still running");
        assertThat(raw.getLongVolatile(s + STATE_WORD_OFFSET))
                .isEqualTo(withState(request, STATE_ABANDONED));
    }

    /** Pending to PID 1 (alive, never serves); then the entry's owner word is rewritten. */
    private CompletableFuture<byte[]> pendingThenRebound(long newOwner, long newKey, long newId) {
        PassRegistry caller = open(1, 64, checksEvery(Duration.ofMillis(200)));
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
        PassRegistry caller = open(1, 64, checksEvery(HOUR));
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
        PassRegistry owner = open(2, 64);
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
        PassRegistry caller = open(2, 64);

        assertThat(PassChild.value(caller.execute(7, PassChild.bytes(1), LONG))).isEqualTo(8);

        assertThat(raw.getLongVolatile(foreign + STATE_WORD_OFFSET)).isEqualTo(request);
        assertThat(passes(caller).get(0)).containsEntry("calls", 1L);
    }
}
