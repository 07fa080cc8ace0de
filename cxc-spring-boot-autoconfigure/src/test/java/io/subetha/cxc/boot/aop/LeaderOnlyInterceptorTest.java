package io.subetha.cxc.boot.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.NotLeaderException;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.annotation.OnNotLeader;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.aop.framework.ProxyFactory;

/**
 * The {@code @LeaderOnly} advice's own bookkeeping, through a real proxy over a real election file
 * (no context): the leadership looked up once (and its absence remembered), a led call's result
 * returned, a nested call counted once, an interrupted call's flag cleared when it returns, how
 * many calls a loss interrupted, the leader a refusal names, a drain interrupted while it waits,
 * and what a skipped {@code OptionalInt} or {@code OptionalDouble} method returns.
 */
class LeaderOnlyInterceptorTest {

    private static final long ME = Pids.current();

    @TempDir Path temp;

    private SharedLeaderElection election;

    /** The leadership application code sees, read straight from the election file. */
    record FileLeadership(SharedLeaderElection election, long pid) implements CxcLeadership {
        @Override
        public boolean isLeader() {
            return election.isLeader(pid);
        }

        @Override
        public OptionalLong currentLeader() {
            return election.currentLeader();
        }

        @Override
        public long term() {
            return election.electionTerm();
        }

        @Override
        public long termIfLeader() {
            return election.termIfLeader(pid);
        }

        @Override
        public boolean stepDown() {
            return election.stepDown(pid);
        }

        @Override
        public LeaderSnapshot snapshot() {
            return election.snapshot();
        }
    }

    /** What the proxy offers. */
    public interface Calls {
        String lead();

        String mustLead();

        Integer nested(Calls self, LeaderOnlyAdvisor advisor);

        void idle();

        Boolean loseMidCall(LeaderOnlyAdvisor advisor, AtomicInteger interrupted);

        void block(CountDownLatch entered, CountDownLatch release);

        OptionalInt count();

        OptionalDouble ratio();
    }

    static class Target implements Calls {
        @Override
        @LeaderOnly
        public String lead() {
            return "led";
        }

        @Override
        @LeaderOnly(onNotLeader = OnNotLeader.THROW)
        public String mustLead() {
            return "led";
        }

        /** Returns the calls in flight seen after the inner call returned. */
        @Override
        @LeaderOnly
        public Integer nested(Calls self, LeaderOnlyAdvisor advisor) {
            self.idle();
            return advisor.inFlight();
        }

        @Override
        @LeaderOnly
        public void idle() {}

        /** Loses the term mid-call, runs the ticker's interrupt pass, reports the flag. */
        @Override
        @LeaderOnly(interruptOnLoss = true)
        public Boolean loseMidCall(LeaderOnlyAdvisor advisor, AtomicInteger interrupted) {
            SharedLeaderElection election = ((FileLeadership) LEADERSHIP.get()).election();
            election.stepDown(ME);
            interrupted.set(advisor.interruptCallsThatLostLeadership());
            return Thread.currentThread().isInterrupted();
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

        @Override
        @LeaderOnly
        public OptionalInt count() {
            return OptionalInt.of(3);
        }

        @Override
        @LeaderOnly
        public OptionalDouble ratio() {
            return OptionalDouble.of(0.5);
        }
    }

    /** The leadership the current test's advisor resolves; read by the target too. */
    static final AtomicReference<@Nullable CxcLeadership> LEADERSHIP = new AtomicReference<>();

    @BeforeEach
    void open() {
        election = SharedLeaderElection.openOrCreate(temp.resolve("leader.cxc"));
        LEADERSHIP.set(new FileLeadership(election, ME));
    }

    @AfterEach
    void close() {
        LEADERSHIP.set(null);
        election.close();
    }

    private static Calls proxy(LeaderOnlyAdvisor advisor) {
        ProxyFactory factory = new ProxyFactory(new Target());
        factory.addInterface(Calls.class);
        factory.addAdvisor(advisor);
        return (Calls) factory.getProxy();
    }

    @Test
    void theLeadershipIsLookedUpOnceAndItsAbsenceIsRemembered() {
        AtomicInteger lookups = new AtomicInteger();
        Supplier<@Nullable CxcLeadership> counting =
                () -> {
                    lookups.incrementAndGet();
                    return LEADERSHIP.get();
                };
        assertThat(election.tryClaimLeadership(ME)).isTrue();
        Calls calls = proxy(new LeaderOnlyAdvisor(counting, ME));
        assertThat(calls.lead()).isEqualTo("led");
        assertThat(calls.lead()).isEqualTo("led");
        assertThat(lookups).hasValue(1);

        AtomicInteger none = new AtomicInteger();
        Calls without =
                proxy(
                        new LeaderOnlyAdvisor(
                                () -> {
                                    none.incrementAndGet();
                                    return null;
                                },
                                ME));
        assertThat(without.lead()).isNull(); // skipped: no leadership, never leads
        assertThat(without.lead()).isNull();
        assertThat(none).hasValue(1);
        assertThatThrownBy(without::mustLead)
                .isInstanceOfSatisfying(
                        NotLeaderException.class, e -> assertThat(e.leaderPid()).isZero());
    }

    @Test
    void aNestedCallIsCountedOnceAndLeavesNothingInFlight() {
        assertThat(election.tryClaimLeadership(ME)).isTrue();
        LeaderOnlyAdvisor advisor = new LeaderOnlyAdvisor(LEADERSHIP::get, ME);
        Calls calls = proxy(advisor);
        assertThat(calls.nested(calls, advisor)).isEqualTo(1); // the outer call only
        assertThat(advisor.inFlight()).isZero();
    }

    @Test
    void aCallInterruptedOnLossHasItsInterruptClearedWhenItReturnsAndIsCountedOnce() {
        assertThat(election.tryClaimLeadership(ME)).isTrue();
        LeaderOnlyAdvisor advisor = new LeaderOnlyAdvisor(LEADERSHIP::get, ME);
        Calls calls = proxy(advisor);
        AtomicInteger interrupted = new AtomicInteger(-1);
        assertThat(calls.loseMidCall(advisor, interrupted)).isTrue(); // interrupted inside
        assertThat(interrupted).hasValue(1);
        assertThat(Thread.currentThread().isInterrupted()).isFalse(); // and cleared after
        assertThat(advisor.interruptCallsThatLostLeadership()).isZero(); // nothing running now
    }

    @Test
    void aCallWhoseTermIsStillHeldIsNotInterrupted() throws Exception {
        assertThat(election.tryClaimLeadership(ME)).isTrue();
        LeaderOnlyAdvisor advisor = new LeaderOnlyAdvisor(LEADERSHIP::get, ME);
        Calls calls = proxy(advisor);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> running =
                CompletableFuture.runAsync(() -> calls.block(entered, release));
        try {
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(advisor.interruptCallsThatLostLeadership()).isZero();
        } finally {
            release.countDown();
        }
        running.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aRefusalNamesTheLeaderUnlessThisProcessIsDraining() {
        LeaderOnlyAdvisor advisor = new LeaderOnlyAdvisor(LEADERSHIP::get, ME);
        Calls calls = proxy(advisor);
        assertThat(election.tryClaimLeadership(1)).isTrue();
        assertThatThrownBy(calls::mustLead)
                .isInstanceOfSatisfying(
                        NotLeaderException.class,
                        e -> {
                            assertThat(e.leaderPid()).isEqualTo(1);
                            assertThat(e.pid()).isEqualTo(ME);
                        });
        advisor.drain(Duration.ZERO);
        assertThatThrownBy(calls::mustLead)
                .isInstanceOfSatisfying(
                        NotLeaderException.class, e -> assertThat(e.leaderPid()).isZero());
    }

    @Test
    void aDrainInterruptedWhileItWaitsReturnsTheCallsStillRunningAndKeepsTheInterrupt()
            throws Exception {
        assertThat(election.tryClaimLeadership(ME)).isTrue();
        LeaderOnlyAdvisor advisor = new LeaderOnlyAdvisor(LEADERSHIP::get, ME);
        Calls calls = proxy(advisor);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> running =
                CompletableFuture.runAsync(() -> calls.block(entered, release));
        try {
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            AtomicInteger left = new AtomicInteger(-1);
            AtomicInteger kept = new AtomicInteger();
            Thread drainer =
                    new Thread(
                            () -> {
                                left.set(advisor.drain(Duration.ofSeconds(30)));
                                kept.set(Thread.currentThread().isInterrupted() ? 1 : 0);
                            });
            drainer.start();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> drainer.getState() == Thread.State.TIMED_WAITING);
            drainer.interrupt();
            drainer.join(10_000);
            assertThat(drainer.isAlive()).isFalse();
            assertThat(left).hasValue(1);
            assertThat(kept).hasValue(1);
        } finally {
            release.countDown();
        }
        running.get(10, TimeUnit.SECONDS);
    }

    @Test
    void skippedOptionalIntAndOptionalDoubleMethodsReturnEmptyNotNull() {
        Calls calls = proxy(new LeaderOnlyAdvisor(LEADERSHIP::get, ME));
        assertThat(calls.count()).isEqualTo(OptionalInt.empty());
        assertThat(calls.ratio()).isEqualTo(OptionalDouble.empty());
        assertThat(election.tryClaimLeadership(ME)).isTrue();
        assertThat(calls.count()).isEqualTo(OptionalInt.of(3));
        assertThat(calls.ratio()).isEqualTo(OptionalDouble.of(0.5));
    }
}
