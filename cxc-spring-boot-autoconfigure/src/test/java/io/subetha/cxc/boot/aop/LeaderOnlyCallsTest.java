package io.subetha.cxc.boot.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.LeaderContext;
import io.subetha.cxc.boot.NotLeaderException;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.annotation.OnNotLeader;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.boot.autoconfigure.CxcMetricsAutoConfiguration;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * What becomes of {@code @LeaderOnly} calls: counted as ran, skipped or refused; observed when
 * asked; drained at shutdown (new calls refused, running ones awaited); and never run when cxc is
 * off. Through the real proxy and a real election file (an hour's tick: only the test changes who
 * leads).
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaderOnlyCallsTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                AopAutoConfiguration.class,
                                CxcAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"), "cxc.leader.tick-interval=1h")
                .withBean(SimpleMeterRegistry.class)
                .withBean(Job.class);
    }

    private static double count(MeterRegistry registry, String method, String outcome) {
        var counter =
                registry.find("cxc.leader.only")
                        .tag("class", Job.class.getName())
                        .tag("method", method)
                        .tag("outcome", outcome)
                        .counter();
        return counter == null ? -1 : counter.count();
    }

    @Test
    void callsAreCountedAsRanSkippedOrRefused() {
        runner().run(
                        context -> {
                            Job job = context.getBean(Job.class);
                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            job.work();
                            job.work();
                            // Every outcome's series exists from the first call on.
                            assertThat(count(meters, "work", "ran")).isEqualTo(2);
                            assertThat(count(meters, "work", "skipped")).isZero();
                            assertThat(count(meters, "work", "refused")).isZero();

                            context.getBean(SharedLeaderElection.class).tryClaimLeadership(1);
                            job.work();
                            assertThat(count(meters, "work", "skipped")).isEqualTo(1);
                            assertThat(job.runs()).isEqualTo(2);
                        });
    }

    @Test
    void aDrainRefusesNewCallsAndWaitsForTheRunningOne() throws Exception {
        runner().run(
                        context -> {
                            Job job = context.getBean(Job.class);
                            LeaderOnlyAdvisor advisor = context.getBean(LeaderOnlyAdvisor.class);
                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            CompletableFuture<Void> running =
                                    CompletableFuture.runAsync(job::blockUntilReleased);
                            await().atMost(Duration.ofSeconds(10))
                                    .until(() -> advisor.inFlight() == 1);

                            CompletableFuture<Integer> drained =
                                    CompletableFuture.supplyAsync(
                                            () -> advisor.drain(Duration.ofSeconds(30)));
                            // Refused from now on, though this process still leads.
                            await().atMost(Duration.ofSeconds(10))
                                    .untilAsserted(
                                            () -> {
                                                job.work();
                                                assertThat(count(meters, "work", "refused"))
                                                        .isPositive();
                                            });
                            assertThat(job.runs()).isZero();
                            assertThatThrownBy(job::mustLead)
                                    .isInstanceOf(NotLeaderException.class);
                            assertThat(context.getBean(CxcLeadership.class).isLeader()).isTrue();
                            assertThat(drained).isNotDone();

                            job.release();
                            assertThat(drained.get(10, TimeUnit.SECONDS)).isZero();
                            running.get(10, TimeUnit.SECONDS);
                            assertThat(advisor.inFlight()).isZero();

                            advisor.reopen();
                            job.work();
                            assertThat(job.runs()).isEqualTo(1);
                        });
    }

    @Test
    void aDrainGivesUpAfterItsTimeoutAndSaysHowManyStillRun() {
        runner().run(
                        context -> {
                            Job job = context.getBean(Job.class);
                            LeaderOnlyAdvisor advisor = context.getBean(LeaderOnlyAdvisor.class);
                            CompletableFuture<Void> running =
                                    CompletableFuture.runAsync(job::blockUntilReleased);
                            try {
                                await().atMost(Duration.ofSeconds(10))
                                        .until(() -> advisor.inFlight() == 1);
                                assertThat(advisor.drain(Duration.ofMillis(100))).isEqualTo(1);
                            } finally {
                                job.release();
                            }
                            running.join();
                        });
    }

    @Test
    void aNestedCallIsPartOfItsOuterCallAndNotRefused() {
        runner().run(
                        context -> {
                            Job job = context.getBean(Job.class);
                            LeaderOnlyAdvisor advisor = context.getBean(LeaderOnlyAdvisor.class);
                            assertThat(job.drainInside(job, advisor)).isTrue();
                        });
    }

    @Test
    void runsAreObservedWhenAsked() {
        List<String> observed = new CopyOnWriteArrayList<>();
        ObservationRegistry observations = ObservationRegistry.create();
        observations
                .observationConfig()
                .observationHandler(
                        new ObservationHandler<Observation.Context>() {
                            @Override
                            public boolean supportsContext(Observation.Context context) {
                                return true;
                            }

                            @Override
                            public void onStop(Observation.Context context) {
                                observed.add(
                                        context.getName()
                                                + " "
                                                + context.getLowCardinalityKeyValue("method")
                                                        .getValue()
                                                + " term="
                                                + context.getHighCardinalityKeyValue("term")
                                                        .getValue());
                            }
                        });
        runner().withBean(ObservationRegistry.class, () -> observations)
                .run(
                        context -> {
                            context.getBean(Job.class).work();
                            assertThat(observed).isEmpty(); // opt-in
                        });
        runner().withBean(ObservationRegistry.class, () -> observations)
                .withPropertyValues("cxc.leader.observations=true")
                .run(
                        context -> {
                            long term = context.getBean(SharedLeaderElection.class).electionTerm();
                            context.getBean(Job.class).work();
                            assertThat(observed)
                                    .containsExactly("cxc.leader.only.run work term=" + term);
                            context.getBean(SharedLeaderElection.class).tryClaimLeadership(1);
                            context.getBean(Job.class).work(); // skipped: not observed
                            assertThat(observed).hasSize(1);
                        });
    }

    @Test
    void withCxcOffTheMethodIsSkippedAndLeadershipSaysSo(CapturedOutput output) {
        runner().withPropertyValues("cxc.enabled=false")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context).doesNotHaveBean(SharedLeaderElection.class);
                            CxcLeadership leadership = context.getBean(CxcLeadership.class);
                            assertThat(leadership.isLeader()).isFalse();
                            assertThat(leadership.termIfLeader()).isEqualTo(-1);
                            assertThat(leadership.pid()).isEqualTo(Pids.current());
                            assertThat(leadership.stepDown()).isFalse();
                            Job job = context.getBean(Job.class);
                            job.work();
                            assertThat(job.runs()).isZero();
                            assertThatThrownBy(job::mustLead)
                                    .isInstanceOf(NotLeaderException.class)
                                    .hasMessageContaining("no process leads");
                        });
        assertThat(output)
                .contains(
                        "cxc is off (cxc.enabled=false)", "@AutoConfigureCxc(leadership = ALWAYS)");
        assertThat(Files.exists(temp.resolve("cxc"))).isFalse(); // nothing written
    }

    @Test
    void withCxcOffDeclaredPrimitivesAreMadeAloneOutsideTheDirectory() {
        runner().withPropertyValues("cxc.enabled=false", "cxc.barriers.phases.capacity=2")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context).hasBean("phases");
                        });
        assertThat(Files.exists(temp.resolve("cxc"))).isFalse();
    }

    @Test
    void stillLeadsIsFalseOnceTheCallsTermIsLostEvenWhenThisProcessLeadsAgain() {
        runner().run(
                        context -> {
                            Job job = context.getBean(Job.class);
                            SharedLeaderElection election =
                                    context.getBean(SharedLeaderElection.class);
                            CxcLeadership leadership = context.getBean(CxcLeadership.class);
                            long me = Pids.current();
                            long term = election.electionTerm();
                            List<Boolean> seen =
                                    job.stillLeadsAround(
                                            () -> {
                                                // Mid-call: the term is lost, then this PID
                                                // re-claims the seat under a new term.
                                                assertThat(election.stepDown(me)).isTrue();
                                                assertThat(election.tryClaimLeadership(me, 3))
                                                        .isTrue();
                                                assertThat(election.electionTerm())
                                                        .isGreaterThan(term);
                                            },
                                            leadership);
                            // stillLeads before, stillLeads after, isLeader after
                            assertThat(seen).containsExactly(true, false, true);
                            // A call under the new term holds it.
                            assertThat(job.stillLeadsAround(() -> {}, leadership))
                                    .containsExactly(true, true, true);
                            // Outside a @LeaderOnly call it throws, as requireCurrentTerm() does.
                            assertThatThrownBy(LeaderContext::stillLeads)
                                    .isInstanceOf(IllegalStateException.class)
                                    .hasMessageContaining("@LeaderOnly");
                        });
    }

    @Test
    void anInterruptOnLossCallIsInterruptedWhenItsTermIsLostAndThePlainOneIsNot() {
        runner().withPropertyValues("cxc.leader.tick-interval=20ms")
                .run(
                        context -> {
                            Job job = context.getBean(Job.class);
                            SharedLeaderElection election =
                                    context.getBean(SharedLeaderElection.class);
                            long me = Pids.current();
                            await().atMost(Duration.ofSeconds(30))
                                    .until(() -> election.isLeader(me));
                            long term = election.electionTerm();
                            ExecutorService pool = Executors.newFixedThreadPool(2);
                            try {
                                CountDownLatch started = new CountDownLatch(2);
                                Future<Boolean> interrupting =
                                        pool.submit(
                                                () ->
                                                        job.awaitInterruptingOnLoss(started)
                                                                // the flag is ours: cleared
                                                                && !Thread.currentThread()
                                                                        .isInterrupted());
                                Future<Boolean> plain = pool.submit(() -> job.await(started));
                                assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();

                                assertThat(election.stepDown(me)).isTrue(); // the term is lost
                                assertThat(interrupting.get(30, TimeUnit.SECONDS)).isTrue();
                                // The ticker took the seat back under a newer term, and ran
                                // its tasks since: the plain call was let be.
                                long epoch = election.globalEpoch();
                                await().atMost(Duration.ofSeconds(30))
                                        .until(
                                                () ->
                                                        election.electionTerm() > term
                                                                && election.globalEpoch()
                                                                        > epoch + 2);
                                assertThat(plain.isDone()).isFalse();
                                job.release();
                                assertThat(plain.get(30, TimeUnit.SECONDS))
                                        .as("the plain call interrupted")
                                        .isFalse();
                            } finally {
                                pool.shutdownNow();
                            }
                        });
    }

    @Test
    void gainingLeadershipIsLoggedWithTheTerm(CapturedOutput output) {
        runner().run(
                        context -> {
                            long term = context.getBean(SharedLeaderElection.class).electionTerm();
                            // Published on the events thread, a moment after the edge.
                            await().atMost(Duration.ofSeconds(10))
                                    .untilAsserted(
                                            () ->
                                                    assertThat(output)
                                                            .contains(
                                                                    "cxc: pid "
                                                                            + Pids.current()
                                                                            + " leads, term "
                                                                            + term));
                            context.getBean(CxcLeadership.class).stepDown();
                            await().atMost(Duration.ofSeconds(10))
                                    .untilAsserted(
                                            () ->
                                                    assertThat(output)
                                                            .contains(
                                                                    "cxc: pid "
                                                                            + Pids.current()
                                                                            + " no longer leads"
                                                                            + " (term "
                                                                            + term
                                                                            + ")"));
                        });
    }

    static class Job {
        private final AtomicInteger runs = new AtomicInteger();
        private final CountDownLatch release = new CountDownLatch(1);

        // Read through methods: the test holds the proxy, whose own fields are unset.
        public int runs() {
            return runs.get();
        }

        public void release() {
            release.countDown();
        }

        @LeaderOnly
        public void work() {
            runs.incrementAndGet();
        }

        @LeaderOnly(onNotLeader = OnNotLeader.THROW)
        public String mustLead() {
            return "led";
        }

        /** Checks stillLeads() before and after {@code midway}, and isLeader() after it. */
        @LeaderOnly
        public List<Boolean> stillLeadsAround(Runnable midway, CxcLeadership leadership) {
            boolean before = LeaderContext.stillLeads();
            midway.run();
            return List.of(before, LeaderContext.stillLeads(), leadership.isLeader());
        }

        @LeaderOnly
        public void blockUntilReleased() {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Waits for {@link #release}; true if interrupted instead. */
        @LeaderOnly(interruptOnLoss = true)
        public Boolean awaitInterruptingOnLoss(CountDownLatch started) {
            return await(started);
        }

        @LeaderOnly
        public Boolean await(CountDownLatch started) {
            started.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
                return false;
            } catch (InterruptedException e) {
                return true;
            }
        }

        /** Starts a drain (timing out at once) from inside a call, then calls another method. */
        @LeaderOnly
        public Boolean drainInside(Job self, LeaderOnlyAdvisor advisor) {
            advisor.drain(Duration.ZERO);
            int before = runs.get();
            self.work();
            advisor.reopen();
            return runs.get() == before + 1;
        }
    }
}
