package io.subetha.cxc.participant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A handle's participant record over a table of three records in a plain buffer: claimed on first
 * use and kept, beaten when due, refused to a closed handle and when every record is held by a live
 * process (after two scans), every held record judged (a dead one repaired and freed, a silent one
 * repaired and kept, a live one left alone), and left (its slots repaired as a live participant's,
 * its record freed, once).
 */
class ParticipantRecordTest {

    static final long PID = Pids.current();
    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final int COUNT = 3;
    static final long DAY = Duration.ofDays(1).toNanos();
    static final Path FILE = Path.of("/dev/shm/participants.cxc");

    final AtomicBuffer body = new AtomicBuffer(ByteBuffer.allocateDirect(COUNT * 64));
    final List<String> repairs = new ArrayList<>();
    int scans;

    static int offset(int index) {
        return index * 64;
    }

    ParticipantRecord record(long graceNanos) {
        return new ParticipantRecord(
                body,
                COUNT,
                ParticipantRecordTest::offset,
                graceNanos,
                PID,
                FILE,
                () -> {},
                () -> scans++);
    }

    void plant(int index, long pid, long generation, long heartbeat) {
        body.setLongVolatile(offset(index) + OwnerRecord.HEARTBEAT_OFFSET, heartbeat);
        body.setLongVolatile(
                offset(index) + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.ownerWord(pid, generation));
    }

    ParticipantRecord.Repair logging() {
        return (index, generation, dead) -> repairs.add(index + "/" + generation + "/" + dead);
    }

    @Test
    void theFirstUseClaimsTheFirstFreeRecordAndKeepsIt() {
        plant(0, PID, 4, System.nanoTime());
        ParticipantRecord record = record(DAY);

        long tag = record.tag();

        assertThat(ParticipantRecord.indexOf(tag)).isEqualTo(1);
        assertThat(ParticipantRecord.generationOf(tag)).isEqualTo(1);
        assertThat(tag).isEqualTo(ParticipantRecord.tag(1, OwnerRecord.ownerWord(PID, 1)));
        assertThat(OwnerRecord.ownerWord(body, offset(1))).isEqualTo(OwnerRecord.ownerWord(PID, 1));
        assertThat(record.tag()).isEqualTo(tag);
        assertThat(record.held()).isEqualTo(2);
        assertThat(scans).isZero();
    }

    @Test
    void aClosedHandleIsRefusedBeforeItClaims() {
        ParticipantRecord record =
                new ParticipantRecord(
                        body,
                        COUNT,
                        ParticipantRecordTest::offset,
                        DAY,
                        PID,
                        FILE,
                        () -> {
                            throw new IllegalStateException("closed");
                        },
                        () -> scans++);

        assertThatThrownBy(record::tag).hasMessage("closed");
        assertThat(record.held()).isZero();
    }

    @Test
    void aTableOfLiveRecordsIsScannedTwiceAndThenACapacityError() {
        for (int i = 0; i < COUNT; i++) {
            plant(i, PID, 1, System.nanoTime());
        }
        ParticipantRecord record = record(DAY);

        assertThatThrownBy(record::heartbeat)
                .isInstanceOf(CxcCapacityException.class)
                .hasMessage(
                        FILE
                                + " has no free participant record: all 3 are held by live"
                                + " handles; close handles you no longer use");
        assertThat(scans).isEqualTo(2);
    }

    @Test
    void aRecordFreedUnderTheHandleIsClaimedAgainWithTheNextGeneration() {
        ParticipantRecord record = record(DAY);
        long first = record.tag();
        body.setLongVolatile(
                offset(0) + OwnerRecord.OWNER_WORD_OFFSET,
                OwnerRecord.freed(OwnerRecord.ownerWord(PID, 1)));

        long second = record.tag();

        assertThat(ParticipantRecord.indexOf(second)).isZero();
        assertThat(ParticipantRecord.generationOf(second)).isEqualTo(2);
        assertThat(second).isNotEqualTo(first);
    }

    @Test
    void aDayGraceBeatsOnlyOnHeartbeatAndANanosecondGraceWhenever() throws Exception {
        ParticipantRecord slow = record(DAY);
        slow.tag();
        long registered = OwnerRecord.heartbeat(body, offset(0));
        slow.beatIfDue();
        slow.tag();
        assertThat(OwnerRecord.heartbeat(body, offset(0))).isEqualTo(registered);
        long before = System.nanoTime();
        slow.heartbeat();
        assertThat(OwnerRecord.heartbeat(body, offset(0))).isGreaterThanOrEqualTo(before);

        ParticipantRecord quick = record(1);
        quick.tag(); // record 1
        long claimed = OwnerRecord.heartbeat(body, offset(1));
        long now = System.nanoTime();
        while (System.nanoTime() == now) {
            Thread.onSpinWait();
        }
        quick.beatIfDue();
        assertThat(OwnerRecord.heartbeat(body, offset(1))).isGreaterThan(claimed);
    }

    @Test
    void aRecordTakenOverIsNotBeatenByItsFormerHandle() {
        ParticipantRecord quick = record(1);
        quick.tag();
        plant(0, DEAD_PID, 7, 42);

        quick.beatIfDue();

        assertThat(OwnerRecord.heartbeat(body, offset(0))).isEqualTo(42);
    }

    @Test
    void judgingRepairsTheDeadAndFreesThemRepairsTheSilentAndLeavesTheLive() {
        plant(0, DEAD_PID, 3, System.nanoTime());
        plant(1, PID, 5, System.nanoTime() - 2 * DAY);
        plant(2, PID, 6, System.nanoTime());

        int freed = record(DAY).judgeAll(logging());

        assertThat(freed).isEqualTo(1);
        assertThat(repairs).containsExactly("0/3/true", "1/5/false");
        assertThat(OwnerRecord.ownerWord(body, offset(0))).isEqualTo(OwnerRecord.freed(3L << 32));
        assertThat(OwnerRecord.pid(OwnerRecord.ownerWord(body, offset(1)))).isEqualTo(PID);
        assertThat(record(DAY).judgeAll(logging())).isZero();
    }

    @Test
    void leavingRepairsTheHandlesOwnSlotsAsLiveAndFreesItsRecordOnce() {
        ParticipantRecord record = record(DAY);
        record.leave(logging()); // never took part: nothing to do
        assertThat(repairs).isEmpty();
        record.tag();

        record.leave(logging());
        record.leave(logging());

        assertThat(repairs).containsExactly("0/1/false");
        assertThat(record.held()).isZero();
        assertThat(OwnerRecord.ownerWord(body, offset(0))).isEqualTo(OwnerRecord.freed(1L << 32));
    }

    @Test
    void leavingARecordTakenOverTouchesNothing() {
        ParticipantRecord record = record(DAY);
        record.tag();
        plant(0, DEAD_PID, 9, 42);

        record.leave(logging());

        assertThat(repairs).isEmpty();
        assertThat(OwnerRecord.ownerWord(body, offset(0)))
                .isEqualTo(OwnerRecord.ownerWord(DEAD_PID, 9));
    }
}
