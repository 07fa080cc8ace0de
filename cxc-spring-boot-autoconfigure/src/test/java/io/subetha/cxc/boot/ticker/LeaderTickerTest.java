package io.subetha.cxc.boot.ticker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.LeadershipEvent;
import io.subetha.cxc.boot.autoconfigure.LogLines;
import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.Preemption;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * The ticker's own bookkeeping, on a real election file: ticks and failures counted (and logged
 * sparingly), the edges published in order and on which thread, the step-down's hold-off of grace +
 * 1 ticks, what stop does (and does not) do, a failed listener, a listener that stops it, the fixed
 * rate, and the heir's poll between ticks. Mostly an hour's tick, ticked by the test.
 */
class LeaderTickerTest {

    private static final long ME = Pids.current();
    private static final Duration HOUR = Duration.ofHours(1);

    @TempDir Path temp;

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<LeaderTicker> tickers = new CopyOnWriteArrayList<>();
    private SharedLeaderElection election;
    private LogLines log;

    @BeforeEach
    void logs() {
        log = LogLines.of(LeaderTicker.class);
    }

    @AfterEach
    void close() {
        tickers.forEach(LeaderTicker::stop);
        log.close();
        if (election != null) {
            election.close();
        }
    }

    private SharedLeaderElection election(Duration interval, long grace) {
        election =
                SharedLeaderElection.openOrCreate(
                        temp.resolve("leader.cxc"),
                        new SharedLeaderElection.Settings(interval, grace));
        return election;
    }

    /** Records each event as {@code "Gained 3 on thread"}; the given publisher may then throw. */
    private ApplicationEventPublisher recorder() {
        return event -> {
            LeadershipEvent e = (LeadershipEvent) event;
            events.add(
                    e.getClass().getSimpleName().replace("Leadership", "").replace("Event", "")
                            + " "
                            + e.term()
                            + " on "
                            + Thread.currentThread().getName());
        };
    }

    private LeaderTicker ticker(
            Duration interval,
            long grace,
            ApplicationEventPublisher publisher,
            boolean stepDownOnShutdown,
            List<TickTask> tasks) {
        LeaderTicker ticker =
                new LeaderTicker(
                        new ElectionParticipant(election(interval, grace), ME, grace, interval),
                        publisher,
                        stepDownOnShutdown,
                        tasks);
        tickers.add(ticker);
        return ticker;
    }

    private LeaderTicker ticker() {
        return ticker(HOUR, 2, recorder(), true, List.of());
    }

    private static String here() {
        return Thread.currentThread().getName();
    }

    /** A tick task that always fails, named for the log. */
    static final class Broken implements TickTask {
        @Override
        public void onTick() {
            throw new IllegalStateException("task broke");
        }

        @Override
        public String toString() {
            return "broken";
        }
    }

    @Test
    void startRunsTheFirstTickAtOnceAndStartingAgainRunsNoOther() {
        LeaderTicker ticker = ticker();
        ticker.start();
        assertThat(ticker.isRunning()).isTrue();
        assertThat(ticker.ticks()).isEqualTo(1);
        assertThat(election.isLeader(ME)).isTrue();
        long term = election.electionTerm();
        ticker.start();
        assertThat(ticker.ticks()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
        assertThat(events).containsExactly("Gained " + term + " on " + LeaderTicker.EVENTS_THREAD);
    }

    @Test
    void everyTickIsCountedAndFailingTasksAreCountedAndLoggedOnlyAtPowersOfTwo() {
        List<Integer> later = new CopyOnWriteArrayList<>();
        LeaderTicker ticker =
                ticker(HOUR, 2, recorder(), true, List.of(new Broken(), () -> later.add(1)));
        for (int i = 0; i < 4; i++) {
            ticker.tick();
        }
        assertThat(ticker.ticks()).isEqualTo(4);
        assertThat(ticker.failedTicks()).isEqualTo(4);
        assertThat(later).hasSize(4); // the task after the broken one still runs
        assertThat(ticker.lastFailure()).isNull(); // the election round itself is fine
        assertThat(log.lines())
                .containsExactly(
                        "WARN cxc ticker: tick task broken failed; the next tick runs as usual"
                                + " [java.lang.IllegalStateException]",
                        "WARN cxc ticker: tick task broken failed (2 failures so far):"
                                + " java.lang.IllegalStateException: task broke",
                        "WARN cxc ticker: tick task broken failed (4 failures so far):"
                                + " java.lang.IllegalStateException: task broke");
    }

    @Test
    void aFailedElectionRoundIsKeptAsTheLastFailureUntilARoundSucceeds() throws Exception {
        AtomicBoolean reachable = new AtomicBoolean();
        election(HOUR, 2);
        LeaderTicker ticker =
                new LeaderTicker(
                        new ElectionParticipant(
                                election,
                                ME,
                                2,
                                HOUR,
                                Preemption.LOWEST_PID,
                                (path, settings) -> {
                                    if (!reachable.get()) {
                                        throw new IllegalStateException("not yet");
                                    }
                                    return SharedLeaderElection.openOrCreate(path, settings);
                                }),
                        recorder(),
                        false,
                        List.of());
        tickers.add(ticker);
        assertThat(election.tryClaimLeadership(1)).isTrue(); // not ours: its round just fails
        ticker.tick();
        assertThat(ticker.lastFailure()).isNull();
        Files.delete(election.file());

        ticker.tick();
        assertThat(ticker.lastFailure()).hasMessage("not yet");
        assertThat(ticker.failedTicks()).isEqualTo(1);
        assertThat(ticker.ticks()).isEqualTo(2);
        assertThat(log.lines())
                .containsExactly(
                        "WARN cxc ticker: the election round failed; the next tick runs as usual"
                                + " [java.lang.IllegalStateException]");

        reachable.set(true);
        ticker.tick(); // re-joins the file now at the path, and leads it
        assertThat(ticker.lastFailure()).isNull();
        assertThat(ticker.election().isLeader(ME)).isTrue();
        assertThat(ticker.election()).isNotSameAs(election);
        ticker.election().close();
    }

    @Test
    void edgesArePublishedInOrderAndBeforeStartOnTheCallersThread() {
        LeaderTicker ticker = ticker();
        ticker.tick();
        long first = election.electionTerm();
        assertThat(events).containsExactly("Gained " + first + " on " + here());

        assertThat(election.stepDown(ME)).isTrue(); // lost, and claimed again under a new term
        ticker.tick();
        long second = election.electionTerm();
        assertThat(second).isGreaterThan(first);
        assertThat(events)
                .containsExactly(
                        "Gained " + first + " on " + here(),
                        "Lost " + first + " on " + here(),
                        "Gained " + second + " on " + here());

        assertThat(election.tryClaimLeadership(1)).isTrue(); // a lower live PID takes it
        ticker.tick();
        ticker.tick(); // no edge: nothing more
        assertThat(events).hasSize(4).last().isEqualTo("Lost " + second + " on " + here());
    }

    @Test
    void aStepDownHandsTheSeatOverAndHoldsOffClaimingForGracePlusOneTicks() {
        LeaderTicker ticker = ticker(); // grace 2
        ticker.tick();
        long term = election.electionTerm();
        assertThat(ticker.stepDown()).isTrue();
        assertThat(election.currentLeader()).isEmpty();
        assertThat(events).last().isEqualTo("Lost " + term + " on " + here());
        assertThat(log.lines())
                .containsExactly("INFO cxc: pid " + ME + " stepped down from term " + term);

        for (int i = 1; i <= 3; i++) {
            ticker.tick();
            assertThat(election.currentLeader()).as("tick %d of the hold-off", i).isEmpty();
        }
        assertThat(ticker.ticks()).isEqualTo(4);
        ticker.tick();
        assertThat(election.isLeader(ME)).isTrue();
        assertThat(election.electionTerm()).isGreaterThan(term);
        assertThat(events).last().isEqualTo("Gained " + election.electionTerm() + " on " + here());
    }

    @Test
    void aStepDownOfAProcessThatDoesNotLeadIsRefusedAndSaysNothing() {
        LeaderTicker ticker = ticker();
        assertThat(election.tryClaimLeadership(1)).isTrue();
        ticker.tick();
        assertThat(ticker.stepDown()).isFalse();
        assertThat(election.currentLeader()).hasValue(1);
        assertThat(events).isEmpty();
        assertThat(log.lines()).isEmpty();
        ticker.tick(); // and no hold-off: it would claim a vacant seat at once
        assertThat(election.stepDown(1)).isTrue();
        ticker.tick();
        assertThat(election.isLeader(ME)).isTrue();
    }

    @Test
    void stopStepsDownDeliversTheLossBeforeReturningAndAStopAfterThatDoesNothing() {
        LeaderTicker ticker = ticker();
        ticker.start();
        long term = election.electionTerm();
        ticker.stop();
        assertThat(ticker.isRunning()).isFalse();
        assertThat(election.currentLeader()).isEmpty();
        assertThat(events)
                .containsExactly(
                        "Gained " + term + " on " + LeaderTicker.EVENTS_THREAD,
                        "Lost " + term + " on " + LeaderTicker.EVENTS_THREAD);
        ticker.stop();
        assertThat(events).hasSize(2);
    }

    @Test
    void withoutStepDownOnShutdownStopKeepsTheSeatAndALaterStepDownPublishesOnTheCaller() {
        LeaderTicker ticker = ticker(HOUR, 2, recorder(), false, List.of());
        ticker.start();
        long term = election.electionTerm();
        ticker.stop();
        assertThat(election.isLeader(ME)).isTrue();
        assertThat(events).containsExactly("Gained " + term + " on " + LeaderTicker.EVENTS_THREAD);
        assertThat(ticker.stepDown()).isTrue(); // the events thread is gone
        assertThat(events).last().isEqualTo("Lost " + term + " on " + here());
    }

    @Test
    void aStopBeforeStartNeitherStepsDownNorPublishes() {
        LeaderTicker ticker = ticker();
        ticker.tick();
        events.clear();
        ticker.stop();
        assertThat(election.isLeader(ME)).isTrue();
        assertThat(events).isEmpty();
    }

    @Test
    void aListenerThatThrowsIsLoggedAndTheNextEventIsStillDelivered() {
        ApplicationEventPublisher record = recorder();
        LeaderTicker ticker =
                ticker(
                        HOUR,
                        2,
                        event -> {
                            record.publishEvent(event);
                            if (events.size() == 1) {
                                throw new IllegalStateException("listener broke");
                            }
                        },
                        true,
                        List.of());
        ticker.tick();
        long term = election.electionTerm();
        assertThat(ticker.stepDown()).isTrue();
        assertThat(events)
                .containsExactly(
                        "Gained " + term + " on " + here(), "Lost " + term + " on " + here());
        assertThat(log.lines()).first().asString().startsWith("WARN cxc ticker: a listener of ");
        assertThat(log.lines().get(0)).endsWith(" failed [java.lang.IllegalStateException]");
        assertThat(ticker.failedTicks()).isZero();
    }

    @Test
    void aListenerThatStopsTheTickerDoesNotWaitForItselfAndTheLossFollowsIt() throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        LeaderTicker[] self = new LeaderTicker[1];
        ApplicationEventPublisher record = recorder();
        LeaderTicker ticker =
                ticker(
                        HOUR,
                        2,
                        event -> {
                            record.publishEvent(event);
                            if (events.size() == 1) {
                                self[0].stop(); // on the events thread
                                stopped.countDown();
                            }
                        },
                        true,
                        List.of());
        self[0] = ticker;
        ticker.start();
        long term = election.electionTerm();
        assertThat(stopped.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(log.lines()).noneMatch(l -> l.contains("still running after"));
        assertThat(ticker.isRunning()).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 2);
        assertThat(events)
                .containsExactly(
                        "Gained " + term + " on " + LeaderTicker.EVENTS_THREAD,
                        "Lost " + term + " on " + LeaderTicker.EVENTS_THREAD);
    }

    @Test
    void aStopInterruptedWhileAListenerRunsReturnsWithTheInterruptKept() throws Exception {
        CountDownLatch inListener = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ApplicationEventPublisher record = recorder();
        LeaderTicker ticker =
                ticker(
                        HOUR,
                        2,
                        event -> {
                            record.publishEvent(event);
                            inListener.countDown();
                            try {
                                release.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        true,
                        List.of());
        AtomicBoolean interruptKept = new AtomicBoolean();
        try {
            ticker.start();
            assertThat(inListener.await(30, TimeUnit.SECONDS)).isTrue();
            Thread stopper =
                    new Thread(
                            () -> {
                                ticker.stop();
                                interruptKept.set(Thread.currentThread().isInterrupted());
                            },
                            "stopper");
            stopper.start();
            stopper.interrupt();
            stopper.join(30_000);
            assertThat(stopper.isAlive()).isFalse();
        } finally {
            release.countDown();
        }
        assertThat(interruptKept).isTrue();
        assertThat(ticker.isRunning()).isFalse();
        assertThat(log.lines()).noneMatch(l -> l.contains("still running after"));
        await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 2); // the loss follows
    }

    @Test
    void itsThreadsAreDaemonsThatNeverKeepTheJvmUp() {
        LeaderTicker ticker = ticker();
        ticker.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
        List<Thread> threads =
                Thread.getAllStackTraces().keySet().stream()
                        .filter(
                                t ->
                                        t.getName().equals("cxc-leader-ticker")
                                                || t.getName().equals(LeaderTicker.EVENTS_THREAD))
                        .filter(Thread::isAlive)
                        .toList();
        assertThat(threads)
                .extracting(Thread::getName)
                .contains("cxc-leader-ticker", LeaderTicker.EVENTS_THREAD);
        assertThat(threads).allMatch(Thread::isDaemon);
    }

    @Test
    void aRunningTickerTicksAtItsFixedRateNeverFaster() {
        Duration interval = Duration.ofMillis(20);
        LeaderTicker ticker = ticker(interval, 3, recorder(), true, List.of());
        long started = System.nanoTime();
        ticker.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> ticker.ticks() >= 6);
        long ticks = ticker.ticks();
        long elapsed = System.nanoTime() - started;
        // The first tick in start(), then one per interval at most: late ticks are not made up.
        assertThat(ticks).isLessThanOrEqualTo(2 + elapsed / interval.toNanos());
        ticker.stop();
        assertThat(ticker.isRunning()).isFalse();
        long after = ticker.ticks();
        assertThat(election.currentLeader()).isEmpty();
        assertThat(ticker.ticks()).isEqualTo(after); // the thread has ended
    }

    @Test
    void theHeirClaimsAVacatedSeatWithinAPollWithoutWaitingForItsNextTick() {
        // A tick every 10 s, so a poll every second: the claim comes long before the next tick.
        LeaderTicker ticker = ticker(Duration.ofSeconds(10), 3, recorder(), true, List.of());
        assertThat(election.tryClaimLeadership(1)).isTrue();
        ticker.start();
        assertThat(ticker.participant().isHeir()).isTrue();
        assertThat(election.stepDown(1)).isTrue();
        await().atMost(Duration.ofSeconds(8)).until(() -> election.isLeader(ME));
        assertThat(ticker.ticks()).isEqualTo(1); // the start's only
        await().atMost(Duration.ofSeconds(5)).until(() -> events.size() == 1);
        assertThat(events)
                .containsExactly(
                        "Gained " + election.electionTerm() + " on " + LeaderTicker.EVENTS_THREAD);
    }

    @Test
    void itIsTheLastPhaseAndShowsItsParticipantsElectionAndPace() {
        LeaderTicker ticker = ticker();
        assertThat(ticker.getPhase()).isEqualTo(SmartLifecycle.DEFAULT_PHASE);
        assertThat(ticker.election()).isSameAs(election);
        assertThat(ticker.participant().election()).isSameAs(election);
        assertThat(ticker.tickInterval()).isEqualTo(HOUR);
        assertThat(ticker.participant().pid()).isEqualTo(ME);
    }

    @Test
    void forLeaderMakesAParticipantOfThisProcessWithTheTickerSettings() {
        TickerSettings settings =
                new TickerSettings(
                        new SharedLeaderElection.Settings(HOUR, 5), Preemption.NONE, false);
        LeaderTicker ticker =
                LeaderTicker.forLeader(
                        election(HOUR, 5),
                        settings,
                        recorder(),
                        List.of(),
                        (path, s) -> SharedLeaderElection.TYPE.openOrCreate(path, s));
        tickers.add(ticker);
        assertThat(ticker.participant().pid()).isEqualTo(ME);
        assertThat(ticker.participant().graceEpochs()).isEqualTo(5);
        assertThat(ticker.participant().preemption()).isEqualTo(Preemption.NONE);
        assertThat(ticker.tickInterval()).isEqualTo(HOUR);
        ticker.start();
        ticker.stop();
        assertThat(election.isLeader(ME)).isTrue(); // step-down-on-shutdown=false
    }
}
