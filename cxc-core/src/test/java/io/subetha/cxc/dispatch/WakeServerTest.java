package io.subetha.cxc.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.process.Pids;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wake socket on its own, driven as a dispatcher and a caller would drive it: how its address
 * names it, which old sockets a start deletes, a caller's poke, a wake-up before or during a wait,
 * the switch to a blocking read after exactly {@link WakeServer#SOLO_AFTER} lonely waits, and what
 * closing leaves. Every wait here returns by a poke or a wake-up; none is timed.
 */
class WakeServerTest {

    private static final Duration LIMIT = Duration.ofSeconds(10);
    private static final long SELF = Pids.current();
    private static final long START = OwnerRecord.startTimeOf(SELF);

    @TempDir Path dir;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    private Path file() {
        return dir.resolve("calls.passes");
    }

    private WakeServer start() {
        WakeServer server = WakeServer.start(WakeServer.directory(file()), SELF, START);
        assertThat(server).isNotNull();
        opened.add(server);
        return server;
    }

    private WakeConnection connect(WakeServer server) throws IOException {
        WakeConnection connection = WakeConnection.connect(server.socket, server.address);
        opened.add(connection);
        return connection;
    }

    @Test
    void theAddressNamesTheSocketByPidStartTimeAndSequence() {
        WakeServer server = start();
        long seq = (server.address >>> 22) & 1023;

        assertThat(server.address & ((1L << 22) - 1)).isEqualTo(SELF);
        assertThat(server.address >>> 32).isEqualTo(START & 0xFFFF_FFFFL);
        assertThat(server.socket.getFileName().toString())
                .isEqualTo(
                        SELF + "-" + Long.toHexString(START & 0xFFFF_FFFFL) + "-" + seq + ".sock");
        assertThat(WakeServer.socketOf(WakeServer.directory(file()), server.address))
                .isEqualTo(server.socket);
        assertThat(
                        WakeServer.socketOf(
                                WakeServer.directory(file()), server.address & ~((1L << 22) - 1)))
                .isNull();
        WakeServer next = start();
        assertThat(next.socket).isNotEqualTo(server.socket);
        assertThat(next.address & ((1L << 22) - 1)).isEqualTo(SELF);
    }

    @Test
    void aPidOutsideTheAddressesRangeGetsNoServer() {
        assertThat(WakeServer.start(WakeServer.directory(file()), 0, START)).isNull();
        assertThat(WakeServer.start(WakeServer.directory(file()), -1, START)).isNull();
        assertThat(WakeServer.start(WakeServer.directory(file()), 1L << 22, START)).isNull();
        WakeServer widest = WakeServer.start(WakeServer.directory(file()), (1L << 22) - 1, START);
        assertThat(widest).isNotNull();
        opened.add(widest);
        assertThat(widest.address & ((1L << 22) - 1)).isEqualTo((1L << 22) - 1);
    }

    @Test
    void startingDeletesTheSocketsOfDeadProcessesOnlyAndMakesTheDirectoryOwnerOnly()
            throws IOException {
        Path wake = WakeServer.directory(file());
        Files.createDirectory(
                wake,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        long deadPid = PassRegistryFixture.DEAD_PID;
        Path dead = Files.createFile(wake.resolve(deadPid + "-1f-0.sock"));
        Path reusedPid =
                Files.createFile(
                        wake.resolve(
                                SELF
                                        + "-"
                                        + Long.toHexString((START + 7) & 0xFFFF_FFFFL)
                                        + "-5.sock"));
        Path live =
                Files.createFile(
                        wake.resolve(
                                SELF
                                        + "-"
                                        + Long.toHexString(START & 0xFFFF_FFFFL)
                                        + "-1000.sock"));
        Path twoParts = Files.createFile(wake.resolve(deadPid + "-1f.sock"));
        Path notNumbers = Files.createFile(wake.resolve("a-b-c.sock"));
        Path notASocket = Files.createFile(wake.resolve(deadPid + "-1f-0.txt"));

        start();

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(wake)))
                .isEqualTo("rwx------");
        assertThat(dead).doesNotExist();
        assertThat(reusedPid).doesNotExist();
        assertThat(live).exists();
        assertThat(twoParts).exists();
        assertThat(notNumbers).exists();
        assertThat(notASocket).exists();
    }

    @Test
    void aPokeFromAnyOfTwoCallersEndsTheDispatchersWait() throws Exception {
        WakeServer server = start();
        WakeConnection caller = connect(server);
        WakeConnection other = connect(server);
        assertThat(server.tryLock()).isTrue();
        try {
            assertTimeoutPreemptively(
                    LIMIT,
                    () -> {
                        server.takeIn();
                        oneWait(server, caller);
                        oneWait(server, other);
                        oneWait(server, caller);
                    });
            assertThat(server.waitsSolo()).as("two connections: the selector").isFalse();
        } finally {
            server.unlock();
        }
    }

    @Test
    void aWakeupEndsTheDispatchersWaitOrTheNextOneIfNoneIsBlocked() {
        WakeServer server = start();
        assertThat(server.tryLock()).isTrue();
        try {
            server.wakeup();
            assertTimeoutPreemptively(LIMIT, server::await);
        } finally {
            server.unlock();
        }
        Thread[] dispatcher = new Thread[1];
        CompletableFuture<Void> waiting = awaitOn(server, dispatcher);
        soon().until(() -> blockedIn(dispatcher[0]));
        server.wakeup();
        assertThat(waiting).succeedsWithin(LIMIT);
    }

    /** One wait of the dispatcher: drain, then the caller pokes, then the wait returns. */
    private static void oneWait(WakeServer server, WakeConnection caller) throws IOException {
        server.drain();
        caller.poke();
        server.await();
    }

    @Test
    void theOnlyConnectionIsReadInBlockingModeFromExactlyTheSixtyFourthLonelyWait()
            throws Exception {
        WakeServer server = start();
        WakeConnection caller = connect(server);
        assertThat(server.tryLock()).isTrue();
        server.takeIn(); // the connection and its token: every wait from here finds it alone
        try {
            assertTimeoutPreemptively(
                    LIMIT,
                    () -> {
                        for (int i = 1; i < WakeServer.SOLO_AFTER; i++) {
                            oneWait(server, caller);
                        }
                        assertThat(server.waitsSolo()).isFalse();
                        oneWait(server, caller);
                        assertThat(server.waitsSolo()).isTrue();
                        oneWait(server, caller); // the blocking read returns the poke
                        assertThat(server.waitsSolo()).isTrue();
                        server.wakeup(); // none blocked: the next solo wait returns at once
                        server.await();
                        assertThat(server.waitsSolo()).isTrue();
                    });
        } finally {
            server.unlock();
        }
    }

    @Test
    void aWakeupDuringASoloWaitClosesTheConnectionAndGoesBackToTheSelector() throws Exception {
        WakeServer server = start();
        WakeConnection caller = connect(server);
        assertThat(server.tryLock()).isTrue();
        server.takeIn();
        for (int i = 0; i < WakeServer.SOLO_AFTER; i++) {
            oneWait(server, caller);
        }
        assertThat(server.waitsSolo()).isTrue();
        server.unlock();
        Thread[] dispatcher = new Thread[1];
        CompletableFuture<Void> waiting = awaitOn(server, dispatcher);
        soon().until(() -> blockedIn(dispatcher[0]));

        server.wakeup();

        assertThat(waiting).succeedsWithin(LIMIT);
        assertThat(server.waitsSolo()).isFalse();
        assertThatThrownBy(caller::poke)
                .as("its line closed: the caller sends its poke again on a fresh one")
                .isInstanceOf(IOException.class);
        WakeConnection next = connect(server);
        assertThat(server.tryLock()).isTrue();
        try {
            assertTimeoutPreemptively(LIMIT, () -> oneWait(server, next)); // the selector's
            assertThat(server.waitsSolo()).isFalse();
        } finally {
            server.unlock();
        }
    }

    @Test
    void closingEndsEveryConnectionRefusesTheSelectorAndDeletesTheSocket() throws Exception {
        WakeServer server = start();
        WakeServer neighbour = start();
        WakeConnection caller = connect(server);
        assertThat(server.tryLock()).isTrue();
        try {
            assertTimeoutPreemptively(LIMIT, () -> oneWait(server, caller)); // taken in
        } finally {
            server.unlock();
        }

        server.close();

        assertThat(server.tryLock()).isFalse();
        assertThat(server.socket).doesNotExist();
        assertThat(neighbour.socket).exists();
        assertThatThrownBy(caller::poke).isInstanceOf(IOException.class);
        neighbour.close();
        assertThat(WakeServer.directory(file())).doesNotExist();
    }

    /** One dispatcher's wait on another thread, holding the selector. */
    private static CompletableFuture<Void> awaitOn(WakeServer server, Thread[] thread) {
        return CompletableFuture.runAsync(
                () -> {
                    thread[0] = Thread.currentThread();
                    assertThat(server.tryLock()).isTrue();
                    try {
                        server.await();
                    } finally {
                        server.unlock();
                    }
                });
    }

    /** Whether {@code thread} is inside the server's wait, in the selector or a read. */
    private static boolean blockedIn(Thread thread) {
        if (thread == null) {
            return false;
        }
        StackTraceElement[] stack = thread.getStackTrace();
        boolean inAwait = false;
        for (StackTraceElement f : stack) {
            inAwait |=
                    f.getClassName().equals(WakeServer.class.getName())
                            && f.getMethodName().startsWith("await");
        }
        return inAwait && stack.length > 0 && stack[0].getClassName().startsWith("sun.nio.ch");
    }

    /** Awaitility polling every millisecond from the start (its default waits 100 ms first). */
    private static org.awaitility.core.ConditionFactory soon() {
        return await().atMost(LIMIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
    }
}
