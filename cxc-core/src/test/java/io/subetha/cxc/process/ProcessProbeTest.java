package io.subetha.cxc.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProcessProbeTest {

    @Test
    void thisProcessIsAliveWithItsOwnStartTime() {
        long me = Pids.current();
        long startTime = ProcessProbe.startTime(me);
        assertThat(startTime).isNotEqualTo(ProcessProbe.UNKNOWN_START_TIME);
        assertThat(ProcessProbe.status(me, startTime)).isEqualTo(ProcessStatus.ALIVE);
        assertThat(ProcessProbe.status(me, ProcessProbe.UNKNOWN_START_TIME))
                .isEqualTo(ProcessStatus.ALIVE);
    }

    @Test
    void anotherStartTimeMeansThePidWasReused() {
        long me = Pids.current();
        assertThat(ProcessProbe.status(me, ProcessProbe.startTime(me) + 1))
                .isEqualTo(ProcessStatus.DEAD);
    }

    @Test
    void anExitedProcessIsDead() throws Exception {
        Process child = new ProcessBuilder("true").start();
        child.waitFor();
        assertThat(ProcessProbe.status(child.pid(), ProcessProbe.UNKNOWN_START_TIME))
                .isEqualTo(ProcessStatus.DEAD);
        assertThat(ProcessProbe.startTime(child.pid())).isEqualTo(ProcessProbe.UNKNOWN_START_TIME);
    }

    @Test
    void aZombieIsDeadAlthoughItsPidIsStillPresent() throws Exception {
        // The shell execs "sleep 60", which inherits the background child and never reaps it: when
        // the child exits (after the exec, hence its own short sleep) it stays a zombie.
        Process parent =
                new ProcessBuilder("sh", "-c", "sleep 0.3 & echo $!; exec sleep 60").start();
        try {
            long zombie;
            try (BufferedReader out =
                    new BufferedReader(
                            new InputStreamReader(
                                    parent.getInputStream(), StandardCharsets.US_ASCII))) {
                zombie = Long.parseLong(out.readLine().trim());
                await().atMost(Duration.ofSeconds(10))
                        .until(
                                () ->
                                        ProcessProbe.status(zombie, ProcessProbe.UNKNOWN_START_TIME)
                                                == ProcessStatus.DEAD);
                assertThat(ProcessHandle.of(zombie))
                        .as("a zombie still looks present to ProcessHandle")
                        .isPresent();
            }
        } finally {
            parent.destroyForcibly();
            parent.waitFor();
        }
    }

    @Test
    void impossiblePidsAreDead() {
        assertThat(ProcessProbe.status(0, 0)).isEqualTo(ProcessStatus.DEAD);
        assertThat(ProcessProbe.status(-1, 0)).isEqualTo(ProcessStatus.DEAD);
        assertThat(ProcessProbe.status(Pids.MAX_PID + 1, 0)).isEqualTo(ProcessStatus.DEAD);
    }
}
