package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A closed handle takes part no more: what would claim it a participant record again is refused, so
 * no record is left held by a handle nobody will close.
 */
class FanoutClosedHandleTest {

    @TempDir Path dir;

    @Test
    void aClosedHandleRefusesToSubmitOrTakeAndHoldsNoRecord() {
        Path path = dir.resolve("fanout.cxc");
        PriorityFanout.Settings<Long> settings =
                new PriorityFanout.Settings<>(8, FixedCodec.INT64, Duration.ofDays(1));
        PriorityFanout<Long> f =
                PriorityFanout.TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
        try (PriorityFanout<Long> other =
                PriorityFanout.TYPE.openOrCreate(path, settings, CxcFileOptions.defaults())) {
            f.submit(1, 7L);
            FanoutClaim<Long> claim = f.claimHighest(1);
            assertThat(claim.items()).containsExactly(7L);
            f.close();
            AtomicBuffer raw = RawBody.of(path);
            assertThat(heldRecords(raw)).isZero();

            assertThatThrownBy(() -> f.submit(1, 8L))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(path.toString())
                    .hasMessageContaining("is closed")
                    .hasMessageContaining("open a new one");
            assertThatThrownBy(() -> f.drainHighest(1)).isInstanceOf(IllegalStateException.class);

            assertThat(heldRecords(raw)).isZero();
            assertThat(other.drainHighest(1)).containsExactly(7L); // close returned the claim
        }
    }

    static int heldRecords(AtomicBuffer raw) {
        int held = 0;
        for (int r = 0; r < MAX_PARTICIPANTS; r++) {
            if (OwnerRecord.pid(OwnerRecord.ownerWord(raw, participantOffset(r))) != 0) {
                held++;
            }
        }
        return held;
    }
}
