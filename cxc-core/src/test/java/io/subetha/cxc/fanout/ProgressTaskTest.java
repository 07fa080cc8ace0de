package io.subetha.cxc.fanout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProgressTaskTest {

    @TempDir Path dir;

    @Test
    void advancesAddUpAndCompletionEndsTheTaskOnce() {
        try (ProgressTask task =
                ProgressTask.TYPE.create(dir.resolve("task.cxc"), new ProgressTask.Settings(200))) {
            task.advance(50);
            task.advance(0);
            ProgressSnapshot s = task.read();
            assertThat(s.done()).isEqualTo(50);
            assertThat(s.percent()).isEqualTo(25.0);
            assertThat(s.finished()).isFalse();
            task.complete();
            task.complete(); // idempotent
            assertThat(task.read().completed()).isTrue();
            assertThat(task.fail("too late")).isFalse();
            assertThatThrownBy(() -> task.advance(1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already completed");
            assertThat(task.describe()).containsEntry("state", "completed");
        }
    }

    @Test
    void aFailedTaskSaysWhyAndCannotComplete() {
        try (ProgressTask task =
                ProgressTask.TYPE.create(dir.resolve("task.cxc"), new ProgressTask.Settings(10))) {
            task.advance(3);
            assertThat(task.fail("disk full on /data")).isTrue();
            ProgressSnapshot s = task.read();
            assertThat(s.failed()).isTrue();
            assertThat(s.reason()).contains("disk full on /data");
            assertThatThrownBy(task::complete).hasMessageContaining("disk full on /data");
            assertThat(task.describe()).containsEntry("state", "failed");
        }
        try (ProgressTask task =
                ProgressTask.TYPE.create(dir.resolve("long.cxc"), new ProgressTask.Settings(10))) {
            task.fail("é".repeat(400));
            assertThat(task.read().reason().orElseThrow()).isEqualTo("é".repeat(128));
        }
    }

    @Test
    void aFailerKilledBeforeItRecordedItsReasonLeavesAFailedTaskWithTheReasonUnknown() {
        Path path = dir.resolve("task.cxc");
        try (ProgressTask task = ProgressTask.TYPE.create(path, new ProgressTask.Settings(10))) {
            long deadPid;
            try (ChildJvm child =
                    ChildJvm.start("failer", ProgressChild.class, path.toString(), "0")) {
                child.awaitPrefixed("advanced", Duration.ofSeconds(60));
                deadPid = child.pid();
                child.kill();
                child.waitForExit(Duration.ofSeconds(60));
            }
            // What a failer killed between its CAS and its reason leaves behind.
            RawBody.of(path)
                    .setLongVolatile(
                            ProgressTaskDescriptor.STATE_OFFSET,
                            ProgressTaskDescriptor.stateWord(
                                    ProgressTaskDescriptor.FAILING, deadPid));
            ProgressSnapshot s = task.read();
            assertThat(s.failed()).isTrue();
            assertThat(s.reason().orElseThrow()).contains("died while recording it");
            assertThat(task.fail("second")).isFalse();
            assertThatThrownBy(() -> task.advance(1)).hasMessageContaining("already failed");
        }
    }

    @Test
    void badInputIsRefusedWithTheArgumentAndTheLimit() {
        assertThatThrownBy(
                        () ->
                                ProgressTask.TYPE.create(
                                        dir.resolve("zero.cxc"), new ProgressTask.Settings(0)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("total must be 1 or more")
                .hasMessageContaining("got 0");
        try (ProgressTask task =
                ProgressTask.TYPE.create(dir.resolve("task.cxc"), new ProgressTask.Settings(10))) {
            assertThatThrownBy(() -> task.advance(-1)).hasMessageContaining("got -1");
            assertThatThrownBy(() -> task.fail(" ")).hasMessageContaining("reason");
        }
        assertThatThrownBy(
                        () ->
                                ProgressTask.openOrCreate(
                                        dir.resolve("task.cxc"), new ProgressTask.Settings(11)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("10 units, not 11");
    }

    @Test
    void workersInTwoJvmsAdvanceOneTaskAndTheParentSeesEveryUnit() {
        Path path = dir.resolve("task.cxc");
        try (ProgressTask task =
                ProgressTask.TYPE.create(path, new ProgressTask.Settings(40_000))) {
            List<ChildJvm> workers = new ArrayList<>();
            try {
                for (int i = 0; i < 2; i++) {
                    workers.add(
                            ChildJvm.start(
                                    "worker-" + i, ProgressChild.class, path.toString(), "20000"));
                }
                for (ChildJvm w : workers) {
                    w.awaitPrefixed("advanced", Duration.ofSeconds(60));
                }
            } finally {
                workers.forEach(ChildJvm::close);
            }
            assertThat(task.read().done()).isEqualTo(40_000);
            assertThat(task.read().ratio()).isEqualTo(1.0);
            task.complete();
        }
        try (ProgressTask reopened = ProgressTask.open(path)) {
            assertThat(reopened.read().completed()).isTrue();
        }
    }
}
