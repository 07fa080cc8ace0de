package io.subetha.cxc.lease;

import static io.subetha.cxc.lease.OwnerLeaseBindingTest.nameWithHome;
import static io.subetha.cxc.lease.OwnerLeaseDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How names meet their slots: open addressing from the name's home slot (wrapping at the table's
 * end, passing slots bound to other names even when their hash and length match), a reader that
 * never binds nor waits and whose probe ends where the name would be (an empty home slot or one
 * being bound is "not bound"; a bound slot is the name's only when its length and hash match, so a
 * name is not found in the slot of a longer name it prefixes), unbound slots passed by a reader and
 * reused by a binder, a retirement a dead binder left half-done rolled back, the words' fields, and
 * the layout's limits.
 */
class OwnerLeaseBindingTest {
    static final long PID = Pids.current();
    static final Duration MINUTE = Duration.ofMinutes(1);

    @TempDir Path dir;

    static int home(String name, int capacity) {
        return Integer.remainderUnsigned(hash(utf8(name)), capacity);
    }

    /** The first of "name-0", "name-1", ... whose home slot is {@code slot}, skipping some. */
    static String nameWithHome(int slot, int capacity, String... not) {
        for (int i = 0; ; i++) {
            String name = "name-" + i;
            if (home(name, capacity) == slot && !java.util.List.of(not).contains(name)) {
                return name;
            }
        }
    }

    static long bindWord(AtomicBuffer raw, int slot) {
        return raw.getLongVolatile(slotOffset(slot) + BIND_WORD_OFFSET);
    }

    @Test
    void aNameWhoseHomeIsTakenProbesOnWrappingAtTheTablesEnd() {
        Path path = dir.resolve("leases.cxc");
        int capacity = 3;
        String first = nameWithHome(capacity - 1, capacity);
        String second = nameWithHome(capacity - 1, capacity, first);
        try (OwnerLease leases = OwnerLease.TYPE.create(path, new OwnerLease.Settings(capacity));
                OwnerLease other = OwnerLease.open(path, new OwnerLease.Settings(capacity))) {
            leases.tryAcquire(first, PID, MINUTE).orElseThrow();
            leases.tryAcquire(second, PID, MINUTE).orElseThrow();
            AtomicBuffer raw = RawBody.of(path);
            byte[] bytes = utf8(second);
            assertThat(bindWord(raw, 0)).isEqualTo(boundWord(bytes.length, hash(bytes)));
            assertThat(bindWord(raw, 1)).isEqualTo(EMPTY);
            // Another handle, with nothing cached, finds both by probing the same way.
            assertThat(other.holder(second).orElseThrow().token()).isEqualTo(1);
            assertThat(other.holder(first).orElseThrow().pid()).isEqualTo(PID);
            assertThat(other.tryAcquire(second, PID, MINUTE)).isEmpty();
        }
    }

    @Test
    void aSlotBoundToAnotherNameWithTheSameHashAndLengthIsPassed() {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.TYPE.create(path, new OwnerLease.Settings(2))) {
            String name = "job";
            byte[] bytes = utf8(name);
            int home = home(name, 2);
            AtomicBuffer raw = RawBody.of(path);
            // A colliding name ("jxb", same length, planted with job's hash) owns job's home.
            raw.putBytes(slotOffset(home) + NAME_OFFSET, utf8("jxb"));
            raw.setLongVolatile(
                    slotOffset(home) + BIND_WORD_OFFSET, boundWord(bytes.length, hash(bytes)));
            assertThat(leases.holder(name)).isEmpty();
            Lease lease = leases.tryAcquire(name, PID, MINUTE).orElseThrow();
            assertThat(bindWord(raw, 1 - home)).isEqualTo(boundWord(bytes.length, hash(bytes)));
            assertThat(leases.holder(name).orElseThrow().token()).isEqualTo(lease.token());
        }
    }

    @Test
    void aReaderOfANameNoProcessBoundFindsNothingAndBindsNothing() {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.TYPE.create(path, new OwnerLease.Settings(2))) {
            assertThat(leases.holder("never")).isEmpty();
            assertThat(leases.describe()).containsEntry("boundNames", 0);
            // A full table of other names: the probe ends at the table's end.
            leases.tryAcquire(nameWithHome(0, 2), PID, MINUTE).orElseThrow();
            leases.tryAcquire(nameWithHome(1, 2), PID, MINUTE).orElseThrow();
            assertThat(leases.holder("never")).isEmpty();
            assertThat(leases.describe()).containsEntry("boundNames", 2).containsEntry("held", 2);
        }
    }

    @Test
    void anUnboundSlotIsPassedByAReaderAndTheFirstOneOnABindersWayIsBoundUnderTheNextGeneration() {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.TYPE.create(path, new OwnerLease.Settings(2))) {
            AtomicBuffer raw = RawBody.of(path);
            String far = nameWithHome(0, 2);
            leases.tryAcquire(far, PID, MINUTE).orElseThrow(); // bound at slot 0
            String name = nameWithHome(1, 2, far);
            raw.setLongVolatile(slotOffset(1) + BIND_WORD_OFFSET, unboundWord(6));
            assertThat(leases.holder(name)).isEmpty();
            assertThat(leases.describe()).containsEntry("boundNames", 1);
            Lease lease = leases.tryAcquire(name, PID, MINUTE).orElseThrow();
            byte[] bytes = utf8(name);
            assertThat(bindWord(raw, 1)).isEqualTo(boundWord(bytes.length, hash(bytes), 7));
            assertThat(leases.holder(name).orElseThrow().token()).isEqualTo(lease.token());
        }
    }

    @Test
    void aRetiringOwnerWordLeftByADeadBinderIsRolledBackByTheNextHolderOfTheBindLock() {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.TYPE.create(path, new OwnerLease.Settings(1))) {
            leases.release(leases.tryAcquire("job", PID, MINUTE).orElseThrow());
            AtomicBuffer raw = RawBody.of(path);
            // A binder CASed the slot to retiring, then died before sealing its step.
            raw.setLongVolatile(slotOffset(0), retiringWord(1));
            assertThat(leases.holder("job")).isEmpty();
            Lease lease = leases.tryAcquire("job", PID, MINUTE).orElseThrow();
            assertThat(lease.token()).isEqualTo(2);
            byte[] bytes = utf8("job");
            assertThat(bindWord(raw, 0)).isEqualTo(boundWord(bytes.length, hash(bytes)));
        }
    }

    @Test
    void theBindAndOwnerWordsCarryGenerationLengthHashAndRetiring() {
        long bound = boundWord(64, 0x8000_0001, GENERATION_MASK);
        assertThat(isBound(bound)).isTrue();
        assertThat(isUnbound(bound)).isFalse();
        assertThat(boundLength(bound)).isEqualTo(64);
        assertThat(boundHash(bound)).isEqualTo(0x8000_0001);
        assertThat(bindGeneration(bound)).isEqualTo(GENERATION_MASK);
        assertThat(boundTo(bound, 64, 0x8000_0001)).isTrue();
        assertThat(boundTo(bound, 63, 0x8000_0001)).isFalse();
        assertThat(nextBindGeneration(bound)).isZero();
        assertThat(nextBindGeneration(EMPTY)).isZero();
        long unbound = unboundWord(5);
        assertThat(isUnbound(unbound)).isTrue();
        assertThat(isBound(unbound)).isFalse();
        assertThat(isUnbound(EMPTY)).isFalse();
        assertThat(nextBindGeneration(unbound)).isEqualTo(6);
        assertThat(isRetiring(retiringWord(9))).isTrue();
        assertThat(io.subetha.cxc.claim.OwnerRecord.key(retiringWord(9))).isEqualTo(9);
        assertThat(isRetiring(io.subetha.cxc.claim.OwnerRecord.ownerWord(PID, 9))).isFalse();
        // Keys: one above the slot's, or above the floor when that is as high; never 0.
        long word = io.subetha.cxc.claim.OwnerRecord.ownerWord(0, 7);
        assertThat(nextKey(word, 3)).isEqualTo(8);
        assertThat(nextKey(word, 8)).isEqualTo(9);
        assertThat(nextKey(word, 0xFFFF_FFFFL)).isEqualTo(1);
        assertThat(hash(new byte[0])).isEqualTo(0x811c9dc5);
        assertThat(hash(utf8("a"))).isEqualTo(0xe40c292c); // FNV-1a 32 of "a"
        assertThat(lingers(leaseWord(5, 100, true))).isTrue();
        assertThat(leaseKey(leaseWord(5, 100, true))).isEqualTo(5);
        assertThat(deadlineMillis(leaseWord(5, 101, false))).isEqualTo(102);
        assertThat(deadlineMillis(leaseWord(5, 0xFFFF_FFFFL, true))).isZero();
    }

    @Test
    void theLayoutRefusesCapacitiesAndSlotSizesItDoesNotHave() {
        int doorbell = io.subetha.cxc.wake.DoorbellDescriptor.LENGTH;
        int bindLock = io.subetha.cxc.claim.IntentLock.length(BIND_STEP_ENTRIES, MAX_NAME_BYTES);
        assertThat(BODY_LAYOUT.bodyLength(1, SLOT_LENGTH))
                .isEqualTo(64 + 128 + doorbell + bindLock);
        assertThat(BODY_LAYOUT.bodyLength(MAX_CAPACITY, SLOT_LENGTH))
                .isEqualTo(64 + 128L * MAX_CAPACITY + doorbell + bindLock);
        assertThat(bindLockOffset(1) % 8).isZero();
        assertThatThrownBy(() -> BODY_LAYOUT.bodyLength(0, SLOT_LENGTH))
                .hasMessage("a lease table has 1..65536 name slots, not 0");
        assertThatThrownBy(() -> BODY_LAYOUT.bodyLength(MAX_CAPACITY + 1, SLOT_LENGTH))
                .hasMessageContaining("not 65537");
        assertThatThrownBy(() -> BODY_LAYOUT.bodyLength(1, 64))
                .hasMessage("lease slots are 128 bytes, not 64");
        assertThatThrownBy(() -> new OwnerLease.Settings(MAX_CAPACITY + 1))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity must be 1..65536, got 65537");
        assertThat(new OwnerLease.Settings(MAX_CAPACITY).capacity()).isEqualTo(MAX_CAPACITY);
        try (OwnerLease leases =
                        OwnerLease.openOrCreate(dir.resolve("l.cxc"), new OwnerLease.Settings(5));
                OwnerLease again =
                        OwnerLease.openOrCreate(dir.resolve("l.cxc"), new OwnerLease.Settings(5))) {
            assertThat(again.capacity()).isEqualTo(5);
            assertThat(leases.describe())
                    .containsEntry("capacity", 5)
                    .containsEntry("maxNameBytes", 64);
        }
    }

    @Test
    void aTableOfTheLayoutWhoseNamesKeptTheirSlotsIsRefusedUntouched() throws Exception {
        Path path = dir.resolve("old.cxc");
        OwnerLease.TYPE.create(path, new OwnerLease.Settings(4)).close();
        try (java.nio.channels.FileChannel channel =
                java.nio.channels.FileChannel.open(
                        path,
                        java.nio.file.StandardOpenOption.READ,
                        java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer header =
                    java.nio.ByteBuffer.allocate(io.subetha.cxc.mmf.HeaderDescriptor.HEADER_LENGTH)
                            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            channel.read(header, 0);
            header.putInt(io.subetha.cxc.mmf.HeaderDescriptor.LAYOUT_VERSION_OFFSET, 2);
            header.putInt(
                    io.subetha.cxc.mmf.HeaderDescriptor.CHECKSUM_OFFSET,
                    io.subetha.cxc.mmf.FileHeader.checksumOf(header));
            channel.write(header.position(0), 0);
        }
        byte[] before = java.nio.file.Files.readAllBytes(path);
        assertThatThrownBy(() -> OwnerLease.open(path, new OwnerLease.Settings(4)))
                .isInstanceOf(io.subetha.cxc.CxcFormatException.class)
                .hasMessageContaining("layout version 2, but this CXC reads version 3")
                .hasMessageContaining("older CXC release");
        assertThat(java.nio.file.Files.readAllBytes(path)).isEqualTo(before);
    }

    // -------------------------------------------------------------------------- a reader's probe

    @Test
    void aReaderOfANameWhoseEmptyHomeEndsTheProbeSeesNoOtherSlotsHolder() {
        try (OwnerLease leases =
                OwnerLease.TYPE.create(dir.resolve("leases.cxc"), new OwnerLease.Settings(2))) {
            String held = nameWithHome(0, 2);
            leases.tryAcquire(held, PID, MINUTE).orElseThrow();
            String unbound = nameWithHome(1, 2);
            assertThat(leases.holder(unbound)).isEmpty();
            assertThat(leases.holder(held)).isPresent();
        }
    }

    @Test
    void aNameIsNotFoundInTheSlotOfALongerNameItPrefixes() {
        try (OwnerLease leases =
                        OwnerLease.TYPE.create(
                                dir.resolve("leases.cxc"), new OwnerLease.Settings(1));
                OwnerLease reader =
                        OwnerLease.open(dir.resolve("leases.cxc"), new OwnerLease.Settings(1))) {
            leases.tryAcquire("jobs", PID, MINUTE).orElseThrow();
            assertThat(reader.holder("job")).isEmpty();
            assertThat(reader.holder("jobs")).isPresent();
        }
    }
}
