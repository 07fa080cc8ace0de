package io.subetha.cxc.benchmarks;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.PriorityFanout;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Cross-process submit → drain latency of a {@link PriorityFanout}: a producer JVM submits its
 * {@code System.nanoTime()} (CLOCK_MONOTONIC, the same in every process of the host) every 20 µs at
 * priorities 0..7; this JVM drains with {@code drainHighest}, parking 1 µs when it finds nothing,
 * and records now − stamp. The anchor in the same harness is a loopback TCP socket (TCP_NODELAY)
 * carrying the same stamps, what two processes use without shared memory. The first 10% are
 * warm-up.
 *
 * <p>Run: {@code java -cp cxc-benchmarks/target/benchmarks.jar
 * io.subetha.cxc.benchmarks.FanoutLatencyHarness [messages]}.
 */
public final class FanoutLatencyHarness {

    private static final long PACE_NANOS = 50_000;

    private FanoutLatencyHarness() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].startsWith("child-")) {
            child(args);
            return;
        }
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        try (ScratchDirectory dir = ScratchDirectory.create()) {
            Path path = dir.resolve("latency.fanout");
            Histogram ours = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            try (PriorityFanout<Long> fanout =
                    PriorityFanout.TYPE.create(
                            path, new PriorityFanout.Settings<>(4096, FixedCodec.INT64))) {
                Process producer = start("child-fanout", path.toString(), "" + messages);
                try {
                    int received = 0;
                    while (received < messages) {
                        List<Long> stamps = fanout.drainHighest(64);
                        long now = System.nanoTime();
                        for (long stamp : stamps) {
                            if (received++ >= messages / 10) {
                                ours.recordValue(Math.max(0, now - stamp));
                            }
                        }
                        if (stamps.isEmpty()) {
                            // Give the core back: on a loaded 2-core host a spinning consumer
                            // starves the producer (the TCP reader blocks in read() instead).
                            LockSupport.parkNanos(1_000);
                        }
                    }
                } finally {
                    producer.destroyForcibly().waitFor();
                }
            }
            Histogram tcp = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                Process producer = start("child-tcp", "" + server.getLocalPort(), "" + messages);
                try (Socket socket = server.accept();
                        DataInputStream in =
                                new DataInputStream(
                                        new BufferedInputStream(socket.getInputStream()))) {
                    socket.setTcpNoDelay(true);
                    for (int received = 0; received < messages; received++) {
                        long stamp = in.readLong();
                        if (received >= messages / 10) {
                            tcp.recordValue(Math.max(0, System.nanoTime() - stamp));
                        }
                    }
                } finally {
                    producer.destroyForcibly().waitFor();
                }
            }
            print("PriorityFanout submit -> drainHighest, 2 JVMs", ours);
            print("loopback TCP (TCP_NODELAY), 2 JVMs", tcp);
        }
    }

    private static void print(String what, Histogram h) {
        System.out.printf(
                "%-48s n=%d p50=%.1f us p99=%.1f us p99.9=%.1f us max=%.1f us%n",
                what,
                h.getTotalCount(),
                h.getValueAtPercentile(50) / 1e3,
                h.getValueAtPercentile(99) / 1e3,
                h.getValueAtPercentile(99.9) / 1e3,
                h.getMaxValue() / 1e3);
    }

    private static Process start(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(FanoutLatencyHarness.class.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
    }

    private static void child(String[] args) throws Exception {
        ProcessHandle.current()
                .parent()
                .ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(97)));
        int messages = Integer.parseInt(args[2]);
        if (args[0].equals("child-fanout")) {
            PriorityFanout<Long> fanout =
                    PriorityFanout.open(
                            Path.of(args[1]),
                            new PriorityFanout.Settings<>(4096, FixedCodec.INT64));
            for (int i = 0; i < messages; i++) {
                LockSupport.parkNanos(PACE_NANOS); // sleeps, as a real producer between events
                while (!fanout.trySubmit(7, System.nanoTime())) {
                    Thread.onSpinWait();
                }
            }
        } else {
            try (Socket socket =
                            new Socket(
                                    InetAddress.getLoopbackAddress(), Integer.parseInt(args[1]));
                    DataOutputStream out = new DataOutputStream(socket.getOutputStream())) {
                socket.setTcpNoDelay(true);
                for (int i = 0; i < messages; i++) {
                    LockSupport.parkNanos(PACE_NANOS);
                    out.writeLong(System.nanoTime());
                    out.flush();
                }
            }
        }
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        Runtime.getRuntime().halt(0);
    }
}
