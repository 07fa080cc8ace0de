package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How metric names are read out of PromQL and out of a scrape: the check of names rests on it. */
class OperatorFilesTest {

    private static final String SCRAPE =
            """
            # HELP cxc_ops_total Operations of a cxc primitive by this process
            # TYPE cxc_ops counter
            cxc_ops_total{application="a",kind="leader-election",op="beat",primitive="leader.cxc"} 12.0
            # TYPE cxc_wait_seconds summary
            cxc_wait_seconds_count{application="a"} 3
            cxc_wait_seconds_sum{application="a"} 0.25
            # TYPE cxc_wait_seconds_max gauge
            cxc_wait_seconds_max{application="a"} 0.1
            # TYPE cxc_leader_heartbeat_lag_epochs gauge
            cxc_leader_heartbeat_lag_epochs 0.0
            """;

    @Test
    void namesInPromQlAreWholeCxcNamesOutsideStringLiterals() {
        assertThat(
                        OperatorFiles.metricNames(
                                "sum by (op) (rate(cxc_ops_total{primitive=\"cxc_fake\","
                                        + " op=~'cxc_other'}[1m])) / on () cxc_epoch"))
                .containsExactly("cxc_ops_total", "cxc_epoch");
        // A recording rule's name, or a name that only ends in cxc_..., is not a cxc metric.
        assertThat(OperatorFiles.metricNames("cxc:participants_expected - app:cxc_x + my_cxc_y"))
                .isEmpty();
        assertThat(OperatorFiles.recordingRuleNames("cxc:participants_expected * 0"))
                .containsExactly("cxc:participants_expected");
        // Taken whole, so a name with a digit is checked as written, not cut to cxc_foo.
        assertThat(OperatorFiles.metricNames("cxc_foo2")).containsExactly("cxc_foo2");
        assertThat(
                        OperatorFiles.metricNames(
                                "label_values(cxc_leader_self{application=\"$application\"},"
                                        + " instance)"))
                .containsExactly("cxc_leader_self");
    }

    @Test
    void aScrapesNamesAreItsSamplesNotItsTypeLines() {
        // A counter is queried as ..._total, a timer as ..._seconds_count/_sum/_max: the bare
        // names in # TYPE lines are not series.
        assertThat(OperatorFiles.sampleNames(SCRAPE))
                .containsExactlyInAnyOrder(
                        "cxc_ops_total",
                        "cxc_wait_seconds_count",
                        "cxc_wait_seconds_sum",
                        "cxc_wait_seconds_max",
                        "cxc_leader_heartbeat_lag_epochs")
                .doesNotContain("cxc_ops", "cxc_wait_seconds");
    }
}
