package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcException;
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
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Entry, binder and mailbox states another process (dead, alive elsewhere, or writing outside the
 * protocol) leaves in the file, planted word by word, and what registering and calling make of
 * each: an id bound to a live process elsewhere or to a dead one, a dead binder, a mailbox full of
 * dead parties' slots, request and answer lengths out of range, and the handler's odd outcomes.
 */
class PassPlantedStatesTest {

    /** A PID no process can have (above every kernel's pid_max): always provably dead. */
    static final long DEAD_PID = Pids.MAX_PID - 1;

    static final Duration LONG = Duration.ofSeconds(30);

    /** Reclaims run at every owner check: make them frequent. */
    static final PassWaiting QUICK_CHECKS =
            new PassWaiting(
                    Duration.ofNanos(20_000),
                    Duration.ZERO,
                    Duration.ofMillis(1),
                    Duration.ofMillis(5));

    @TempDir Path dir;
    final List<PassRegistry> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(PassRegistry::close);
    }

    Path file() {
        return dir.resolve("calls.passes");
    }

    PassRegistry open(int maxPasses, int slots, int payload) {
        return open(maxPasses, slots, payload, PassWaiting.DEFAULT);
    }

    PassRegistry open(int maxPasses, int slots, int payload, PassWaiting waiting) {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        file(),
                        new PassRegistry.Settings(maxPasses, slots, payload).withWaiting(waiting));
        opened.add(registry);
        return registry;
    }

    static int entry(int index, int slots, int payload) {
        return REGISTRY_HEADER_LENGTH + index * (int) entryStride(slots, payload);
    }

    static int slot(int entryOffset, int index, int payload) {
        return entryOffset + ENTRY_HEADER_LENGTH + index * (int) slotStride(payload);
    }

    /** Entry {@code entryOffset} bound to {@code passId} by {@code pid} under {@code key}. */
    static void bind(AtomicBuffer raw, int entryOffset, long passId, long pid, long key) {
        raw.setLongVolatile(entryOffset + PASS_ID_OFFSET, passId);
        raw.setLongVolatile(entryOffset + BOUND_KEY_OFFSET, key);
        raw.setLongVolatile(
                entryOffset + OWNER_RECORD_OFFSET + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(pid, key));
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> passes(PassRegistry registry) {
        return (List<Map<String, Object>>) registry.describe().get("passes");
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

    @Test
    void aDeadBindersRecordIsTakenAtOnceUnderTheNextGeneration() {
        PassRegistry owner = open(1, 1, 64);
        AtomicBuffer raw = RawBody.of(file());
        raw.setLongVolatile(
                BINDER_OFFSET + OwnerRecord.OWNER_WORD_OFFSET, OwnerRecord.ownerWord(DEAD_PID, 9));
        // A dead binder's half-bound entry: its keys differ, so it names no id and is reused.
        int only = entry(0, 1, 64);
        raw.setLongVolatile(
                only + OWNER_RECORD_OFFSET + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(DEAD_PID, 2));
        raw.setLongVolatile(only + BOUND_KEY_OFFSET, 1);
        raw.setLongVolatile(only + PASS_ID_OFFSET, 4);
        raw.setLongVolatile(only + CALLS_OFFSET, 9);
        assertThat(owner.isRegistered(4)).isFalse();

        owner.register(3, args -> args);

        assertThat(OwnerRecord.ownerWord(raw, BINDER_OFFSET))
                .isEqualTo(OwnerRecord.ownerWord(0, 10));
        assertThat(raw.getLongVolatile(only + PASS_ID_OFFSET)).isEqualTo(3);
        assertThat(raw.getLongVolatile(only + CALLS_OFFSET)).isZero();
        assertThat(owner.isRegistered(3)).isTrue();
        assertThat(owner.isRegistered(4)).isFalse();
    }

    @Test
    void aMailboxFullOfDeadPartiesSlotsIsReclaimedAndALiveOnesSlotKept() {
        int slots = 8;
        PassRegistry owner = open(1, slots, 64);
        owner.register(1, args -> PassChild.bytes(PassChild.value(args) * 2));
        PassRegistry caller = open(1, slots, 64, QUICK_CHECKS);
        AtomicBuffer raw = RawBody.of(file());
        int e = entry(0, slots, 64);
        long deadOwner = OwnerRecord.ownerWord(DEAD_PID, 1);
        long liveOwner = OwnerRecord.ownerWord(1, 1);
        long self = Pids.current();
        // Callers dead (judged by PID: no start time stamped for these claims), or PID 0.
        raw.setLongVolatile(slot(e, 0, 64) + STATE_WORD_OFFSET, packState(STATE_CLAIMED, 3, 0));
        raw.setLongVolatile(
                slot(e, 1, 64) + STATE_WORD_OFFSET, packState(STATE_CLAIMED, 3, DEAD_PID));
        raw.setLongVolatile(
                slot(e, 2, 64) + STATE_WORD_OFFSET, packState(STATE_REQUEST, 3, DEAD_PID));
        raw.setLongVolatile(
                slot(e, 3, 64) + STATE_WORD_OFFSET, packState(STATE_RESPONSE, 3, DEAD_PID));
        raw.setLongVolatile(
                slot(e, 4, 64) + STATE_WORD_OFFSET, packState(STATE_FAILED, 3, DEAD_PID));
        // Taken by an owner that died (the caller, this process, is alive).
        for (int i = 5; i <= 6; i++) {
            int s = slot(e, i, 64);
            raw.setLongVolatile(s + ADDRESSED_OWNER_OFFSET, deadOwner);
            raw.setLongVolatile(
                    s + STATE_WORD_OFFSET,
                    packState(i == 5 ? STATE_RUNNING : STATE_ABANDONED, 3, self));
        }
        // Taken by a live owner elsewhere: kept.
        int kept = slot(e, 7, 64);
        raw.setLongVolatile(kept + ADDRESSED_OWNER_OFFSET, liveOwner);
        raw.setLongVolatile(kept + STATE_WORD_OFFSET, packState(STATE_RUNNING, 3, self));
        assertThat(caller.describe()).containsEntry("busySlots", slots);

        assertThat(PassChild.value(caller.execute(1, PassChild.bytes(21), LONG))).isEqualTo(42);

        assertThat(caller.describe()).containsEntry("busySlots", 1);
        assertThat(state(raw.getLongVolatile(kept + STATE_WORD_OFFSET))).isEqualTo(STATE_RUNNING);
    }

    @Test
    void aRequestLengthOutOfRangeIsTheHandlersFailureNotARead() {
        PassRegistry owner = open(1, 1, 256);
        owner.register(1, args -> args);
        PassRegistry caller = open(1, 1, 256);
        AtomicBuffer raw = RawBody.of(file());
        int s = slot(entry(0, 1, 256), 0, 256);
        Thread test = Thread.currentThread();
        try (var planted =
                Interleaving.install(
                        p -> {
                            if (p == Point.PASS_REQUEST_WRITTEN && Thread.currentThread() == test) {
                                raw.setIntVolatile(s + LENGTH_OFFSET, -1);
                            }
                        })) {
            assertThatThrownBy(() -> caller.execute(1, new byte[3], LONG))
                    .isInstanceOfSatisfying(
                            PassFailedException.class,
                            e -> {
                                assertThat(e.handlerException())
                                        .isEqualTo("java.lang.IllegalArgumentException");
                                assertThat(e.handlerMessage())
                                        .isEqualTo("request length 4294967295 is outside 0..256");
                            });
        }
        assertThat(caller.execute(1, new byte[] {5}, LONG)).containsExactly(5);
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }

    @Test
    void anAnswerLengthOutOfRangeIsACorruptFileErrorAndTheSlotIsFreed() {
        PassRegistry owner = open(1, 1, 64);
        owner.register(1, args -> args);
        PassRegistry caller = open(1, 1, 64);
        AtomicBuffer raw = RawBody.of(file());
        int s = slot(entry(0, 1, 64), 0, 64);
        try (var planted =
                Interleaving.install(
                        p -> {
                            if (p == Point.PASS_ANSWER_WRITTEN) {
                                raw.setIntVolatile(s + LENGTH_OFFSET, 65);
                            }
                        })) {
            assertThatThrownBy(() -> caller.execute(1, new byte[3], LONG))
                    .isInstanceOf(CxcException.class)
                    .hasMessageContaining(
                            "answered with a length of 65 bytes, outside 0..64; the file is corrupt");
        }
        assertThat(caller.describe()).containsEntry("busySlots", 0);
        assertThat(caller.execute(1, new byte[0], LONG)).isEmpty();
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
