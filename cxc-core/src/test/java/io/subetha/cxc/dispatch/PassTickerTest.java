package io.subetha.cxc.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.subetha.cxc.CxcTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the caller's ticker looks: a blocked call whose deadline comes before the ticker's next look
 * wakes it (its looks an hour apart otherwise), and a ticker that went to sleep after a thousand
 * quiet ticks is woken by the next call that blocks. The handler never answers, so only the ticker
 * can end each call, at its deadline.
 */
class PassTickerTest {

    private static final Duration LIMIT = Duration.ofSeconds(20);
    private static final Duration HOUR = Duration.ofHours(1);

    @TempDir Path dir;
    private final List<PassRegistry> opened = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void closeAll() {
        release.countDown();
        opened.forEach(PassRegistry::close);
    }

    private PassRegistry open(PassWaiting waiting) {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        dir.resolve("calls.passes"),
                        new PassRegistry.Settings(1, 2, 64).withWaiting(waiting));
        opened.add(registry);
        return registry;
    }

    private static PassWaiting blockAtOnce(Duration maxPark) {
        return new PassWaiting(Duration.ZERO, Duration.ZERO, maxPark, HOUR);
    }

    /** Pass 7 in a handle of this process: one dispatcher, a handler that waits for release. */
    private void gatedOwner() {
        PassRegistry owner = open(PassWaiting.DEFAULT);
        owner.register(
                7,
                args -> {
                    release.await();
                    return args;
                });
        // Its dispatcher blocks (and starts the owner's own ticker) before any call.
        soon().until(() -> owner.describe().get("passes") != null && ownerTickerStarted(owner));
    }

    private static boolean ownerTickerStarted(PassRegistry owner) {
        return java.util.Arrays.stream(Thread.getAllStackTraces().keySet().toArray(new Thread[0]))
                .anyMatch(
                        t ->
                                t.getName().equals("cxc-pass-ticker-calls.passes")
                                        && t.isAlive()
                                        && t.getState() == Thread.State.TIMED_WAITING);
    }

    private static void assertTimesOutByTheTicker(PassRegistry caller, Duration timeout) {
        assertTimeoutPreemptively(
                LIMIT,
                () ->
                        org.assertj.core.api.Assertions.assertThatThrownBy(
                                        () -> caller.execute(7, new byte[1], timeout))
                                .isInstanceOf(CxcTimeoutException.class)
                                .hasMessageContaining("within " + timeout));
    }

    @Test
    void aBlockedCallWithAnEarlierDeadlineWakesATickerThatLooksHourly() throws Exception {
        gatedOwner();
        java.util.Set<Thread> before = tickers();
        PassRegistry caller = open(blockAtOnce(HOUR));
        CompletableFuture<byte[]> first =
                CompletableFuture.supplyAsync(() -> caller.execute(7, new byte[1], HOUR));
        soon().until(() -> caller.describe().get("blockedCalls").equals(1));
        Thread ticker = startedSince(before);
        soon().until(() -> ticker.getState() == Thread.State.TIMED_WAITING);

        assertTimesOutByTheTicker(caller, Duration.ofMillis(100));

        assertThat(first).isNotDone();
        release.countDown();
        assertThat(first.get(LIMIT.toSeconds(), TimeUnit.SECONDS)).hasSize(1);
    }

    @Test
    void aTickerAsleepAfterAThousandQuietTicksIsWokenByTheNextBlockedCall() {
        gatedOwner();
        java.util.Set<Thread> before = tickers();
        PassRegistry caller = open(blockAtOnce(Duration.ofMillis(1)));
        assertTimesOutByTheTicker(caller, Duration.ofMillis(20));
        Thread ticker = startedSince(before);
        soon().until(
                        () ->
                                ticker.getState() == Thread.State.WAITING
                                        && Arrays.stream(ticker.getStackTrace())
                                                .anyMatch(f -> f.getMethodName().equals("tick")));

        assertTimesOutByTheTicker(caller, Duration.ofMillis(50));
        assertThat(caller.describe()).containsEntry("blockedCalls", 0);
    }

    private static java.util.Set<Thread> tickers() {
        java.util.Set<Thread> found = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("cxc-pass-ticker-calls.passes") && t.isAlive()) {
                found.add(t);
            }
        }
        return found;
    }

    /** The caller's ticker: the one ticker started since {@code before} (the owner's may be). */
    private static Thread startedSince(java.util.Set<Thread> before) {
        // The call is counted blocked just before it starts the ticker: wait for the thread.
        soon().until(() -> !startedAfter(before).isEmpty());
        return startedAfter(before).stream()
                .reduce((a, b) -> a.getId() > b.getId() ? a : b)
                .orElseThrow();
    }

    private static java.util.Set<Thread> startedAfter(java.util.Set<Thread> before) {
        java.util.Set<Thread> now = tickers();
        now.removeAll(before);
        return now;
    }

    /** Awaitility polling every millisecond from the start (its default waits 100 ms first). */
    private static org.awaitility.core.ConditionFactory soon() {
        return await().atMost(LIMIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
    }
}
