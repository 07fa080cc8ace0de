package io.subetha.cxc.docs.examples;

import io.subetha.cxc.boot.test.AutoConfigureCxc;
import io.subetha.cxc.boot.test.AutoConfigureCxc.Leadership;
import io.subetha.cxc.boot.test.InLeaderTerm;
import org.springframework.boot.test.context.SpringBootTest;

/** Testing an application that uses cxc. */
class TestingExample {

    // docs:begin auto-configure-cxc
    @SpringBootTest
    @AutoConfigureCxc(leadership = Leadership.ALWAYS)   // directory = TEMP is the default
    class NightlyReportTest { /* ... */ }
    // docs:end auto-configure-cxc

    void unit(LeaderOnlyExample.Snapshots job) throws Exception {
        // docs:begin in-leader-term
        InLeaderTerm.run(7, () -> job.rotateSnapshots());   // LeaderContext.requireCurrentTerm() == 7 inside
        // docs:end in-leader-term
    }
}
