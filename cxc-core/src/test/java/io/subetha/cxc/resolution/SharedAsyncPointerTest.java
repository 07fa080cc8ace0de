package io.subetha.cxc.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.CxcFileOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The async pointer in one process: once, failures, timeouts, resets and bad input. */
class SharedAsyncPointerTest {

    static final Duration LONG = Duration.ofSeconds(60);
    static final long PID = ProcessHandle.current().pid();

    @TempDir Path dir;

    SharedAsyncPointer<Long> pointer() {
        return SharedAsyncPointer.openOrCreate(
                dir.resolve("p.cxc"), new SharedAsyncPointer.Settings<>(FixedCodec.INT64));
    }

    @Test
    void theFirstFetchResolvesTheCellAndNobodyFetchesAgain() {
        try (SharedAsyncPointer<Long> pointer = pointer()) {
            assertThat(pointer.tryGet()).isEmpty();
            AtomicInteger calls = new AtomicInteger();
            assertThat(pointer.getOrFetch(() -> 40L + calls.incrementAndGet(), LONG)).isEqualTo(41);
            assertThat(pointer.getOrFetch(() -> 40L + calls.incrementAndGet(), LONG)).isEqualTo(41);
            assertThat(pointer.tryGet()).contains(41L);
            assertThat(calls).hasValue(1);
            assertThat(pointer.opCounts())
                    .containsEntry("get_or_fetch", 2L)
                    .containsEntry("try_get", 2L);
            assertThat(pointer.describe())
                    .containsEntry("state", "RESOLVED")
                    .containsEntry("fetches", 1L);
        }
        try (SharedAsyncPointer<Long> again = pointer()) {
            assertThat(again.tryGet()).contains(41L);
        }
    }

    @Test
    void aFetchThatThrowsReleasesTheCellItsCallerSeesTheExceptionAndAWaiterFetches()
            throws Exception {
        try (SharedAsyncPointer<Long> pointer = pointer()) {
            CountDownLatch failing = new CountDownLatch(1);
            CountDownLatch fail = new CountDownLatch(1);
            AtomicInteger calls = new AtomicInteger();
            CompletableFuture<Long> first =
                    CompletableFuture.supplyAsync(
                            () ->
                                    pointer.getOrFetch(
                                            () -> {
                                                calls.incrementAndGet();
                                                failing.countDown();
                                                await(fail);
                                                throw new IllegalStateException("source down");
                                            },
                                            LONG));
            assertThat(failing.await(60, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Long> waiter =
                    CompletableFuture.supplyAsync(
                            () -> pointer.getOrFetch(() -> 7L + 0 * calls.incrementAndGet(), LONG));
            assertThat(pointer.fetcher()).hasValue(PID);
            fail.countDown();
            assertThat(waiter.get(60, TimeUnit.SECONDS)).isEqualTo(7);
            assertThatThrownBy(() -> first.get(60, TimeUnit.SECONDS))
                    .hasRootCauseInstanceOf(IllegalStateException.class)
                    .hasRootCauseMessage("source down");
            assertThat(calls).hasValue(2);
            assertThat(pointer.describe()).containsEntry("failedFetches", 1L);
        }
    }

    @Test
    void aWaiterThatTimesOutIsToldWhoIsFetching() throws Exception {
        try (SharedAsyncPointer<Long> pointer = pointer()) {
            CountDownLatch fetching = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            CompletableFuture<Long> slow =
                    CompletableFuture.supplyAsync(
                            () ->
                                    pointer.getOrFetch(
                                            () -> {
                                                fetching.countDown();
                                                await(finish);
                                                return 5L;
                                            },
                                            LONG));
            assertThat(fetching.await(60, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> pointer.getOrFetch(() -> 6L, Duration.ofMillis(50)))
                    .isInstanceOf(CxcTimeoutException.class)
                    .hasMessageContaining("by PID " + PID)
                    .hasMessageContaining("PT0.05S")
                    .hasMessageContaining("p.cxc");
            assertThat(pointer.describe()).containsEntry("state", "FETCHING");
            finish.countDown();
            assertThat(slow.get(60, TimeUnit.SECONDS)).isEqualTo(5);
        }
    }

    @Test
    void aResetMakesTheNextCallerFetchAndAFetchOverlappingAResetDoesNotPublish() throws Exception {
        try (SharedAsyncPointer<Long> pointer = pointer()) {
            assertThat(pointer.getOrFetch(() -> 1L, LONG)).isEqualTo(1);
            pointer.reset();
            assertThat(pointer.tryGet()).isEmpty();
            assertThat(pointer.getOrFetch(() -> 2L, LONG)).isEqualTo(2);

            pointer.reset();
            CountDownLatch fetching = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            CompletableFuture<Long> overlapped =
                    CompletableFuture.supplyAsync(
                            () ->
                                    pointer.getOrFetch(
                                            () -> {
                                                fetching.countDown();
                                                await(finish);
                                                return 3L;
                                            },
                                            LONG));
            assertThat(fetching.await(60, TimeUnit.SECONDS)).isTrue();
            pointer.reset();
            finish.countDown();
            assertThat(overlapped.get(60, TimeUnit.SECONDS)).isEqualTo(3);
            assertThat(pointer.tryGet()).isEmpty();
            assertThat(pointer.getOrFetch(() -> 4L, LONG)).isEqualTo(4);
        }
    }

    @Test
    void aValueTheCodecRefusesReleasesTheFetch() {
        Path path = dir.resolve("s.cxc");
        try (SharedAsyncPointer<String> pointer =
                SharedAsyncPointer.TYPE.create(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.string(4)))) {
            assertThatThrownBy(() -> pointer.getOrFetch(() -> "too long", LONG))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> pointer.getOrFetch(() -> null, LONG))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("returned null");
            assertThat(pointer.getOrFetch(() -> "ok", LONG)).isEqualTo("ok");
        }
    }

    @Test
    void badArgumentsAndAnotherCodecAreRefused() {
        try (SharedAsyncPointer<Long> pointer = pointer()) {
            assertThatThrownBy(() -> pointer.getOrFetch(() -> 1L, Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("timeout must be positive, got PT0S");
            assertThatThrownBy(() -> pointer.getOrFetch(null, LONG))
                    .isInstanceOf(NullPointerException.class);
        }
        assertThatThrownBy(
                        () ->
                                SharedAsyncPointer.open(
                                        dir.resolve("p.cxc"),
                                        new SharedAsyncPointer.Settings<>(FixedCodec.INT32)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("slot size 8 bytes, but this code expects 4");
        assertThatThrownBy(
                        () ->
                                SharedAsyncPointer.TYPE.create(
                                        dir.resolve("big.cxc"),
                                        new SharedAsyncPointer.Settings<>(
                                                FixedCodec.bytes(2 << 20))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("codec must be 1..1048576");
        try (var observer =
                SharedAsyncPointer.TYPE.observe(dir.resolve("p.cxc"), CxcFileOptions.defaults())) {
            assertThat(observer.describe()).containsEntry("valueBytes", 8);
        }
    }

    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released in 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
