package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.eventlog.EventStateLog;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The sample with {@code cxc.enabled=false}: it starts, as if it were the only copy; its request
 * log lives in a private directory, and the leader-only bookkeeping never runs.
 */
@SpringBootTest(properties = {"cxc.enabled=false", "sample.bookkeeping.interval=100ms"})
class SampleWithCxcOffTest {

    @Autowired CxcPrimitives primitives;

    @Autowired
    @Qualifier("requests")
    EventStateLog<Long, Long> requests;

    @Autowired CxcLeadership leadership;
    @Autowired BookkeepingJob job;

    @Test
    void startsAloneWithItsRequestLogInAPrivateDirectory() {
        Path directory = primitives.directory();
        assertThat(directory.getFileName().toString()).startsWith("cxc-alone-");
        assertThat(requests.file().getParent()).isEqualTo(directory);
        requests.emit(1L);
        assertThat(leadership.isLeader()).isFalse();
        job.runBookkeeping(); // through the proxy: skipped, not leading
        assertThat(job.runs()).isZero();
    }
}
