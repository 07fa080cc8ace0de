package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.ProgressTaskDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A progress task's state word, reason and last-update words as each ending leaves them, a failer
 * stopped between its CAS and its publish (alive: no reason yet; dead: reason unknown), a reason
 * cut at the limit on a character boundary, the body checks an opener makes, and the figures a
 * reader and {@code describe()} derive.
 */
class ProgressTaskEndingWordsTest {

    /** A PID no process can have (above every kernel's pid_max): always provably dead. */
    static final long DEAD_PID = Pids.MAX_PID - 1;

    static final long OWN_PID = ProcessHandle.current().pid();

    @TempDir Path dir;

    @Test
    void completingWritesTheCompletedWordUnderThisPidOnceAndAgainIsANoOp() {
        Path path = dir.resolve("t.cxc");
        try (ProgressTask task = ProgressTask.TYPE.create(path, new ProgressTask.Settings(4))) {
            AtomicBuffer raw = RawBody.of(path);
            raw.setLongVolatile(LAST_UPDATE_OFFSET, 0);
            task.complete();
            assertThat(raw.getLongVolatile(STATE_OFFSET)).isEqualTo(stateWord(COMPLETED, OWN_PID));
            assertThat(raw.getLongVolatile(LAST_UPDATE_OFFSET)).isPositive();
            raw.setLongVolatile(LAST_UPDATE_OFFSET, 7);
            task.complete(); // already completed: nothing written
            assertThat(raw.getLongVolatile(LAST_UPDATE_OFFSET)).isEqualTo(7);
            assertThat(task.fail("late")).isFalse();
            assertThat(raw.getLongVolatile(STATE_OFFSET)).isEqualTo(stateWord(COMPLETED, OWN_PID));
            assertThat(raw.getIntVolatile(REASON_LENGTH_OFFSET)).isZero();
            assertThatThrownBy(() -> task.advance(1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("cannot advance " + path + ": the task already completed");
            ProgressSnapshot s = task.read();
            assertThat(s.completed()).isTrue();
            assertThat(s.failed()).isFalse();
            assertThat(s.finished()).isTrue();
            assertThat(s.reason()).isEmpty();
            assertThat(task.opCounters().get(ProgressTask.Op.COMPLETE)).isEqualTo(2);
            assertThat(task.opCounters().get(ProgressTask.Op.FAIL)).isEqualTo(1);
            assertThat(task.opCounters().get(ProgressTask.Op.ADVANCE)).isZero();
        }
    }

    @Test
    void failingWritesTheReasonThenPublishesFailedUnderThisPid() {
        Path path = dir.resolve("t.cxc");
        try (ProgressTask task = ProgressTask.TYPE.create(path, new ProgressTask.Settings(4))) {
            AtomicBuffer raw = RawBody.of(path);
            raw.setLongVolatile(LAST_UPDATE_OFFSET, 0);
            assertThat(task.fail("no disk")).isTrue();
            assertThat(raw.getLongVolatile(STATE_OFFSET)).isEqualTo(stateWord(FAILED, OWN_PID));
            assertThat(raw.getIntVolatile(REASON_LENGTH_OFFSET)).isEqualTo(7);
            byte[] bytes = new byte[7];
            raw.getBytes(REASON_OFFSET, bytes);
            assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("no disk");
            assertThat(raw.getLongVolatile(LAST_UPDATE_OFFSET)).isPositive();
            assertThat(task.fail("again")).isFalse();
            assertThat(raw.getIntVolatile(REASON_LENGTH_OFFSET)).isEqualTo(7);
            assertThatThrownBy(task::complete)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("cannot complete " + path + ": the task already failed (no disk)");
            assertThat(raw.getLongVolatile(STATE_OFFSET)).isEqualTo(stateWord(FAILED, OWN_PID));
        }
    }

    @Test
    void aFailerStillWritingItsReasonIsReportedFailedWithoutOneAndADeadOneWithReasonUnknown() {
        Path path = dir.resolve("t.cxc");
        try (ProgressTask task = ProgressTask.TYPE.create(path, new ProgressTask.Settings(4))) {
            AtomicBuffer raw = RawBody.of(path);
            raw.setLongVolatile(STATE_OFFSET, stateWord(FAILING, OWN_PID));
            ProgressSnapshot writing = task.read();
            assertThat(writing.failed()).isTrue();
            assertThat(writing.completed()).isFalse();
            assertThat(writing.reason()).isEmpty();
            assertThatThrownBy(task::complete)
                    .hasMessage(
                            "cannot complete "
                                    + path
                                    + ": the task already failed (reason unknown)");
            assertThat(task.describe()).containsEntry("state", "failed");
            raw.setLongVolatile(STATE_OFFSET, stateWord(FAILING, DEAD_PID));
            assertThat(task.read().reason())
                    .contains("unknown: process " + DEAD_PID + " died while recording it");
            assertThat(task.fail("mine")).isFalse();
            assertThat(raw.getLongVolatile(STATE_OFFSET)).isEqualTo(stateWord(FAILING, DEAD_PID));
        }
    }

    @Test
    void aPublishedReasonIsReadOnlyWithinItsBounds() {
        Path path = dir.resolve("t.cxc");
        try (ProgressTask task = ProgressTask.TYPE.create(path, new ProgressTask.Settings(4))) {
            AtomicBuffer raw = RawBody.of(path);
            task.fail("x".repeat(MAX_REASON_BYTES));
            assertThat(task.read().reason()).contains("x".repeat(MAX_REASON_BYTES));
            raw.setIntVolatile(REASON_LENGTH_OFFSET, MAX_REASON_BYTES + 1);
            assertThat(task.read().failed()).isTrue();
            assertThat(task.read().reason()).isEmpty();
            raw.setIntVolatile(REASON_LENGTH_OFFSET, -1);
            assertThat(task.read().reason()).isEmpty();
            raw.setIntVolatile(REASON_LENGTH_OFFSET, 0);
            assertThat(task.read().reason()).contains("");
        }
    }

    @Test
    void aLongReasonIsCutAtTheLimitWithoutSplittingACharacter() {
        String[] reasons = {
            "a".repeat(MAX_REASON_BYTES + 1),
            "a".repeat(MAX_REASON_BYTES - 1) + "é", // its second byte would be the 257th
            "a".repeat(MAX_REASON_BYTES - 2) + "€", // three bytes, two past the limit
            "a".repeat(MAX_REASON_BYTES - 1) + "b"
        };
        String[] kept = {
            "a".repeat(MAX_REASON_BYTES),
            "a".repeat(MAX_REASON_BYTES - 1),
            "a".repeat(MAX_REASON_BYTES - 2),
            "a".repeat(MAX_REASON_BYTES - 1) + "b"
        };
        for (int i = 0; i < reasons.length; i++) {
            try (ProgressTask task =
                    ProgressTask.TYPE.create(
                            dir.resolve(i + ".cxc"), new ProgressTask.Settings(4))) {
                task.fail(reasons[i]);
                assertThat(task.read().reason()).as("reason %d", i).contains(kept[i]);
            }
        }
    }

    @Test
    void theLastUpdateOnlyMovesForward() {
        Path path = dir.resolve("t.cxc");
        try (ProgressTask task = ProgressTask.TYPE.create(path, new ProgressTask.Settings(4))) {
            AtomicBuffer raw = RawBody.of(path);
            long later = System.currentTimeMillis() + 3_600_000;
            raw.setLongVolatile(LAST_UPDATE_OFFSET, later);
            task.advance(1);
            assertThat(raw.getLongVolatile(LAST_UPDATE_OFFSET)).isEqualTo(later);
            assertThat(task.read().lastUpdate()).isEqualTo(Instant.ofEpochMilli(later));
            raw.setLongVolatile(LAST_UPDATE_OFFSET, 5);
            long before = System.currentTimeMillis();
            task.advance(0);
            assertThat(raw.getLongVolatile(LAST_UPDATE_OFFSET)).isGreaterThanOrEqualTo(before);
            assertThat(task.read().done()).isEqualTo(1);
            assertThat(task.opCounters().get(ProgressTask.Op.ADVANCE)).isEqualTo(2);
            assertThat(task.opCounters().get(ProgressTask.Op.READ)).isEqualTo(2);
        }
    }

    @Test
    void anOpenerRefusesABodyOutsideItsBounds() {
        Path path = dir.resolve("t.cxc");
        ProgressTask.TYPE.create(path, new ProgressTask.Settings(4)).close();
        AtomicBuffer raw = RawBody.of(path);
        raw.setIntVolatile(REASON_LENGTH_OFFSET, MAX_REASON_BYTES);
        raw.setLongVolatile(STATE_OFFSET, stateWord(FAILED, 1));
        try (ProgressTask task = ProgressTask.open(path)) {
            assertThat(task.read().failed()).isTrue();
        }
        raw.setIntVolatile(REASON_LENGTH_OFFSET, MAX_REASON_BYTES + 1);
        assertThatThrownBy(() -> ProgressTask.open(path))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("257-byte failure reason, outside 0..256");
        raw.setIntVolatile(REASON_LENGTH_OFFSET, -1);
        assertThatThrownBy(() -> ProgressTask.open(path))
                .hasMessageContaining("4294967295-byte failure reason");
        raw.setIntVolatile(REASON_LENGTH_OFFSET, 0);
        raw.setLongVolatile(STATE_OFFSET, stateWord(FAILED + 1, 1));
        assertThatThrownBy(() -> ProgressTask.open(path))
                .hasMessageContaining("it declares state 4, not one of 0..3");
        raw.setLongVolatile(STATE_OFFSET, stateWord(RUNNING, 0) | 0xFFFF_FFFFL);
        assertThatThrownBy(() -> ProgressTask.open(path))
                .hasMessageContaining("it declares state -1");
        raw.setLongVolatile(STATE_OFFSET, stateWord(RUNNING, 0));
        raw.setLongVolatile(TOTAL_OFFSET, 0);
        assertThatThrownBy(() -> ProgressTask.open(path))
                .hasMessageContaining("it declares a total of 0 units, not 1 or more");
        raw.setLongVolatile(TOTAL_OFFSET, 1);
        try (ProgressTask task = ProgressTask.open(path)) {
            assertThat(task.total()).isEqualTo(1);
        }
    }

    @Test
    void describeAndTheSnapshotDeriveTheirFiguresFromTheWords() {
        Path path = dir.resolve("t.cxc");
        try (ProgressTask task = ProgressTask.TYPE.create(path, new ProgressTask.Settings(3))) {
            AtomicBuffer raw = RawBody.of(path);
            assertThat(task.describe())
                    .containsEntry("done", 0L)
                    .containsEntry("total", 3L)
                    .containsEntry("percent", 0.0)
                    .containsEntry("state", "running");
            task.advance(1);
            assertThat(task.describe()).containsEntry("percent", 33.3);
            task.advance(1);
            assertThat(task.describe()).containsEntry("percent", 66.7);
            task.advance(5);
            assertThat(task.describe()).containsEntry("done", 7L).containsEntry("percent", 100.0);
            raw.setLongVolatile(DONE_OFFSET, -5);
            assertThat(task.describe()).containsEntry("percent", 0.0);
            raw.setLongVolatile(LAST_UPDATE_OFFSET, 1_000);
            assertThat(task.describe()).containsEntry("lastUpdate", "1970-01-01T00:00:01Z");
            raw.setLongVolatile(STATE_OFFSET, stateWord(FAILED, 1));
            assertThat(task.describe()).containsEntry("state", "failed");
            raw.setLongVolatile(STATE_OFFSET, stateWord(COMPLETED, 1));
            assertThat(task.describe()).containsEntry("state", "completed");
        }
        Instant t = Instant.EPOCH;
        assertThat(new ProgressSnapshot(1, 4, false, false, null, t).ratio()).isEqualTo(0.25);
        assertThat(new ProgressSnapshot(1, 4, false, false, null, t).percent()).isEqualTo(25.0);
        assertThat(new ProgressSnapshot(9, 4, false, false, null, t).ratio()).isEqualTo(1.0);
        assertThat(new ProgressSnapshot(-2, 4, false, false, null, t).ratio()).isZero();
        assertThat(new ProgressSnapshot(3, 0, false, false, null, t).ratio()).isZero();
        assertThat(new ProgressSnapshot(3, -1, false, false, null, t).ratio()).isZero();
        assertThat(new ProgressSnapshot(3, 1, false, false, null, t).ratio()).isEqualTo(1.0);
        assertThat(new ProgressSnapshot(0, 4, false, false, null, t).finished()).isFalse();
        assertThat(new ProgressSnapshot(0, 4, true, false, null, t).finished()).isTrue();
        assertThat(new ProgressSnapshot(0, 4, false, true, null, t).finished()).isTrue();
    }

    @Test
    void theStateWordCarriesTheStateLowAndTheWholePidHigh() {
        long word = stateWord(FAILED, 0xFFFF_FFFFL);
        assertThat(state(word)).isEqualTo(FAILED);
        assertThat(pid(word)).isEqualTo(0xFFFF_FFFFL);
        assertThat(word).isEqualTo(0xFFFF_FFFF_0000_0003L);
    }

    @Test
    void openOrCreateRefusesAnotherTotalAndAcceptsItsOwn() {
        Path path = dir.resolve("t.cxc");
        try (ProgressTask task = ProgressTask.openOrCreate(path, new ProgressTask.Settings(8))) {
            assertThat(task.total()).isEqualTo(8);
            try (ProgressTask again =
                    ProgressTask.openOrCreate(path, new ProgressTask.Settings(8))) {
                assertThat(again.createdFile()).isFalse();
            }
            assertThatThrownBy(() -> ProgressTask.openOrCreate(path, new ProgressTask.Settings(9)))
                    .isInstanceOf(CxcSettingsException.class)
                    .hasMessage(
                            path
                                    + " is a task of 8 units, not 9: give it the total it was"
                                    + " created with, or a new file");
        }
        assertThatThrownBy(() -> new ProgressTask.Settings(0))
                .hasMessageContaining("total must be 1 or more units of work, got 0");
        assertThat(new ProgressTask.Settings(1).total()).isEqualTo(1);
    }
}
