package io.subetha.cxc.boot.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.LeaderContext;
import io.subetha.cxc.boot.NotLeaderException;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.annotation.OnNotLeader;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@link LeaderOnly} through the real proxy and a real election file. The tick interval is an hour,
 * so after the first tick (in the ticker's start) only the test changes who leads.
 */
class LeaderOnlyTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                AopAutoConfiguration.class, CxcAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"), "cxc.leader.tick-interval=1h")
                .withBean(Jobs.class);
    }

    @Test
    void theLeaderRunsTheMethodWithItsTermBound() {
        runner().run(
                        context -> {
                            Jobs jobs = context.getBean(Jobs.class);
                            assertThat(AopUtils.isAopProxy(jobs)).isTrue();
                            SharedLeaderElection election =
                                    context.getBean(SharedLeaderElection.class);
                            assertThat(election.isLeader(Pids.current())).isTrue();

                            jobs.bookkeeping();
                            assertThat(jobs.runs()).isEqualTo(1);
                            assertThat(jobs.answer()).isEqualTo("ran");
                            assertThat(jobs.maybe()).contains("ran");
                            assertThat(jobs.termInside()).isEqualTo(election.electionTerm());
                            assertThat(jobs.mustLead()).isEqualTo("led");
                            assertThat(LeaderContext.currentTerm()).isEmpty(); // unbound after
                        });
    }

    @Test
    void aFollowerSkipsWithNullOrEmpty() {
        runner().run(
                        context -> {
                            Jobs jobs = context.getBean(Jobs.class);
                            SharedLeaderElection election =
                                    context.getBean(SharedLeaderElection.class);
                            // PID 1 is alive and lower than ours: it takes over, as it would live.
                            assertThat(election.tryClaimLeadership(1)).isTrue();

                            jobs.bookkeeping();
                            assertThat(jobs.runs()).isZero();
                            assertThat(jobs.answer()).isNull();
                            assertThat(jobs.maybe()).isEmpty();
                            assertThat(jobs.maybeLong()).isEmpty();
                        });
    }

    @Test
    void throwModeRefusesOnAFollower() {
        runner().run(
                        context -> {
                            Jobs jobs = context.getBean(Jobs.class);
                            context.getBean(SharedLeaderElection.class).tryClaimLeadership(1);
                            assertThatThrownBy(jobs::mustLead)
                                    .isInstanceOf(NotLeaderException.class)
                                    .hasMessageContaining("Jobs.mustLead()")
                                    .hasMessageContaining("pid 1 leads")
                                    .hasMessageContaining("pid " + Pids.current());
                        });
    }

    @Test
    void afterSteppingDownNothingRunsAndNoOneLeads() {
        runner().run(
                        context -> {
                            Jobs jobs = context.getBean(Jobs.class);
                            assertThat(context.getBean(CxcLeadership.class).stepDown()).isTrue();
                            assertThat(jobs.answer()).isNull();
                            assertThatThrownBy(jobs::mustLead)
                                    .hasMessageContaining("no process leads");
                        });
    }

    @Test
    void withTheElectionDisabledTheMethodNeverRuns() {
        runner().withPropertyValues("cxc.leader.enabled=false")
                .run(
                        context -> {
                            Jobs jobs = context.getBean(Jobs.class);
                            jobs.bookkeeping();
                            assertThat(jobs.runs()).isZero();
                            assertThat(jobs.maybe()).isEmpty();
                        });
    }

    @Test
    void aPrimitiveReturnTypeIsRejectedAtStartup() {
        runner().withBean(Counting.class)
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .rootCause()
                                        .isInstanceOf(IllegalStateException.class)
                                        .hasMessageContaining("@LeaderOnly method")
                                        .hasMessageContaining("Counting.count() returns int")
                                        .hasMessageContaining("Integer"));
    }

    @Test
    void nestedCallsKeepTheOuterTerm() {
        runner().run(
                        context -> {
                            Jobs jobs = context.getBean(Jobs.class);
                            long term = context.getBean(SharedLeaderElection.class).electionTerm();
                            assertThat(jobs.nested(jobs)).containsExactly(term, term);
                        });
    }

    static class Jobs {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @LeaderOnly
        public void bookkeeping() {
            runs.incrementAndGet();
        }

        @LeaderOnly
        public String answer() {
            return "ran";
        }

        @LeaderOnly
        public Optional<String> maybe() {
            return Optional.of("ran");
        }

        @LeaderOnly
        public OptionalLong maybeLong() {
            return OptionalLong.of(1);
        }

        @LeaderOnly
        public Long termInside() {
            return LeaderContext.requireCurrentTerm();
        }

        @LeaderOnly(onNotLeader = OnNotLeader.THROW)
        public String mustLead() {
            return "led";
        }

        @LeaderOnly
        public long[] nested(Jobs self) {
            long outer = LeaderContext.requireCurrentTerm();
            self.termInside();
            return new long[] {outer, LeaderContext.requireCurrentTerm()};
        }
    }

    static class Counting {
        @LeaderOnly
        public int count() {
            return 1;
        }
    }
}
