package io.subetha.cxc.lease;

import static io.subetha.cxc.lease.OwnerLeaseBindingTest.nameWithHome;
import static io.subetha.cxc.lease.OwnerLeaseDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader's probe for a name ends where the name would be, and never answers with another slot: an
 * empty home slot or one being bound is "not bound", and a bound slot is the name's only when its
 * length and hash match (a name is not found in the slot of a longer name it prefixes). And the
 * binding word keeps a binder's PID and start time apart, for small values too.
 */
class OwnerLeaseProbeTest {

    static final long PID = Pids.current();
    static final Duration MINUTE = Duration.ofMinutes(1);

    @TempDir Path dir;

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
    void aReaderOfANameWhoseHomeIsBeingBoundSeesNoOtherSlotsHolder() {
        Path path = dir.resolve("leases.cxc");
        try (OwnerLease leases = OwnerLease.TYPE.create(path, new OwnerLease.Settings(2))) {
            String held = nameWithHome(0, 2);
            leases.tryAcquire(held, PID, MINUTE).orElseThrow();
            AtomicBuffer raw = RawBody.of(path);
            raw.setLongVolatile(
                    slotOffset(1) + BIND_WORD_OFFSET,
                    bindingWord(1, ProcessProbe.startTime(1))); // init, binding forever
            assertThat(leases.holder(nameWithHome(1, 2))).isEmpty();
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

    @Test
    void aBindingWordKeepsASmallPidAndStartTimeApart() {
        long binding = bindingWord(5, 3);
        assertThat(binderPid(binding)).isEqualTo(5);
        assertThat(binderStartTime(binding)).isEqualTo(3);
        assertThat(binding).isEqualTo((3L << 32) | 5);
    }
}
