package io.subetha.cxc.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.process.Pids;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One process, two handles on one file: the owner's and a caller's. Every call still goes through
 * the mailbox in the file and the owner's dispatcher thread.
 */
class PassRegistryTest {

    private static final Duration LONG = Duration.ofSeconds(30);

    @TempDir Path dir;

    private final List<PassRegistry> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(PassRegistry::close);
    }

    private PassRegistry open(int maxPasses, int slots, int payload) {
        return open(new PassRegistry.Settings(maxPasses, slots, payload));
    }

    private PassRegistry open(PassRegistry.Settings settings) {
        PassRegistry registry = PassRegistry.openOrCreate(dir.resolve("calls.passes"), settings);
        opened.add(registry);
        return registry;
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    private static long asLong(byte[] bytes) {
        return ByteBuffer.wrap(bytes).getLong();
    }

    @Test
    void callerGetsTheOwnersResultAndCountsShowIt() {
        PassRegistry owner = open(8, 4, 64);
        PassRegistry caller = open(8, 4, 64);
        owner.register(7, args -> longBytes(asLong(args) * 2));

        for (long i = 1; i <= 200; i++) {
            assertThat(asLong(caller.execute(7, longBytes(i), LONG))).isEqualTo(2 * i);
        }
        assertThat(caller.isRegistered(7)).isTrue();
        assertThat(caller.isRegistered(8)).isFalse();
        assertThat(caller.registeredCount()).isEqualTo(1);
        assertThat(owner.registeredHere()).containsExactly(7L);
        @SuppressWarnings("unchecked")
        List<java.util.Map<String, Object>> passes =
                (List<java.util.Map<String, Object>>) caller.describe().get("passes");
        assertThat(passes).hasSize(1);
        assertThat(passes.get(0))
                .containsEntry("passId", 7L)
                .containsEntry("ownerPid", Pids.current())
                .containsEntry("calls", 200L);
        assertThat(caller.describe()).containsEntry("busySlots", 0);
    }

    @Test
    void unknownIdFailsAtOnce() {
        PassRegistry caller = open(8, 4, 64);
        assertThatThrownBy(() -> caller.execute(99, new byte[1], LONG))
                .isInstanceOf(PassNotRegisteredException.class)
                .hasMessageContaining("pass 99")
                .hasMessageContaining("never registered");

        PassRegistry owner = open(8, 4, 64);
        owner.register(99, args -> args);
        owner.unregister(99);
        assertThatThrownBy(() -> caller.execute(99, new byte[1], LONG))
                .isInstanceOf(PassNotRegisteredException.class)
                .hasMessageContaining("unregistered");
        assertThat(caller.isRegistered(99)).isFalse();
    }

    @Test
    void handlerExceptionComesBackWithClassAndMessage() {
        PassRegistry owner = open(8, 4, 256);
        PassRegistry caller = open(8, 4, 256);
        owner.register(
                3,
                args -> {
                    throw new IllegalStateException("no stock for " + new String(args));
                });

        assertThatThrownBy(() -> caller.execute(3, "sku-1".getBytes(), LONG))
                .isInstanceOfSatisfying(
                        PassFailedException.class,
                        e -> {
                            assertThat(e.handlerException())
                                    .isEqualTo("java.lang.IllegalStateException");
                            assertThat(e.handlerMessage()).isEqualTo("no stock for sku-1");
                            assertThat(e.ownerPid()).isEqualTo(Pids.current());
                        })
                .hasMessageContaining("pass 3");
        // The slot was freed: the next call works.
        owner.unregister(3);
        owner.register(3, args -> args);
        assertThat(caller.execute(3, "x".getBytes(), LONG)).isEqualTo("x".getBytes());
    }

    @Test
    void payloadLimitsNameTheLimit() {
        PassRegistry owner = open(8, 4, 100);
        PassRegistry caller = open(8, 4, 100);
        owner.register(1, args -> new byte[args.length + 1]);
        assertThatThrownBy(() -> caller.execute(1, new byte[101], LONG))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("101 bytes")
                .hasMessageContaining("maxPayloadBytes 100");
        // A result over the limit is the handler's failure, reported to the caller.
        assertThatThrownBy(() -> caller.execute(1, new byte[100], LONG))
                .isInstanceOf(PassFailedException.class)
                .hasMessageContaining("maxPayloadBytes 100");
        assertThat(caller.execute(1, new byte[0], LONG)).hasSize(1);
    }

    @Test
    void badArgumentsAreRefused() {
        PassRegistry registry = open(2, 1, 16);
        assertThatThrownBy(() -> registry.register(0, args -> args))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("passId must not be 0");
        assertThatThrownBy(() -> registry.execute(1, new byte[1], Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout");
        assertThatThrownBy(() -> registry.unregister(5))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not registered through this handle");
        registry.register(1, args -> args);
        assertThatThrownBy(() -> registry.register(1, args -> args))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already registered through this handle");
        PassRegistry other = open(2, 1, 16);
        assertThatThrownBy(() -> other.register(1, args -> args))
                .isInstanceOfSatisfying(
                        PassOwnedException.class,
                        e -> assertThat(e.ownerPid()).isEqualTo(Pids.current()))
                .hasMessageContaining("PID " + Pids.current());
        registry.register(2, args -> args);
        assertThatThrownBy(() -> registry.register(3, args -> args))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("all 2 pass entries (maxPasses)");
        assertThatThrownBy(() -> new PassRegistry.Settings(0, 1, 1))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("maxPasses must be 1..4096, got 0");
        assertThatThrownBy(() -> new PassRegistry.Settings(1, 1, (1 << 20) + 1))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("maxPayloadBytes");
        assertThatThrownBy(() -> new PassRegistry.Settings(4096, 1024, 1 << 20))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("must fit a file");
    }

    @Test
    void fullMailboxIsBackPressureThenACapacityError() throws Exception {
        PassRegistry owner = open(new PassRegistry.Settings(4, 2, 16).withDispatcherThreads(2));
        PassRegistry caller = open(4, 2, 16);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger started = new AtomicInteger();
        owner.register(
                5,
                args -> {
                    started.incrementAndGet();
                    release.await(60, TimeUnit.SECONDS);
                    return args;
                });
        CompletableFuture<byte[]> first = caller.executeAsync(5, new byte[] {1}, LONG);
        CompletableFuture<byte[]> second = caller.executeAsync(5, new byte[] {2}, LONG);
        await().atMost(LONG).until(() -> started.get() == 2);

        assertThatThrownBy(() -> caller.execute(5, new byte[] {3}, Duration.ofMillis(300)))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("all 2 mailbox slots (mailboxSlots) of pass 5")
                .hasMessageContaining("PID " + Pids.current());

        // Back-pressure: a call that waits long enough gets a slot once one frees.
        CompletableFuture<byte[]> third = caller.executeAsync(5, new byte[] {4}, LONG);
        release.countDown();
        assertThat(first.get(30, TimeUnit.SECONDS)).containsExactly(1);
        assertThat(second.get(30, TimeUnit.SECONDS)).containsExactly(2);
        assertThat(third.get(30, TimeUnit.SECONDS)).containsExactly(4);
    }

    @Test
    void aTimedOutCallsAnswerNeverReachesTheNextCallInItsSlot() throws Exception {
        PassRegistry owner = open(4, 1, 16);
        PassRegistry caller = open(4, 1, 16);
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        owner.register(
                9,
                args -> {
                    if (args[0] == 'A') {
                        firstRunning.countDown();
                        releaseFirst.await(60, TimeUnit.SECONDS);
                        return "answer-for-A".getBytes(StandardCharsets.UTF_8);
                    }
                    return ("answer-for-" + (char) args[0]).getBytes(StandardCharsets.UTF_8);
                });
        CompletableFuture<byte[]> a =
                CompletableFuture.supplyAsync(
                        () -> caller.execute(9, new byte[] {'A'}, Duration.ofMillis(500)));
        assertThat(firstRunning.await(30, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> a.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("still running");

        // The one slot is abandoned, not free: B waits for it, and gets its own answer.
        CompletableFuture<byte[]> b = caller.executeAsync(9, new byte[] {'B'}, LONG);
        releaseFirst.countDown();
        assertThat(new String(b.get(30, TimeUnit.SECONDS), StandardCharsets.UTF_8))
                .isEqualTo("answer-for-B");
        for (char c = 'C'; c < 'K'; c++) {
            assertThat(new String(caller.execute(9, new byte[] {(byte) c}, LONG)))
                    .isEqualTo("answer-for-" + c);
        }
    }

    @Test
    void withdrawnRequestNeverRuns() throws Exception {
        PassRegistry owner = open(4, 2, 16);
        PassRegistry caller = open(4, 2, 16);
        CountDownLatch block = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        owner.register(
                4,
                args -> {
                    if (args[0] == 0) {
                        block.await(60, TimeUnit.SECONDS);
                    } else {
                        ran.incrementAndGet();
                    }
                    return args;
                });
        CompletableFuture<byte[]> blocker = caller.executeAsync(4, new byte[] {0}, LONG);
        await().atMost(LONG).until(() -> caller.describe().get("busySlots").equals(1));
        // The only dispatcher is busy: this request waits in the mailbox and times out there.
        assertThatThrownBy(() -> caller.execute(4, new byte[] {1}, Duration.ofMillis(200)))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("withdrawn before it ran");
        block.countDown();
        blocker.get(30, TimeUnit.SECONDS);
        assertThat(caller.execute(4, new byte[] {2}, LONG)).containsExactly(2);
        assertThat(ran).hasValue(1);
    }

    @Test
    void unregisterWhileACallWaitsFailsItNamingTheOwner() throws Exception {
        PassRegistry owner = open(4, 2, 16);
        PassRegistry caller = open(4, 2, 16);
        CountDownLatch block = new CountDownLatch(1);
        owner.register(
                6,
                args -> {
                    block.await(60, TimeUnit.SECONDS);
                    return args;
                });
        CompletableFuture<byte[]> running = caller.executeAsync(6, new byte[] {0}, LONG);
        await().atMost(LONG).until(() -> caller.describe().get("busySlots").equals(1));
        CompletableFuture<byte[]> waiting = caller.executeAsync(6, new byte[] {1}, LONG);
        await().atMost(LONG).until(() -> caller.describe().get("busySlots").equals(2));
        owner.unregister(6);

        assertThatThrownBy(() -> waiting.get(30, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(PassOwnerDiedException.class)
                .hasMessageContaining("unregistered by its owner, PID " + Pids.current());
        // The call already running finishes.
        block.countDown();
        assertThat(running.get(30, TimeUnit.SECONDS)).containsExactly(0);
    }

    @Test
    void closeStopsTheDispatcherThreadsAndFreesTheIds() {
        PassRegistry owner = open(new PassRegistry.Settings(4, 2, 16).withDispatcherThreads(3));
        owner.register(1, args -> args);
        owner.register(2, args -> args);
        assertThat(dispatcherThreads()).hasSize(3);

        owner.close();

        assertThat(dispatcherThreads()).isEmpty();
        PassRegistry next = open(4, 2, 16);
        assertThat(next.registeredCount()).isZero();
        next.register(1, args -> new byte[] {42});
        assertThat(next.execute(1, new byte[0], LONG)).containsExactly(42);
        assertThatThrownBy(() -> owner.register(3, args -> args))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    private static List<Thread> dispatcherThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("cxc-pass-dispatcher-calls.passes"))
                .filter(Thread::isAlive)
                .toList();
    }

    @Test
    void reopeningWithOtherSettingsIsRefused() {
        open(4, 2, 16).close();
        assertThatThrownBy(
                        () ->
                                PassRegistry.openOrCreate(
                                                dir.resolve("calls.passes"),
                                                new PassRegistry.Settings(8, 2, 16))
                                        .close())
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining("capacity");
        PassRegistry any = PassRegistry.open(dir.resolve("calls.passes"));
        opened.add(any);
        assertThat(any.maxPasses()).isEqualTo(4);
        assertThat(any.mailboxSlots()).isEqualTo(2);
        assertThat(any.maxPayloadBytes()).isEqualTo(16);
    }
}
