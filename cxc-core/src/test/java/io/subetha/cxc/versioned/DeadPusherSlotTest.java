package io.subetha.cxc.versioned;

import static io.subetha.cxc.versioned.SharedVersionedChainDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pusher killed holding its slot, planted in the file as the kill leaves it (the slot claimed
 * under its version's lap by a PID no process can have, the value and stamp not written): its
 * version reads NOT_WRITTEN, is passed over by {@code current()}, and the next push to that slot
 * takes it over at once; versions read before, at and after the retained window say why.
 */
class DeadPusherSlotTest {

    /** A PID no process can have (above every kernel's pid_max): always provably dead. */
    static final long DEAD_PID = Pids.MAX_PID - 1;

    static final int RETAINED = 2;
    static final int STRIDE = strideFor(8);

    @TempDir Path dir;

    @Test
    void aDeadPushersVersionIsNotWrittenAndItsSlotIsTakenOverByTheNextLap() {
        Path path = dir.resolve("chain.cxc");
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        path, new SharedVersionedChain.Settings<>(RETAINED, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            assertThat(chain.push(10L)).isEqualTo(1);
            // Version 2 given to a pusher that claimed its slot and was killed before writing.
            raw.setLongVolatile(VERSIONS_OFFSET, 2);
            int slot = slotOffset(2, RETAINED, STRIDE);
            raw.setLongVolatile(
                    slot + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(DEAD_PID, lapKey(2, RETAINED)));

            assertThat(chain.lookup(2).status()).isEqualTo(VersionRead.Status.NOT_WRITTEN);
            assertThat(chain.current()).contains(10L);
            assertThat(chain.lookup(3).status()).isEqualTo(VersionRead.Status.NEVER_PUSHED);
            assertThat(chain.lookup(0).status()).isEqualTo(VersionRead.Status.NEVER_PUSHED);

            assertThat(chain.push(30L)).isEqualTo(3); // version 1's slot, free
            assertThat(chain.push(40L)).isEqualTo(4); // the dead pusher's slot, taken over

            assertThat(chain.readAt(4)).contains(40L);
            assertThat(chain.readAt(3)).contains(30L);
            assertThat(chain.lookup(2).status()).isEqualTo(VersionRead.Status.NOT_RETAINED);
            assertThat(chain.lookup(1).status()).isEqualTo(VersionRead.Status.NOT_RETAINED);
            assertThat(chain.current()).contains(40L);
            long owner = OwnerRecord.ownerWord(raw, slot);
            assertThat(OwnerRecord.pid(owner)).isEqualTo(OwnerRecord.NO_OWNER);
            assertThat(OwnerRecord.key(owner)).isEqualTo(lapKey(4, RETAINED));
            assertThat(raw.getLongVolatile(slot + STAMP_OFFSET)).isEqualTo(4);
        }
    }

    @Test
    void aDeadPushersVersionIsPassedOverByCurrentWhenItIsTheNewest() {
        Path path = dir.resolve("chain.cxc");
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        path, new SharedVersionedChain.Settings<>(3, FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            chain.push(1L);
            chain.push(2L);
            raw.setLongVolatile(VERSIONS_OFFSET, 3);
            raw.setLongVolatile(
                    slotOffset(3, 3, STRIDE) + OwnerRecord.OWNER_WORD_OFFSET,
                    OwnerRecord.ownerWord(DEAD_PID, lapKey(3, 3)));
            assertThat(chain.current()).contains(2L);
            assertThat(chain.lookup(3).status()).isEqualTo(VersionRead.Status.NOT_WRITTEN);
            assertThat(chain.lookup(3).isReadable()).isFalse();
            assertThat(chain.push(4L)).isEqualTo(4);
            assertThat(chain.current()).contains(4L);
        }
    }
}
