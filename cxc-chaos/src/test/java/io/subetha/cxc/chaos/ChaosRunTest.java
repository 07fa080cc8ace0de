package io.subetha.cxc.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.chaos.ChaosEvent.Kind;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The chaos run of {@code mvn verify}: by default 3 participant JVMs and 30 handovers (set by the
 * module's pom). The full run of docs/RELIABILITY.md is this test with {@code
 * -Dchaos.participants=5 -Dchaos.handovers=1000}.
 */
class ChaosRunTest {

    @Test
    void leadersAreKilledStoppedAndFrozenWithoutEverSplittingABrain() {
        ChaosRun.Options options =
                new ChaosRun.Options(
                        Integer.getInteger("chaos.participants", 3),
                        Integer.getInteger("chaos.handovers", 30),
                        Long.getLong("chaos.seed", 42L),
                        Path.of(System.getProperty("chaos.dir", "target/chaos")),
                        Duration.ofMillis(50),
                        3,
                        Duration.ofMillis(10),
                        Duration.ofMillis(600),
                        "none".equals(System.getProperty("chaos.preemption"))
                                ? io.subetha.cxc.ownership.Preemption.NONE
                                : io.subetha.cxc.ownership.Preemption.LOWEST_PID);

        ChaosReport report = ChaosRun.run(options);
        System.out.print(report.render());

        assertThat(report.handovers()).isEqualTo(options.handovers());
        assertThat(report.splitBrainTerms()).as(report.render()).isEmpty();
        assertThat(report.excessiveGaps()).as(report.render()).isEmpty();
        assertThat(report.missingSuccessors()).as(report.render()).isEmpty();
        assertThat(report.ledgerOrderViolations()).as(report.render()).isEmpty();
        assertThat(report.ledgerRejectedConflict()).as(report.render()).isZero();
        assertThat(report.acceptedWrites()).isPositive();
        if (report.eventCounts().getOrDefault(Kind.PAUSE, 0L) > 0) {
            assertThat(report.ledgerRejectedStale())
                    .as("a paused leader's stale writes are refused: " + report.render())
                    .isPositive();
        }
        assertThat(report.safe()).isTrue();
    }
}
