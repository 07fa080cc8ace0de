package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.StepGate;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Entries reused after unregistering (issue 16: recycled passes), and dead callers judged by PID
 * and start time (a recycled PID is not alive). One process; the file's bytes written by hand where
 * a test needs a state no live process would leave.
 */
class PassRecycleTest {

    private static final Duration LONG = Duration.ofSeconds(30);

    /** Reclaims run at every owner check: make them frequent. */
    private static final PassWaiting QUICK_CHECKS =
            new PassWaiting(
                    Duration.ofNanos(20_000),
                    Duration.ZERO,
                    Duration.ofMillis(1),
                    Duration.ofMillis(5));

    @TempDir Path dir;

    private final List<PassRegistry> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(PassRegistry::close);
    }

    private Path file() {
        return dir.resolve("calls.passes");
    }

    private PassRegistry open(int maxPasses, int slots) {
        return open(maxPasses, slots, PassWaiting.DEFAULT);
    }

    private PassRegistry open(int maxPasses, int slots, PassWaiting waiting) {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        file(),
                        new PassRegistry.Settings(maxPasses, slots, 64).withWaiting(waiting));
        opened.add(registry);
        return registry;
    }

    @Test
    void registeringAndUnregisteringMoreIdsThanMaxPassesReusesTheEntries() {
        PassRegistry owner = open(2, 2);
        PassRegistry caller = open(2, 2);
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
        PassRegistry owner = open(1, 1);
        PassRegistry caller = open(1, 1);
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

    /**
     * A mailbox slot claimed by a live PID whose start time is not the one the claimant stamped:
     * the PID was reused by another process, so the claimant is dead and its slot is reclaimed.
     * (Judged by PID alone, the slot stayed busy and the call failed with a capacity error.)
     */
    @Test
    void aSlotStampedWithALivePidButAnotherStartTimeIsReclaimed() throws IOException {
        PassRegistry owner = open(1, 1);
        PassRegistry caller = open(1, 1, QUICK_CHECKS);
        owner.register(3, args -> PassChild.bytes(PassChild.value(args) * 3));
        long pid = Pids.current();
        long wrongStartTime = OwnerRecord.startTimeOf(pid) + 12_345;
        stampSlot(packState(STATE_CLAIMED, 41, pid), callerIdentity(41, wrongStartTime));
        assertThat(caller.describe()).containsEntry("busySlots", 1);

        assertThat(PassChild.value(caller.execute(3, PassChild.bytes(5), LONG))).isEqualTo(15);
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }

    /** The same slot stamped with the live PID's real start time is left alone: it is alive. */
    @Test
    void aSlotStampedWithALivePidAndItsStartTimeIsNotReclaimed() throws IOException {
        PassRegistry owner = open(1, 1);
        PassRegistry caller = open(1, 1, QUICK_CHECKS);
        owner.register(3, args -> args);
        long pid = Pids.current();
        stampSlot(
                packState(STATE_CLAIMED, 41, pid),
                callerIdentity(41, OwnerRecord.startTimeOf(pid)));

        assertThatThrownBy(() -> caller.execute(3, PassChild.bytes(5), Duration.ofMillis(200)))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("mailbox slots (mailboxSlots)");
        assertThat(caller.describe()).containsEntry("busySlots", 1);
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
        PassRegistry owner = open(2, 2, blockAtOnce);
        PassRegistry caller = open(2, 2, blockAtOnce);
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
        PassRegistry owner = open(2, 2, blockAtOnce);
        owner.register(4, args -> PassChild.bytes(PassChild.value(args) + 4));
        Files.delete(Path.of(String.valueOf(owner.describe().get("wakeSocket"))));
        PassRegistry caller = open(2, 2, blockAtOnce);

        for (long i = 0; i < 20; i++) {
            assertThat(PassChild.value(caller.execute(4, PassChild.bytes(i), LONG)))
                    .isEqualTo(i + 4);
        }
    }

    /** Writes slot 0 of entry 0 through the file, as another process would through its mapping. */
    private void stampSlot(long stateWord, long identity) throws IOException {
        long slot = HeaderDescriptor.HEADER_LENGTH + REGISTRY_HEADER_LENGTH + ENTRY_HEADER_LENGTH;
        try (FileChannel channel = FileChannel.open(file(), StandardOpenOption.WRITE)) {
            ByteBuffer identityBytes =
                    ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, identity);
            channel.write(identityBytes, slot + CALLER_IDENTITY_OFFSET);
            ByteBuffer state =
                    ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, stateWord);
            channel.write(state, slot + STATE_WORD_OFFSET);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> passes(PassRegistry registry) {
        return (List<Map<String, Object>>) registry.describe().get("passes");
    }
}
