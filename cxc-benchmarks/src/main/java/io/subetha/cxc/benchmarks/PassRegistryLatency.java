package io.subetha.cxc.benchmarks;

import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.dispatch.PassWaiting;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Cross-process round trips, caller and handler in two JVMs, in one harness with HdrHistogram: a
 * {@link PassRegistry} call (8-byte argument, 8-byte result) with the caller spinning, with the
 * caller waiting as by default (spin 20 µs, yield 200 µs, then park), with the caller parking at
 * once, and with both sides parking at once (a parked side blocks on the owner's wake socket and is
 * poked awake: see {@code PassRegistry}); and what a user would do instead on one host, a
 * request/response over a Unix domain socket ({@link SocketChannel} on a {@link
 * UnixDomainSocketAddress}) and over loopback TCP (TCP_NODELAY). Each mode: warm-up calls, then
 * measured calls one after the other; p50 / p99 / p99.9 / max and calls per second.
 *
 * <pre>
 * java -cp cxc-benchmarks/target/benchmarks.jar io.subetha.cxc.benchmarks.PassRegistryLatency \
 *     [measuredCalls=200000] [warmupCalls=50000]
 * </pre>
 *
 * The handler side is a child JVM started on the same classpath ({@code server DIR}); it is killed
 * when the harness ends.
 */
public final class PassRegistryLatency {

    /**
     * The pass served by a dispatcher with the default waiting (spins 20 µs, yields 200 µs after
     * each call).
     */
    static final long SPINNING_PASS = 1;

    /** The pass served by a dispatcher that parks at once (spin 0). */
    static final long PARKING_PASS = 2;

    static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** The registry both JVMs open: 4 passes, 4 slots, 64-byte payloads. */
    static final PassRegistry.Settings SETTINGS = new PassRegistry.Settings(4, 4, 64);

    private PassRegistryLatency() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("server")) {
            serve(Path.of(args[1]));
            return;
        }
        int measured = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        try (ScratchDirectory directory = ScratchDirectory.create()) {
            Path dir = directory.resolve("");
            Process server =
                    new ProcessBuilder(
                                    Path.of(System.getProperty("java.home"), "bin", "java")
                                            .toString(),
                                    "-Xms256m",
                                    "-Xmx256m",
                                    "-cp",
                                    System.getProperty("java.class.path"),
                                    PassRegistryLatency.class.getName(),
                                    "server",
                                    dir.toString())
                            .redirectError(ProcessBuilder.Redirect.INHERIT)
                            .start();
            try {
                BufferedReader out =
                        new BufferedReader(
                                new InputStreamReader(
                                        server.getInputStream(), StandardCharsets.UTF_8));
                String ready = out.readLine();
                if (ready == null || !ready.startsWith("ready ")) {
                    throw new IllegalStateException("server did not start: " + ready);
                }
                int tcpPort = Integer.parseInt(ready.substring("ready ".length()));
                run(dir, tcpPort, measured, warmup);
            } finally {
                server.destroyForcibly();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static void run(Path dir, int tcpPort, int measured, int warmup) throws IOException {
        List<String> rows = new ArrayList<>();
        Path file = dir.resolve("bench.passes");
        try (PassRegistry spinning =
                        PassRegistry.open(
                                file,
                                SETTINGS.withWaiting(
                                        PassWaiting.DEFAULT.spinning(TIMEOUT, Duration.ZERO)));
                PassRegistry yielding = PassRegistry.open(file, SETTINGS);
                PassRegistry parking =
                        PassRegistry.open(
                                file,
                                SETTINGS.withWaiting(
                                        PassWaiting.DEFAULT.spinning(
                                                Duration.ZERO, Duration.ZERO)))) {
            rows.add(
                    measure(
                            "cxc, caller spins",
                            measured,
                            warmup,
                            i -> call(spinning, SPINNING_PASS, i)));
            rows.add(
                    measure(
                            "cxc, caller default",
                            measured,
                            warmup,
                            i -> call(yielding, SPINNING_PASS, i)));
            rows.add(
                    measure(
                            "cxc, caller parks",
                            measured,
                            warmup,
                            i -> call(parking, SPINNING_PASS, i)));
            rows.add(
                    measure(
                            "cxc, both park",
                            measured,
                            warmup,
                            i -> call(parking, PARKING_PASS, i)));
        }
        try (SocketChannel unix = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            unix.connect(UnixDomainSocketAddress.of(dir.resolve("bench.sock")));
            rows.add(measure("Unix domain socket", measured, warmup, i -> roundTrip(unix, i)));
        }
        try (SocketChannel tcp = SocketChannel.open()) {
            tcp.setOption(StandardSocketOptions.TCP_NODELAY, true);
            tcp.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), tcpPort));
            rows.add(measure("loopback TCP", measured, warmup, i -> roundTrip(tcp, i)));
        }
        System.out.printf(
                Locale.ROOT,
                "%-22s %10s %10s %10s %10s %12s%n",
                "round trip (µs)",
                "p50",
                "p99",
                "p99.9",
                "max",
                "calls/s");
        rows.forEach(System.out::println);
    }

    @FunctionalInterface
    private interface RoundTrip {
        long call(long argument) throws IOException;
    }

    private static String measure(String name, int measured, int warmup, RoundTrip trip)
            throws IOException {
        for (int i = 0; i < warmup; i++) {
            check(i, trip.call(i));
        }
        Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        long start = System.nanoTime();
        for (int i = 0; i < measured; i++) {
            long before = System.nanoTime();
            long result = trip.call(i);
            histogram.recordValue(System.nanoTime() - before);
            check(i, result);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return String.format(
                Locale.ROOT,
                "%-22s %10.1f %10.1f %10.1f %10.1f %12.0f",
                name,
                histogram.getValueAtPercentile(50) / 1e3,
                histogram.getValueAtPercentile(99) / 1e3,
                histogram.getValueAtPercentile(99.9) / 1e3,
                histogram.getMaxValue() / 1e3,
                measured / seconds);
    }

    private static void check(long argument, long result) {
        if (result != argument + 1) {
            throw new IllegalStateException("call " + argument + " answered " + result);
        }
    }

    private static long call(PassRegistry registry, long pass, long argument) {
        byte[] result = registry.execute(pass, longBytes(argument), TIMEOUT);
        return ByteBuffer.wrap(result).getLong();
    }

    private static final ThreadLocal<ByteBuffer> BUFFER =
            ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(8));

    private static long roundTrip(SocketChannel channel, long argument) throws IOException {
        ByteBuffer buffer = BUFFER.get();
        buffer.clear();
        buffer.putLong(argument).flip();
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        buffer.clear();
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new IOException("server closed the connection");
            }
        }
        return buffer.getLong(0);
    }

    static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    // --------------------------------------------------------------------------- server side

    /** The handler JVM: the registry's two passes, a Unix socket server and a TCP server. */
    private static void serve(Path dir) throws IOException {
        PassRegistry spinning = PassRegistry.TYPE.create(dir.resolve("bench.passes"), SETTINGS);
        PassRegistry parking =
                PassRegistry.open(
                        dir.resolve("bench.passes"),
                        SETTINGS.withWaiting(
                                PassWaiting.DEFAULT.spinning(Duration.ZERO, Duration.ZERO)));
        spinning.register(SPINNING_PASS, PassRegistryLatency::plusOne);
        parking.register(PARKING_PASS, PassRegistryLatency::plusOne);

        ServerSocketChannel unix = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        unix.bind(UnixDomainSocketAddress.of(dir.resolve("bench.sock")));
        ServerSocketChannel tcp = ServerSocketChannel.open();
        tcp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        accept(unix, "unix", false);
        accept(tcp, "tcp", true);
        System.out.println("ready " + ((InetSocketAddress) tcp.getLocalAddress()).getPort());
        System.out.flush();
        // Until the harness kills this JVM, or closes our stdin.
        while (System.in.read() >= 0) {
            // keep reading
        }
        System.exit(0);
    }

    private static byte[] plusOne(byte[] args) {
        return longBytes(ByteBuffer.wrap(args).getLong() + 1);
    }

    private static void accept(ServerSocketChannel server, String name, boolean tcp) {
        Thread thread =
                new Thread(
                        () -> {
                            try {
                                while (true) {
                                    SocketChannel channel = server.accept();
                                    if (tcp) {
                                        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                                    }
                                    Thread handler =
                                            new Thread(() -> echoPlusOne(channel), name + "-conn");
                                    handler.setDaemon(true);
                                    handler.start();
                                }
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        },
                        name + "-accept");
        thread.setDaemon(true);
        thread.start();
    }

    /** One request at a time: read 8 bytes, answer the long plus one. */
    private static void echoPlusOne(SocketChannel channel) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(8);
        try (channel) {
            while (true) {
                buffer.clear();
                while (buffer.hasRemaining()) {
                    if (channel.read(buffer) < 0) {
                        return;
                    }
                }
                long value = buffer.getLong(0);
                buffer.clear();
                buffer.putLong(value + 1).flip();
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }
        } catch (IOException e) {
            // the harness went away
        }
    }
}
