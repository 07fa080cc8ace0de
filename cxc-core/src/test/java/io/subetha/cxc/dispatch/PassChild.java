package io.subetha.cxc.dispatch;

import static io.subetha.cxc.testing.ChildServer.say;

import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.testing.ChildServer;
import io.subetha.cxc.testing.PointFreeze;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Semaphore;

/**
 * A child JVM for the pass registry's process tests: served by {@link ChildServer}.
 *
 * <pre>
 * open PATH MAXPASSES SLOTS PAYLOAD   ok
 * stand-by ID MODE KEY                owns | standby  (registerOrStandBy under handler KEY)
 * register ID MODE                    ok     (MODE: twice = 2x+1 of a long; gate = blocks on an
 *                                             argument of 0 until "release", else echoes)
 * release                             ok     (lets one gated call return)
 * park                                ok     (reopens the handle: its callers and dispatchers
 *                                             block at once, no spinning, no yielding)
 * wake-socket                         PATH   (this handle's wake socket, or "none")
 * call ID COUNT                       done COUNT   (calls 1..COUNT, checking every result)
 * call-one ID ARG TIMEOUTMS           result R
 * hot ID                              hot          (calls forever, checking; until killed)
 * freeze-at POINT                     ok     (the next thread at that Interleaving point prints
 *                                             "frozen POINT" and stops there for good)
 * </pre>
 *
 * A gated handler prints {@code running ARG} when it starts.
 */
public final class PassChild {

    private static final long PID = ProcessHandle.current().pid();
    private static final Semaphore GATE = new Semaphore(0);
    private static PassRegistry registry;
    private static Path path;
    private static PassRegistry.Settings settings;

    private PassChild() {}

    public static void main(String[] args) {
        new ChildServer()
                .on(
                        "open",
                        w -> {
                            path = Path.of(w[1]);
                            // Callers park soon: three JVMs share two cores with the test.
                            settings =
                                    new PassRegistry.Settings(
                                                    Integer.parseInt(w[2]),
                                                    Integer.parseInt(w[3]),
                                                    Integer.parseInt(w[4]))
                                            .withWaiting(
                                                    PassWaiting.DEFAULT.spinning(
                                                            Duration.ofNanos(20_000),
                                                            Duration.ZERO));
                            registry = PassRegistry.openOrCreate(path, settings);
                            return "ok";
                        })
                .on(
                        "stand-by",
                        w ->
                                registry.registerOrStandBy(
                                                Long.parseLong(w[1]),
                                                handler(w[2]),
                                                Long.parseLong(w[3]))
                                        ? "owns"
                                        : "standby")
                .on(
                        "register",
                        w -> {
                            long id = Long.parseLong(w[1]);
                            PassHandler handler =
                                    switch (w[2]) {
                                        case "twice" -> a -> bytes(twice(value(a)));
                                        case "gate" ->
                                                a -> {
                                                    if (value(a) == 0) {
                                                        say("running " + value(a));
                                                        GATE.acquire();
                                                    }
                                                    return a;
                                                };
                                        default ->
                                                throw new IllegalArgumentException("mode " + w[2]);
                                    };
                            registry.register(id, handler);
                            return "ok";
                        })
                .on(
                        "park",
                        w -> {
                            // Before anything is registered or called: a handle that waits
                            // otherwise.
                            registry.close();
                            settings =
                                    settings.withWaiting(
                                            PassWaiting.DEFAULT.spinning(
                                                    Duration.ZERO, Duration.ZERO));
                            registry = PassRegistry.openOrCreate(path, settings);
                            return "ok";
                        })
                .on(
                        "wake-socket",
                        w -> {
                            return String.valueOf(registry.describe().get("wakeSocket"));
                        })
                .on(
                        "release",
                        w -> {
                            GATE.release();
                            return "ok";
                        })
                .on(
                        "call",
                        w -> {
                            long id = Long.parseLong(w[1]);
                            int count = Integer.parseInt(w[2]);
                            for (long i = 1; i <= count; i++) {
                                long arg = PID * 1_000_000_000L + i;
                                long got =
                                        value(
                                                registry.execute(
                                                        id, bytes(arg), Duration.ofSeconds(30)));
                                if (got != twice(arg)) {
                                    return "error cross-talk: call "
                                            + i
                                            + " with "
                                            + arg
                                            + " got "
                                            + got;
                                }
                            }
                            return "done " + count;
                        })
                .on(
                        "call-one",
                        w -> {
                            byte[] result =
                                    registry.execute(
                                            Long.parseLong(w[1]),
                                            bytes(Long.parseLong(w[2])),
                                            Duration.ofMillis(Long.parseLong(w[3])));
                            return "result " + value(result);
                        })
                .on(
                        "hot",
                        w -> {
                            long id = Long.parseLong(w[1]);
                            Thread thread =
                                    new Thread(
                                            () -> {
                                                for (long i = 1; ; i++) {
                                                    long arg = PID * 1_000_000_000L + i;
                                                    registry.execute(
                                                            id, bytes(arg), Duration.ofSeconds(30));
                                                }
                                            },
                                            "hot");
                            thread.setDaemon(true);
                            thread.start();
                            return "hot";
                        })
                .on(
                        "freeze-at",
                        w -> {
                            Interleaving.Point at = Interleaving.Point.valueOf(w[1]);
                            PointFreeze.install(at, 1, "frozen");
                            return "ok";
                        })
                .serve();
    }

    private static PassHandler handler(String mode) {
        return switch (mode) {
            case "twice" -> a -> bytes(twice(value(a)));
            default -> throw new IllegalArgumentException("mode " + mode);
        };
    }

    static long twice(long x) {
        return 2 * x + 1;
    }

    static byte[] bytes(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    static long value(byte[] bytes) {
        return ByteBuffer.wrap(bytes).getLong();
    }
}
