package io.subetha.cxc.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The PID range every primitive accepts (1..2^32-1, 0 reserved for "no process") with its errors,
 * and how the probe tells that {@code /proc} is this process's own: {@code /proc/self} names this
 * PID and no other.
 */
class PidBoundsAndOwnProcTest {

    @Test
    void pidsFromOneToTheLargestU32AreValidAndReturnedAsGiven() {
        assertThat(Pids.requireValid(1)).isEqualTo(1);
        assertThat(Pids.requireValid(Pids.MAX_PID)).isEqualTo(Pids.MAX_PID);
        assertThat(Pids.requireValid(Pids.current())).isEqualTo(Pids.current());
        assertThat(Pids.current()).isEqualTo(ProcessHandle.current().pid());
    }

    @Test
    void pidZeroIsNamedAsReservedAndPidsOutsideTheRangeNameTheRange() {
        assertThatThrownBy(() -> Pids.requireValid(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PID 0 is reserved for \"no process\"");
        for (long pid : new long[] {-1, Long.MIN_VALUE, Pids.MAX_PID + 1, Long.MAX_VALUE}) {
            assertThatThrownBy(() -> Pids.requireValid(pid))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PID " + pid + " is outside 1.." + Pids.MAX_PID);
        }
    }

    @Test
    void procSelfNamesThisProcessAndNoOther() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/stat")), "a host with /proc");
        long me = ProcessHandle.current().pid();
        assumeTrue(
                Files.readSymbolicLink(Path.of("/proc/self")).toString().equals(Long.toString(me)),
                "a /proc of this PID namespace");

        assertThat(ProcessProbe.procSelfIs(me)).isTrue();
        assertThat(ProcessProbe.procSelfIs(me + 1)).isFalse();
        assertThat(ProcessProbe.procMatchesPidNamespace()).isTrue();
    }

    @Test
    void startTimesCompareInTheirLow32Bits() {
        long me = ProcessHandle.current().pid();
        long startTime = ProcessProbe.startTime(me);

        assertThat(ProcessProbe.status(me, startTime + (1L << 32))).isEqualTo(ProcessStatus.ALIVE);
        assertThat(ProcessProbe.sameStartTime(startTime, startTime + (1L << 32))).isTrue();
        assertThat(ProcessProbe.sameStartTime(startTime, startTime + 1)).isFalse();
        assertThat(ProcessProbe.startTime(Pids.MAX_PID - 1))
                .isEqualTo(ProcessProbe.UNKNOWN_START_TIME);
    }
}
