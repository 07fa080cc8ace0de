package io.subetha.cxc.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.test.AutoConfigureCxc.Leadership;
import io.subetha.cxc.election.SharedLeaderElection;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

/** {@link AutoConfigureCxc} on real {@code @SpringBootTest} contexts, one per leadership mode. */
class AutoConfigureCxcTest {

    /** The application's own directory, which no test context here may touch. */
    static Path applicationDirectory(String application) {
        return Path.of("/dev/shm").resolve("cxc-" + uid()).resolve(application);
    }

    static int uid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Nested
    @SpringBootTest(
            classes = TestApplication.class,
            properties = "spring.application.name=cxc-test-elect")
    @AutoConfigureCxc
    class Elect {

        @Autowired ApplicationContext context;
        @Autowired TestApplication.Job job;

        @Test
        void electsInItsOwnTemporaryDirectoryAndLeadsThere() {
            SharedLeaderElection election = context.getBean(SharedLeaderElection.class);
            Path directory = election.file().getParent();
            assertThat(directory.getFileName().toString()).startsWith("cxc-test-");
            assertThat(directory).isNotEqualTo(applicationDirectory("cxc-test-elect"));
            assertThat(applicationDirectory("cxc-test-elect")).doesNotExist();
            assertThat(context.getEnvironment().getProperty("cxc.leader.backend"))
                    .isEqualTo("local");
            // Alone in it, this context led from its first tick.
            assertThat(context.getBean(CxcLeadership.class).isLeader()).isTrue();
            job.run();
            assertThat(job.terms()).containsExactly(election.electionTerm());
        }
    }

    @Nested
    @SpringBootTest(classes = TestApplication.class)
    @AutoConfigureCxc(leadership = Leadership.ALWAYS)
    class Always {

        @Autowired ApplicationContext context;
        @Autowired TestApplication.Job job;

        @Test
        void runsUnderTermOneWhateverThePrivateElectionSays() {
            // The election runs in the test's own directory, for the heartbeat table and the
            // declared primitives; the fixed leadership answers above it.
            Path directory = context.getBean(SharedLeaderElection.class).file().getParent();
            assertThat(directory.getFileName().toString()).startsWith("cxc-test-");
            assertThat(context.getBean(CxcLeadership.class)).isInstanceOf(FixedLeadership.class);
            job.run();
            assertThat(job.terms()).containsExactly(FixedLeadership.TERM);
            assertThat(job.events())
                    .singleElement()
                    .isInstanceOf(LeadershipGainedEvent.class)
                    .extracting(e -> e.term())
                    .isEqualTo(FixedLeadership.TERM);
        }
    }

    @Nested
    @SpringBootTest(classes = TestApplication.class)
    @AutoConfigureCxc(leadership = Leadership.NEVER)
    class Never {

        @Autowired ApplicationContext context;
        @Autowired TestApplication.Job job;

        @Test
        void skipsThoughThePrivateElectionIsWonHere() {
            SharedLeaderElection election = context.getBean(SharedLeaderElection.class);
            assertThat(election.file().getParent().getFileName().toString())
                    .startsWith("cxc-test-");
            job.run();
            assertThat(job.terms()).isEmpty();
            assertThat(context.getBean(CxcLeadership.class).isLeader()).isFalse();
            assertThat(job.events()).isEmpty();
        }
    }
}
