package io.subetha.cxc.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A SIGKILLed process is dead from the moment its {@code stat} line shows it dying, before it is a
 * zombie: the lines here are this process's own, with one field changed as the kernel changes it.
 */
class ProcessProbeDyingTest {

    private static final int FLAGS = 6; // field 9, counted from the state (field 3)
    private static final int PENDING = 28; // field 31

    @Test
    void aRunningProcessIsNotDying() throws IOException {
        ProcessProbe.Stat stat = ProcessProbe.parseStat(ownStatLine());
        assertThat(stat.dying()).isFalse();
        assertThat(stat.startTime()).isEqualTo(ProcessProbe.startTime(Pids.current()));
        assertThat(stat.flags() & ProcessProbe.PF_EXITING).isZero();
    }

    @Test
    void aPendingSigkillIsDying() throws IOException {
        String line =
                withField(ownStatLine(), PENDING, Long.toString(ProcessProbe.SIGKILL_PENDING));
        assertThat(ProcessProbe.parseStat(line).dying()).isTrue();
    }

    @Test
    void otherPendingSignalsAreNot() throws IOException {
        long allButKill = 0x7fffffffL & ~ProcessProbe.SIGKILL_PENDING;
        String line = withField(ownStatLine(), PENDING, Long.toString(allButKill));
        assertThat(ProcessProbe.parseStat(line).dying()).isFalse();
    }

    @Test
    void theExitingFlagIsDying() throws IOException {
        String line = ownStatLine();
        long flags = Long.parseLong(fieldsOf(line)[FLAGS]);
        String exiting = withField(line, FLAGS, Long.toString(flags | ProcessProbe.PF_EXITING));
        assertThat(ProcessProbe.parseStat(exiting).dying()).isTrue();
        String others = withField(line, FLAGS, Long.toString(flags & ~ProcessProbe.PF_EXITING));
        assertThat(ProcessProbe.parseStat(others).dying()).isFalse();
    }

    @Test
    void aZombieStateIsDying() throws IOException {
        for (String state : new String[] {"Z", "X", "x"}) {
            assertThat(ProcessProbe.parseStat(withField(ownStatLine(), 0, state)).dying())
                    .as(state)
                    .isTrue();
        }
        for (String state : new String[] {"R", "S", "D", "T", "t", "I"}) {
            assertThat(ProcessProbe.parseStat(withField(ownStatLine(), 0, state)).dying())
                    .as(state)
                    .isFalse();
        }
    }

    @Test
    void aCommWithSpacesAndParenthesesDoesNotShiftTheFields() throws IOException {
        String line = ownStatLine();
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        String odd = line.substring(0, open) + "(a) Z 1 (b c)" + line.substring(close);
        String killed = withField(odd, PENDING, Long.toString(ProcessProbe.SIGKILL_PENDING));
        assertThat(ProcessProbe.parseStat(odd).dying()).isFalse();
        assertThat(ProcessProbe.parseStat(killed).dying()).isTrue();
    }

    @Test
    void aLineTooShortForTheSignalsIsJudgedByItsStateAlone() throws IOException {
        String[] fields = fieldsOf(ownStatLine());
        String line = headOf(ownStatLine()) + String.join(" ", Arrays.copyOf(fields, 20));
        ProcessProbe.Stat stat = ProcessProbe.parseStat(line);
        assertThat(stat.pendingSignals()).isEqualTo(-1);
        assertThat(stat.dying()).isFalse();
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

    private static String withField(String line, int index, String value) {
        String[] fields = fieldsOf(line);
        fields[index] = value;
        return headOf(line) + String.join(" ", fields);
    }
}
