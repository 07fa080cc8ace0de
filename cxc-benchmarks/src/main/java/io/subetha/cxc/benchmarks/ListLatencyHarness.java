package io.subetha.cxc.benchmarks;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.collections.SharedLinkedList;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * Cross-process latency of a {@link SharedLinkedList} used as a queue between two JVMs, beside the
 * anchor a user would reach for without shared memory: a pipe (the producer's stdout). A producer
 * JVM sends its {@code System.nanoTime()} (CLOCK_MONOTONIC, one clock for every process on Linux)
 * every {@code pace} µs; the consumer, this JVM, polls {@code popHead} (100 spins, then 1 µs parks:
 * Linux rounds a park up to its timer slack, ~50 µs) or blocks on the pipe's read, and records now
 * minus the sent time in an HdrHistogram. The first fifth of the messages is warm-up and not
 * recorded.
 *
 * <pre>
 * java -cp cxc-benchmarks/target/benchmarks.jar io.subetha.cxc.benchmarks.ListLatencyHarness [messages] [paceMicros]
 * </pre>
 */
public final class ListLatencyHarness {

    private ListLatencyHarness() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("produce-list")) {
            produceList(Path.of(args[1]), Integer.parseInt(args[2]), Long.parseLong(args[3]));
            return;
        }
        if (args.length > 0 && args[0].equals("produce-pipe")) {
            producePipe(Integer.parseInt(args[1]), Long.parseLong(args[2]));
            return;
        }
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        long pace = args.length > 1 ? Long.parseLong(args[1]) : 20;
        System.out.printf(
                "%d messages, one every %d us, first %d not recorded; latency in us%n",
                messages, pace, messages / 5);
        try (ScratchDirectory directory = ScratchDirectory.create()) {
            Path path = directory.resolve("queue.cxc");
            report("SharedLinkedList pushTail -> popHead", consumeList(path, messages, pace));
        }
        report("pipe (stdout, 8-byte writes)", consumePipe(messages, pace));
    }

    private static void report(String what, Histogram h) {
        System.out.printf(
                "%-40s min %6.2f  p50 %8.2f  p99 %8.2f  p99.9 %8.2f  max %9.2f  (n=%d)%n",
                what,
                h.getMinValue() / 1000.0,
                h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0,
                h.getValueAtPercentile(99.9) / 1000.0,
                h.getMaxValue() / 1000.0,
                h.getTotalCount());
    }

    private static Process start(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ListLatencyHarness.class.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static Histogram consumeList(Path path, int messages, long pace) throws Exception {
        Histogram h = new Histogram(10_000_000_000L, 3);
        try (SharedLinkedList<Long> queue =
                SharedLinkedList.TYPE.create(
                        path, new SharedLinkedList.Settings<>(4096, FixedCodec.INT64))) {
            Process producer =
                    start(
                            "produce-list",
                            path.toString(),
                            Integer.toString(messages),
                            Long.toString(pace));
            try {
                int idle = 0;
                for (int i = 0; i < messages; ) {
                    Optional<Long> sent = queue.popHead();
                    if (sent.isEmpty()) {
                        // Spin briefly, then park: a pure spinner on a shared, loaded host is
                        // descheduled for whole time slices, which the pipe's blocked reader is
                        // not.
                        if (++idle < 100) {
                            Thread.onSpinWait();
                        } else {
                            java.util.concurrent.locks.LockSupport.parkNanos(1_000);
                        }
                        continue;
                    }
                    idle = 0;
                    long latency = System.nanoTime() - sent.get();
                    if (i++ >= messages / 5) {
                        h.recordValue(Math.max(0, latency));
                    }
                }
                producer.waitFor();
            } finally {
                producer.destroyForcibly();
            }
        }
        return h;
    }

    private static Histogram consumePipe(int messages, long pace) throws Exception {
        Histogram h = new Histogram(10_000_000_000L, 3);
        Process producer = start("produce-pipe", Integer.toString(messages), Long.toString(pace));
        try (InputStream raw = producer.getInputStream();
                DataInputStream in = new DataInputStream(raw)) {
            for (int i = 0; i < messages; i++) {
                long latency = System.nanoTime() - in.readLong();
                if (i >= messages / 5) {
                    h.recordValue(Math.max(0, latency));
                }
            }
            producer.waitFor();
        } finally {
            producer.destroyForcibly();
        }
        return h;
    }

    private static void produceList(Path path, int messages, long pace) {
        try (SharedLinkedList<Long> queue =
                SharedLinkedList.open(
                        path, new SharedLinkedList.Settings<>(4096, FixedCodec.INT64))) {
            long next = System.nanoTime();
            for (int i = 0; i < messages; i++) {
                next = waitUntil(next + pace * 1000);
                while (true) {
                    try {
                        queue.pushTail(System.nanoTime());
                        break;
                    } catch (CxcCapacityException full) {
                        Thread.onSpinWait();
                    }
                }
            }
        }
    }

    private static void producePipe(int messages, long pace) throws IOException {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(System.out, 64));
        long next = System.nanoTime();
        for (int i = 0; i < messages; i++) {
            next = waitUntil(next + pace * 1000);
            out.writeLong(System.nanoTime());
            out.flush();
        }
    }

    private static long waitUntil(long deadline) {
        while (System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        return deadline;
    }
}
