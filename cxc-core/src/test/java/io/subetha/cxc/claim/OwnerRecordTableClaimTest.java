package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.ByteBuffer;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The two claims of a free record: {@link OwnerRecord#claimFirstFree} over a table, and {@link
 * OwnerRecord#claimFree}'s one-CAS re-claim by the process whose identity is still published.
 */
class OwnerRecordTableClaimTest {

    /** Four records laid out in the buffer; the tables below use the first three. */
    final AtomicBuffer body = new AtomicBuffer(ByteBuffer.allocateDirect(4 * OwnerRecord.LENGTH));

    static final IntUnaryOperator OFFSET = i -> i * OwnerRecord.LENGTH;

    private long word(int index) {
        return OwnerRecord.ownerWord(body, OFFSET.applyAsInt(index));
    }

    @Test
    void theFirstFreeRecordIsClaimedUnderItsNextGeneration() {
        OwnerRecord.claim(body, 0, 0, OwnerRecord.ownerWord(7, 1), 70, () -> 1);
        // record 1: released before, so its key is kept and the next claim raises it
        long held = OwnerRecord.ownerWord(8, 5);
        OwnerRecord.claim(body, OFFSET.applyAsInt(1), 0, held, 80, () -> 1);
        OwnerRecord.release(body, OFFSET.applyAsInt(1), held);

        OwnerRecord.Claimed claimed = OwnerRecord.claimFirstFree(body, 3, OFFSET, 9, 90, () -> 4);

        assertThat(claimed).isNotNull();
        assertThat(claimed.index()).isEqualTo(1);
        assertThat(claimed.ownerWord()).isEqualTo(OwnerRecord.ownerWord(9, 6));
        assertThat(word(1)).isEqualTo(claimed.ownerWord());
        assertThat(OwnerRecord.heartbeat(body, OFFSET.applyAsInt(1))).isEqualTo(4);
        assertThat(OwnerRecord.isOwnedBy(body, OFFSET.applyAsInt(1), claimed.ownerWord(), 9, 90))
                .isTrue();
        assertThat(word(0)).isEqualTo(OwnerRecord.ownerWord(7, 1));
    }

    @Test
    void aFullTableYieldsNullAndNothingPastItsCountIsTouched() {
        for (int i = 0; i < 3; i++) {
            OwnerRecord.claim(
                    body, OFFSET.applyAsInt(i), 0, OwnerRecord.ownerWord(7 + i, 1), 1, () -> 1);
        }
        // the fourth record is free, but outside the table of three

        assertThat(OwnerRecord.claimFirstFree(body, 3, OFFSET, 9, 90, () -> 1)).isNull();
        assertThat(word(3)).isZero();
        assertThat(OwnerRecord.claimFirstFree(body, 0, OFFSET, 9, 90, () -> 1)).isNull();
    }

    @Test
    void theSameProcessReclaimsAFreedRecordInOneCasUnderTheSameKey() {
        long mine = OwnerRecord.ownerWord(9, 3);
        OwnerRecord.claim(body, 0, 0, mine, 90, () -> 5);
        OwnerRecord.release(body, 0, mine);
        OwnerRecord.beat(body, 0, 2); // the shortcut publishes no heartbeat: this stays

        long again = OwnerRecord.claimFree(body, 0, OwnerRecord.freed(mine), 9, 90, () -> 100);

        assertThat(again).isEqualTo(mine);
        assertThat(word(0)).isEqualTo(mine);
        assertThat(OwnerRecord.heartbeat(body, 0)).isEqualTo(2);
        assertThat(OwnerRecord.isOwnedBy(body, 0, mine, 9, 90)).isTrue();
    }

    @Test
    void anotherProcessClaimsAFreedRecordUnderTheNextKeyWithItsOwnIdentity() {
        long theirs = OwnerRecord.ownerWord(9, 3);
        OwnerRecord.claim(body, 0, 0, theirs, 90, () -> 5);
        OwnerRecord.release(body, 0, theirs);

        // Same PID, another start time: a new process that reused the PID.
        long mine = OwnerRecord.claimFree(body, 0, OwnerRecord.freed(theirs), 9, 91, () -> 100);

        assertThat(mine).isEqualTo(OwnerRecord.ownerWord(9, 4));
        assertThat(word(0)).isEqualTo(mine);
        assertThat(OwnerRecord.heartbeat(body, 0)).isEqualTo(100);
        assertThat(OwnerRecord.isOwnedBy(body, 0, mine, 9, 91)).isTrue();
    }

    @Test
    void aNeverClaimedRecordIsNeverReclaimedUnderKeyZero() {
        // Key 0 with start time 0 would match the zeroed identity word of a new record.
        long mine = OwnerRecord.claimFree(body, 0, 0, 9, 0, () -> 1);

        assertThat(mine).isEqualTo(OwnerRecord.ownerWord(9, 1));
        assertThat(OwnerRecord.heartbeat(body, 0)).isEqualTo(1);
    }

    @Test
    void aClaimFreeFromAWordThatMovedOnLosesOnBothPaths() {
        long mine = OwnerRecord.ownerWord(9, 3);
        OwnerRecord.claim(body, 0, 0, mine, 90, () -> 5);
        OwnerRecord.release(body, 0, mine);
        long freed = OwnerRecord.freed(mine);
        long rival = OwnerRecord.ownerWord(10, 3);
        assertThat(body.compareAndSetLong(0, freed, rival)).isTrue();

        assertThat(OwnerRecord.claimFree(body, 0, freed, 9, 90, () -> 1))
                .isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(OwnerRecord.claimFree(body, 0, freed, 9, 91, () -> 1))
                .isEqualTo(OwnerRecord.NO_OWNER);
        assertThat(word(0)).isEqualTo(rival);
    }
}
