package io.subetha.cxc.chaos.crash;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The crash run of {@code mvn verify}: by default 3 workers and 4 kills (set by the module's pom).
 * The long run of docs/RELIABILITY.md is this test with {@code -Dcrash.kills=1000}.
 */
class CrashRunTest {

    @Test
    void everyFamilyKeepsItsPromiseWhileWorkersAreKilledAndFrozen() {
        CrashRun.Options options =
                CrashRun.Options.parse(
                        "--workers", System.getProperty("crash.workers", "3"),
                        "--kills", System.getProperty("crash.kills", "4"),
                        "--seed", System.getProperty("crash.seed", "42"),
                        "--dir", System.getProperty("crash.dir", "target/crash"));

        CrashReport report = CrashRun.run(options);
        System.out.print(report.render());

        assertThat(report.kills()).isEqualTo(options.kills());
        assertThat(report.findings().violations()).as(report.render()).isEmpty();
        for (Family family : Family.values()) {
            assertThat(report.findings().figures(family).get("operations"))
                    .as("%s did work: %s", family, report.render())
                    .isPositive();
        }
        assertThat(report.safe()).isTrue();
    }
}
