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

    private PassRegistry open(PassRegistry.Waiting waiting) {
        PassRegistry registry =
                PassRegistry.openOrCreate(dir.resolve("calls.passes"), 1, 2, 64).waiting(waiting);
        opened.add(registry);
        return registry;
    }

    private static PassRegistry.Waiting blockAtOnce(Duration maxPark) {
        return new PassRegistry.Waiting(Duration.ZERO, Duration.ZERO, maxPark, HOUR);
    }

    /** Pass 7 in a handle of this process: one dispatcher, a handler that waits for release. */
    private void gatedOwner() {
        open(PassRegistry.Waiting.DEFAULT)
                .register(
                        7,
                        args -> {
                            release.await();
                            return args;
                        });
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
        PassRegistry caller = open(blockAtOnce(HOUR));
        CompletableFuture<byte[]> first =
                CompletableFuture.supplyAsync(() -> caller.execute(7, new byte[1], HOUR));
        soon().until(() -> caller.describe().get("blockedCalls").equals(1));
        Thread ticker = thread("cxc-pass-ticker-");
        soon().until(() -> ticker.getState() == Thread.State.TIMED_WAITING);

        assertTimesOutByTheTicker(caller, Duration.ofMillis(100));

        assertThat(first).isNotDone();
        release.countDown();
        assertThat(first.get(LIMIT.toSeconds(), TimeUnit.SECONDS)).hasSize(1);
    }

    @Test
    void aTickerAsleepAfterAThousandQuietTicksIsWokenByTheNextBlockedCall() {
        gatedOwner();
        PassRegistry caller = open(blockAtOnce(Duration.ofMillis(1)));
        assertTimesOutByTheTicker(caller, Duration.ofMillis(20));
        Thread ticker = thread("cxc-pass-ticker-");
        soon().until(
                        () ->
                                ticker.getState() == Thread.State.WAITING
                                        && Arrays.stream(ticker.getStackTrace())
                                                .anyMatch(f -> f.getMethodName().equals("tick")));

        assertTimesOutByTheTicker(caller, Duration.ofMillis(50));
        assertThat(caller.describe()).containsEntry("blockedCalls", 0);
    }

    /**
     * The caller's ticker: the newest of that name (the owner's started when its dispatcher first
     * blocked, before any call).
     */
    private Thread thread(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(prefix + "calls.passes") && t.isAlive())
                .filter(t -> !t.getState().equals(Thread.State.TERMINATED))
                .reduce((a, b) -> a.getId() > b.getId() ? a : b)
                .orElseThrow();
    }

    /** Awaitility polling every millisecond from the start (its default waits 100 ms first). */
    private static org.awaitility.core.ConditionFactory soon() {
        return await().atMost(LIMIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
    }
}
