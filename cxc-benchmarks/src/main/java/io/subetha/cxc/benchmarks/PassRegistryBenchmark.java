package io.subetha.cxc.benchmarks;

import io.subetha.cxc.dispatch.PassRegistry;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One round trip (8-byte argument, 8-byte result) between two threads of one JVM: a {@link
 * PassRegistry} call through the mapped file to this JVM's dispatcher thread, and the anchor, the
 * same request/response over a Unix domain socket to a server thread. The two-JVM figures, with
 * percentiles, come from {@link PassRegistryLatency}; this measures the same paths under JMH.
 */
@BenchmarkMode({Mode.AverageTime, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Benchmark)
public class PassRegistryBenchmark {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private ScratchDirectory directory;
    private PassRegistry owner;
    private PassRegistry caller;
    private ServerSocketChannel server;
    private SocketChannel client;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(8);
    private long argument;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        directory = ScratchDirectory.create();
        owner =
                PassRegistry.TYPE.create(
                        directory.resolve("bench.passes"), new PassRegistry.Settings(4, 4, 64));
        owner.register(
                1, args -> PassRegistryLatency.longBytes(ByteBuffer.wrap(args).getLong() + 1));
        caller = PassRegistry.open(directory.resolve("bench.passes"));
        // The default waiting (spin 20 µs, yield 200 µs, park): caller and dispatcher share two
        // cores with JMH, and a pure spinner holds a shared core until it is preempted.

        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(directory.resolve("bench.sock")));
        Thread echo =
                new Thread(
                        () -> {
                            ByteBuffer in = ByteBuffer.allocateDirect(8);
                            try (SocketChannel channel = server.accept()) {
                                while (true) {
                                    in.clear();
                                    while (in.hasRemaining()) {
                                        if (channel.read(in) < 0) {
                                            return;
                                        }
                                    }
                                    long value = in.getLong(0);
                                    in.clear();
                                    in.putLong(value + 1).flip();
                                    while (in.hasRemaining()) {
                                        channel.write(in);
                                    }
                                }
                            } catch (IOException e) {
                                // closed at tear-down
                            }
                        },
                        "uds-echo");
        echo.setDaemon(true);
        echo.start();
        client = SocketChannel.open(StandardProtocolFamily.UNIX);
        client.connect(UnixDomainSocketAddress.of(directory.resolve("bench.sock")));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        client.close();
        server.close();
        caller.close();
        owner.close();
        directory.close();
    }

    @Benchmark
    public long passRegistryRoundTrip() {
        long value = ++argument;
        byte[] result = caller.execute(1, PassRegistryLatency.longBytes(value), TIMEOUT);
        return ByteBuffer.wrap(result).getLong();
    }

    @Benchmark
    public long unixSocketRoundTrip() throws IOException {
        long value = ++argument;
        buffer.clear();
        buffer.putLong(value).flip();
        while (buffer.hasRemaining()) {
            client.write(buffer);
        }
        buffer.clear();
        while (buffer.hasRemaining()) {
            client.read(buffer);
        }
        return buffer.getLong(0);
    }
}
