package io.subetha.cxc.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A {@code stat} line as short as older kernels write it: the fields after the start time are read
 * only where the line holds them, and one the line lacks (-1) never makes a process look dying.
 */
class StatLineFieldCountTest {

    private static final int PENDING = 28; // field 31, counted from the state (field 3)

    @Test
    void aLineEndingJustBeforeThePendingSignalsParsesWithoutThem() throws IOException {
        String line = truncatedTo(PENDING);
        ProcessProbe.Stat stat = ProcessProbe.parseStat(line);
        assertThat(stat.pendingSignals()).isEqualTo(-1);
        assertThat(stat.flags()).isEqualTo(Long.parseLong(fieldsOf(ownStatLine())[6]));
        assertThat(stat.startTime()).isEqualTo(ProcessProbe.startTime(Pids.current()));
        assertThat(stat.dying()).isFalse();
    }

    @Test
    void aLineHoldingThePendingSignalsAsItsLastFieldReadsThem() throws IOException {
        String[] fields = fieldsOf(ownStatLine());
        fields[PENDING] = Long.toString(ProcessProbe.SIGKILL_PENDING);
        String line = headOf(ownStatLine()) + String.join(" ", Arrays.copyOf(fields, PENDING + 1));
        ProcessProbe.Stat stat = ProcessProbe.parseStat(line);
        assertThat(stat.pendingSignals()).isEqualTo(ProcessProbe.SIGKILL_PENDING);
        assertThat(stat.dying()).isTrue();
    }

    @Test
    void flagsAndSignalsTheLineDidNotHoldNeverMeanDying() {
        assertThat(new ProcessProbe.Stat('S', -1, -1, 1).dying()).isFalse();
        assertThat(new ProcessProbe.Stat('R', 0, 0, 1).dying()).isFalse();
        assertThat(new ProcessProbe.Stat('S', -1, ProcessProbe.SIGKILL_PENDING, 1).dying())
                .isTrue();
        assertThat(new ProcessProbe.Stat('S', ProcessProbe.PF_EXITING, -1, 1).dying()).isTrue();
    }

    private static String truncatedTo(int count) throws IOException {
        String line = ownStatLine();
        return headOf(line) + String.join(" ", Arrays.copyOf(fieldsOf(line), count));
    }

    private static String ownStatLine() throws IOException {
        return new String(Files.readAllBytes(Path.of("/proc/self/stat")), StandardCharsets.US_ASCII)
                .trim();
    }

    private static String headOf(String line) {
        return line.substring(0, line.lastIndexOf(')') + 2);
    }

    private static String[] fieldsOf(String line) {
        return line.substring(line.lastIndexOf(')') + 2).split(" ");
    }
}
