package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.ProcessProbe;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The identity word is valid only for the key it names: a start time published under an earlier key
 * never vouches for a later owner, and a publisher whose record moved on writes nothing.
 */
class OwnerRecordIdentityTest {

    static final int RECORD = 8;

    final AtomicBuffer body = new AtomicBuffer(ByteBuffer.allocateDirect(64));

    @Test
    void anIdentityPublishedUnderAnEarlierKeyDoesNotVouchForTheNextOwner() {
        long first = OwnerRecord.ownerWord(42, 1);
        assertThat(OwnerRecord.claim(body, RECORD, 0, first, 777, () -> 1)).isTrue();
        // The same PID again under the next key, its identity not yet published (a claim in
        // flight, or a crash between the CAS and the publication).
        long second = OwnerRecord.ownerWord(42, 2);
        assertThat(body.compareAndSetLong(RECORD, first, second)).isTrue();

        assertThat(OwnerRecord.isOwnedBy(body, RECORD, second, 42, 777)).isFalse();
        assertThat(OwnerRecord.startTime(body, RECORD, second))
                .isEqualTo(ProcessProbe.UNKNOWN_START_TIME);

        OwnerRecord.publishIdentity(body, RECORD, second, 777);
        assertThat(OwnerRecord.isOwnedBy(body, RECORD, second, 42, 777)).isTrue();
    }

    @Test
    void aPublisherWhoseRecordMovedOnWritesNothing() {
        long first = OwnerRecord.ownerWord(42, 1);
        OwnerRecord.claim(body, RECORD, 0, first, 777, () -> 1);
        assertThat(OwnerRecord.release(body, RECORD, first)).isTrue();
        long second = OwnerRecord.ownerWord(43, 2);
        assertThat(OwnerRecord.claim(body, RECORD, OwnerRecord.freed(first), second, 888, () -> 1))
                .isTrue();
        long identity = body.getLongVolatile(RECORD + OwnerRecord.IDENTITY_OFFSET);

        // The first owner, paused past its ownership, publishes late.
        OwnerRecord.publishIdentity(body, RECORD, first, 777);

        assertThat(body.getLongVolatile(RECORD + OwnerRecord.IDENTITY_OFFSET)).isEqualTo(identity);
        assertThat(OwnerRecord.startTime(body, RECORD, second)).isEqualTo(888);
    }

    @Test
    void publishingTheSameIdentityAgainIsANoOp() {
        long word = OwnerRecord.ownerWord(42, 1);
        OwnerRecord.claim(body, RECORD, 0, word, 777, () -> 1);
        long identity = body.getLongVolatile(RECORD + OwnerRecord.IDENTITY_OFFSET);

        OwnerRecord.publishIdentity(body, RECORD, word, 777);

        assertThat(body.getLongVolatile(RECORD + OwnerRecord.IDENTITY_OFFSET)).isEqualTo(identity);
        assertThat(identity).isEqualTo((1L << 32) | 777);
    }
}
