package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.PriorityFanoutDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handle whose look behind the head found nothing (the returned-items hint left high, as a crash
 * leaves it) still takes an item another handle returns afterwards ahead of the level's later
 * items: it looks again once the hint moves, not only after its own next scan.
 */
class FanoutReturnedAfterAnEmptyLookTest {

    static final int CAPACITY = 8;
    static final int LEVEL = 2;

    @TempDir Path dir;
    Path path;
    final List<PriorityFanout<Long>> handles = new ArrayList<>();
    AtomicBuffer raw;

    @BeforeEach
    void open() {
        path = dir.resolve("fanout.cxc");
        handle();
        raw = RawBody.of(path);
    }

    @AfterEach
    void close() {
        handles.forEach(PriorityFanout::close);
    }

    PriorityFanout<Long> handle() {
        PriorityFanout<Long> h =
                PriorityFanout.TYPE.openOrCreate(
                        path,
                        new PriorityFanout.Settings<>(
                                CAPACITY, FixedCodec.INT64, Duration.ofDays(1)),
                        CxcFileOptions.defaults());
        handles.add(h);
        return h;
    }

    long hint() {
        return raw.getLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET);
    }

    int slot(long position) {
        return SLOTS_OFFSET + (LEVEL * CAPACITY + (int) (position % CAPACITY)) * slotStride(8);
    }

    @Test
    void anItemAnotherHandleReleasesAfterAnEmptyLookIsTakenAheadOfLaterItems() {
        PriorityFanout<Long> taker = handles.get(0);
        PriorityFanout<Long> other = handle();
        raw.setLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET, 1); // left high by a crash
        assertThat(taker.drainHighest(1)).isEmpty(); // its look behind the head finds nothing
        taker.submit(LEVEL, 10L);
        FanoutClaim<Long> claim = other.claimHighest(1);
        assertThat(claim.items()).containsExactly(10L);
        assertThat(claim.release()).isEqualTo(1);
        assertThat(hint()).isEqualTo(2);
        taker.submit(LEVEL, 11L);

        assertThat(taker.drainHighest(1)).containsExactly(10L);

        assertThat(hint()).isEqualTo(1);
        assertThat(taker.drainHighest(1)).containsExactly(11L);
    }

    @Test
    void aHandleWhoseLookFoundNothingTakesLaterItemsAtTheHeadWhileTheHintStaysPut() {
        PriorityFanout<Long> taker = handles.get(0);
        raw.setLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET, 1);
        assertThat(taker.drainHighest(1)).isEmpty();
        taker.submit(LEVEL, 20L);
        taker.submit(LEVEL, 21L);

        assertThat(taker.drainHighest(2)).containsExactly(20L, 21L);

        assertThat(hint()).isEqualTo(1); // the crash's residue: no take behind the head lowered it
    }

    @Test
    void aReturnTheEmptyLookRacedIsTakenAfterTheHandlesNextScan() {
        PriorityFanout<Long> taker = handles.get(0);
        PriorityFanout<Long> other = handle();
        taker.submit(LEVEL, 30L);
        FanoutClaim<Long> claim = other.claimHighest(1);
        assertThat(claim.items()).containsExactly(30L);
        raw.setLongVolatile(levelOffset(LEVEL) + RETURNED_OFFSET, 1); // the return's raise ...
        assertThat(taker.drainHighest(1)).isEmpty(); // ... read by a look that found nothing
        long claimed = raw.getLongVolatile(slot(0));
        raw.setLongVolatile(slot(0), pack(0, FULL, 0, 0)); // ... then its CAS: the hint unmoved
        taker.submit(LEVEL, 31L);
        assertThat(claimed).isNotEqualTo(raw.getLongVolatile(slot(0)));

        assertThat(taker.drainHighest(1)).containsExactly(31L);
        taker.scan();
        assertThat(taker.drainHighest(1)).containsExactly(30L);
        assertThat(hint()).isZero();
    }
}
