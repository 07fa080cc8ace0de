package io.subetha.cxc.boot.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.boot.autoconfigure.LogLines;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.boot.ticker.ManualTicks;
import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;

/**
 * The first step of a graceful shutdown, in this module's own tests: {@link LeaderOnlyDrain}
 * refuses new {@code @LeaderOnly} calls, waits for the running ones while this process still leads,
 * says so, and only then lets the ticker step down. Through a real advisor proxy over a real
 * election file (an hour's tick: only the test ticks).
 */
class LeaderOnlyDrainTest {

    @TempDir Path temp;

    private SharedLeaderElection election;
    private LeaderTicker ticker;
    private LeaderOnlyAdvisor advisor;
    private Work target;
    private Calls calls;
    private LogLines log;

    /** What the proxy offers. */
    interface Calls {
        void work();

        void block(CountDownLatch entered, CountDownLatch release);
    }

    /** The target: counts its runs; {@code block} holds its call until released. */
    static class Work implements Calls {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        @LeaderOnly
        public void work() {
            runs.incrementAndGet();
        }

        @Override
        @LeaderOnly
        public void block(CountDownLatch entered, CountDownLatch release) {
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @BeforeEach
    void leadAndProxy() {
        election = SharedLeaderElection.openOrCreate(temp.resolve("leader.cxc"));
        ticker =
                new LeaderTicker(
                        new ElectionParticipant(election, Pids.current(), 3, Duration.ofHours(1)),
                        event -> {},
                        true,
                        List.of());
        ManualTicks.tick(ticker); // not started: the test's tick makes this process the leader
        assertThat(election.isLeader(Pids.current())).isTrue();
        advisor = new LeaderOnlyAdvisor(() -> ticker.leadership(), Pids.current());
        target = new Work();
        ProxyFactory factory = new ProxyFactory(target);
        factory.addInterface(Calls.class);
        factory.addAdvisor(advisor);
        calls = (Calls) factory.getProxy();
        log = LogLines.of(LeaderOnlyDrain.class);
    }

    @AfterEach
    void close() {
        log.close();
        election.close();
    }

    private LeaderOnlyDrain drain(Duration timeout) {
        return new LeaderOnlyDrain(advisor, ticker, timeout);
    }

    @Test
    void startingReopensTheCallsAnEarlierDrainRefused() {
        advisor.drain(Duration.ZERO);
        calls.work();
        assertThat(target.runs).hasValue(0); // refused

        LeaderOnlyDrain drain = drain(Duration.ofSeconds(30));
        drain.start();
        assertThat(drain.isRunning()).isTrue();
        calls.work();
        assertThat(target.runs).hasValue(1);
    }

    @Test
    void stoppingWithNoCallRunningRefusesNewCallsAtOnceAndSaysNothing() {
        LeaderOnlyDrain drain = drain(Duration.ofSeconds(30));
        drain.start();
        drain.stop();
        assertThat(drain.isRunning()).isFalse();
        calls.work();
        assertThat(target.runs).hasValue(0);
        assertThat(election.isLeader(Pids.current())).isTrue(); // the drain does not step down
        assertThat(log.lines()).isEmpty();
    }

    @Test
    void stoppingWaitsForTheRunningCallAndSaysHowLongItTook() throws Exception {
        LeaderOnlyDrain drain = drain(Duration.ofSeconds(30));
        drain.start();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> running =
                CompletableFuture.runAsync(() -> calls.block(entered, release));
        try {
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(drain::stop);
            await().atMost(Duration.ofSeconds(10))
                    .until(
                            () ->
                                    log.lines()
                                            .contains(
                                                    "INFO cxc: waiting up to 30000 ms for 1"
                                                            + " running @LeaderOnly call(s) before"
                                                            + " stepping down; new calls are"
                                                            + " refused"));
            calls.work();
            assertThat(target.runs).hasValue(0); // refused while it waits
            assertThat(stopping).isNotDone();
            release.countDown();
            stopping.get(10, TimeUnit.SECONDS);
        } finally {
            release.countDown();
            running.get(10, TimeUnit.SECONDS);
        }
        assertThat(log.lines()).hasSize(2);
        Matcher finished =
                Pattern.compile("INFO cxc: the running @LeaderOnly calls finished in (\\d+) ms")
                        .matcher(log.lines().get(1));
        assertThat(finished.matches()).as(log.lines().get(1)).isTrue();
        assertThat(Long.parseLong(finished.group(1))).isBetween(0L, 30_000L);
    }

    @Test
    void aCallStillRunningAfterTheTimeoutIsWarnedAboutAndTheStopGoesOn() throws Exception {
        LeaderOnlyDrain drain = drain(Duration.ofMillis(100));
        drain.start();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> running =
                CompletableFuture.runAsync(() -> calls.block(entered, release));
        try {
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            drain.stop(); // returns after the timeout, the call still running
            assertThat(running).isNotDone();
            assertThat(advisor.inFlight()).isEqualTo(1);
        } finally {
            release.countDown();
            running.get(10, TimeUnit.SECONDS);
        }
        assertThat(log.lines())
                .containsExactly(
                        "INFO cxc: waiting up to 100 ms for 1 running @LeaderOnly call(s) before"
                                + " stepping down; new calls are refused",
                        "WARN cxc: 1 @LeaderOnly call(s) still running after"
                                + " cxc.leader.shutdown-timeout (100 ms); stepping down anyway: a"
                                + " successor may now run alongside them");
    }

    @Test
    void aDrainThatWasNeverStartedRefusesNothingWhenStopped() {
        LeaderOnlyDrain drain = drain(Duration.ofSeconds(30));
        drain.stop();
        assertThat(drain.isRunning()).isFalse();
        calls.work();
        assertThat(target.runs).hasValue(1);
    }

    @Test
    void withoutAnAdvisorItStartsAndStopsWithNothingToDrain() {
        LeaderOnlyDrain drain = new LeaderOnlyDrain(null, ticker, Duration.ofSeconds(30));
        drain.start();
        assertThat(drain.isRunning()).isTrue();
        drain.stop();
        assertThat(drain.isRunning()).isFalse();
        assertThat(log.lines()).isEmpty();
    }

    @Test
    void itRunsInTheTickersPhaseTheLastOne() {
        assertThat(drain(Duration.ofSeconds(30)).getPhase())
                .isEqualTo(ticker.getPhase())
                .isEqualTo(SmartLifecycle.DEFAULT_PHASE);
    }

    /** A bean whose {@code @LeaderOnly} call the context's shutdown must wait for. */
    static class Job {
        @LeaderOnly
        public void block(CountDownLatch entered, CountDownLatch release) {
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void onShutdownTheLeaderKeepsItsSeatUntilItsRunningCallEndsAndOnlyThenStepsDown() {
        Path file = temp.resolve("cxc").resolve("leader.cxc");
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                AopAutoConfiguration.class, CxcAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"), "cxc.leader.tick-interval=1h")
                .withBean(Job.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context).hasSingleBean(LeaderOnlyDrain.class);
                            Job job = context.getBean(Job.class);
                            CountDownLatch entered = new CountDownLatch(1);
                            CountDownLatch release = new CountDownLatch(1);
                            CompletableFuture<Void> running =
                                    CompletableFuture.runAsync(() -> job.block(entered, release));
                            try (SharedLeaderElection observer = SharedLeaderElection.open(file)) {
                                assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
                                CompletableFuture<Void> closing =
                                        CompletableFuture.runAsync(context::close);
                                await().atMost(Duration.ofSeconds(10))
                                        .until(
                                                () ->
                                                        log.lines().stream()
                                                                .anyMatch(
                                                                        l ->
                                                                                l.startsWith(
                                                                                        "INFO cxc:"
                                                                                                + " waiting"
                                                                                                + " up to"
                                                                                                + " 10000"
                                                                                                + " ms for 1")));
                                // Draining: the seat is still this process's.
                                assertThat(observer.currentLeader()).hasValue(Pids.current());
                                assertThat(closing).isNotDone();
                                release.countDown();
                                closing.get(30, TimeUnit.SECONDS);
                                running.get(10, TimeUnit.SECONDS);
                                assertThat(observer.currentLeader()).isEmpty(); // then stepped down
                            } finally {
                                release.countDown();
                            }
                            assertThat(log.lines())
                                    .last()
                                    .asString()
                                    .startsWith("INFO cxc: the running @LeaderOnly calls finished");
                        });
    }
}
