package io.subetha.cxc.benchmarks;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.eventlog.EventLogReader;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.wake.WaitPhases;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;
import org.HdrHistogram.Histogram;

/**
 * Cross-process figures for the event log and Chronicle Queue, in one harness with the same payload
 * (64 bytes, the first 8 the writer's {@code System.nanoTime()}, which is {@code CLOCK_MONOTONIC}
 * and so comparable between processes on one host):
 *
 * <ol>
 *   <li><b>Latency</b>: this JVM writes, a child JVM reads and records, per message, how long after
 *       the write it saw it (HdrHistogram: p50, p99, p99.9, max), first with a spinning reader
 *       (busy poll), then with a parking one ({@code parkNanos(1 µs)} between empty polls, which
 *       Linux rounds up to its timer slack), then with a waiting one ({@code wait}: ours spins,
 *       yields, then sleeps on the log's doorbell, {@link WaitPhases#DEFAULT}; {@code sleep}: ours
 *       sleeps on it at once after each event, {@link WaitPhases#SLEEP_AT_ONCE}, so that every
 *       event is a ring and a wake-up); Chronicle's, which has no cross-process wake-up, parks in
 *       both. Our reader is an {@link EventLogReader} (it follows without consuming, as a read-side
 *       projection would); Chronicle's an {@code ExcerptTailer}. Two sets of rows:
 *       <ul>
 *         <li><b>stream</b>: one write per {@code PACE} (20 µs), the writer spinning between them.
 *             A reader that spins, yields or wakes per event holds most of a core here, so on a
 *             machine of two cores with any other load its p99 is the scheduler's time slice
 *             (milliseconds), not a hand-over.
 *         <li><b>asleep</b>: one write per {@code GAP} (500 µs), the writer parked between them
 *             and, for a reader on the doorbell, writing only once the log shows it asleep ({@code
 *             sleepingReaders}): every figure is a hand-over to a sleeping reader, what the
 *             doorbell is for.
 *       </ul>
 *   <li><b>Three producer processes</b>: three child JVMs write as fast as they can; aggregate
 *       writes per second over the span from the first start to the last end.
 * </ol>
 *
 * <pre>
 * java [Chronicle's add-opens, ChronicleJvmArgs] -cp cxc-benchmarks/target/benchmarks.jar \
 *     io.subetha.cxc.benchmarks.EventLogLatency [MESSAGES [PRODUCER_WRITES [ASLEEP_MESSAGES]]]
 * </pre>
 */
public final class EventLogLatency {

    static final int PAYLOAD = 64;
    static final long PACE_NANOS = 20_000;

    /**
     * The asleep rows' gap between events: far past a waiting reader's spin and yield (60 µs), so
     * each event is a hand-over to a reader asleep on the doorbell (or parked), not a catch-up.
     */
    static final long GAP_NANOS = 500_000;

    private EventLogLatency() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child();
            return;
        }
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int producerWrites = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int asleepMessages = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
        System.out.printf(
                "stream: %d messages, one per %d µs, the writer spinning between them (ns)%n",
                messages, PACE_NANOS / 1000);
        System.out.printf(
                "%-10s %-6s %9s %9s %9s %9s%n", "system", "reader", "p50", "p99", "p99.9", "max");
        for (String reader : List.of("spin", "park", "wait", "sleep")) {
            for (String system : List.of("cxc", "chronicle")) {
                latency(system, reader, messages, false);
            }
        }
        System.out.printf(
                "asleep: %d messages, one per %d µs, each once the reader is asleep, the writer"
                        + " parked between them (ns)%n",
                asleepMessages, GAP_NANOS / 1000);
        System.out.printf(
                "%-10s %-6s %9s %9s %9s %9s%n", "system", "reader", "p50", "p99", "p99.9", "max");
        for (String reader : List.of("park", "wait", "sleep")) {
            for (String system : List.of("cxc", "chronicle")) {
                if (system.equals("chronicle") && !reader.equals("park")) {
                    continue; // no wake-up of its own: its parking tailer is the row to compare
                }
                latency(system, reader, asleepMessages, true);
            }
        }
        for (String system : List.of("cxc", "chronicle")) {
            producers(system, 3, producerWrites);
        }
    }

    // ---------------------------------------------------------------------------- parent

    private static void latency(String system, String readerMode, int messages, boolean asleep)
            throws Exception {
        try (ScratchDirectory directory = ScratchDirectory.create()) {
            Path path = directory.resolve(system);
            Writer writer = Writer.open(system, path);
            Child reader =
                    Child.start(
                            "reader " + system + " " + path + " " + readerMode + " " + messages);
            try {
                reader.await("ready");
                byte[] payload = new byte[PAYLOAD];
                ByteBuffer stamp = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
                long next = System.nanoTime();
                for (int i = 0; i < messages; i++) {
                    if (asleep) {
                        // Parked, not spinning: the writer leaves the reader a core to wake on.
                        LockSupport.parkNanos(GAP_NANOS);
                        writer.awaitAsleep(readerMode);
                    } else {
                        while (System.nanoTime() < next) {
                            Thread.onSpinWait();
                        }
                        next += PACE_NANOS;
                    }
                    stamp.putLong(0, System.nanoTime());
                    writer.write(payload);
                }
                String result = reader.await("result ");
                String[] f = result.substring("result ".length()).split(" ");
                System.out.printf(
                        "%-10s %-6s %9s %9s %9s %9s%n", system, readerMode, f[0], f[1], f[2], f[3]);
                System.out.flush();
            } finally {
                reader.kill();
                writer.close();
            }
        }
    }

    private static void producers(String system, int count, int writes) throws Exception {
        try (ScratchDirectory directory = ScratchDirectory.create()) {
            Path path = directory.resolve(system);
            Writer.open(system, path).close(); // created once, before the producers race
            List<Child> children = new ArrayList<>();
            try {
                for (int i = 0; i < count; i++) {
                    children.add(Child.start("producer " + system + " " + path + " " + writes));
                }
                for (Child c : children) {
                    c.await("ready");
                }
                children.forEach(c -> c.send("go"));
                long first = Long.MAX_VALUE;
                long last = Long.MIN_VALUE;
                for (Child c : children) {
                    String[] f = c.await("span ").split(" ");
                    first = Math.min(first, Long.parseLong(f[1]));
                    last = Math.max(last, Long.parseLong(f[2]));
                }
                double seconds = (last - first) / 1e9;
                System.out.printf(
                        "%-10s %d producer processes x %d writes: %.0f writes/s aggregate (%.3f s)%n",
                        system, count, writes, count * (double) writes / seconds, seconds);
            } finally {
                children.forEach(Child::kill);
            }
        }
    }

    /** Our log (drained by the writer as it fills) or a Chronicle appender. */
    private interface Writer extends AutoCloseable {
        void write(byte[] payload);

        /** Returns once a reader that sleeps on the doorbell ({@code wait}, {@code sleep}) does. */
        default void awaitAsleep(String readerMode) {}

        @Override
        void close();

        static Writer open(String system, Path path) {
            if (system.equals("cxc")) {
                EventStateLog<byte[], Long> log = openLog(path);
                return new Writer() {
                    @Override
                    public void write(byte[] payload) {
                        while (!log.tryEmit(payload)) {
                            log.drainAndFold((total, e) -> total + 1);
                        }
                    }

                    @Override
                    public void awaitAsleep(String readerMode) {
                        if (!readerMode.equals("wait") && !readerMode.equals("sleep")) {
                            return;
                        }
                        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                        while (((Number) log.describe().get("sleepingReaders")).intValue() == 0
                                && System.nanoTime() - giveUp < 0) {
                            LockSupport.parkNanos(10_000);
                        }
                    }

                    @Override
                    public void close() {
                        log.close();
                    }
                };
            }
            ChronicleQueue queue = ChronicleQueue.singleBuilder(path).build();
            ExcerptAppender appender = queue.createAppender();
            return new Writer() {
                @Override
                public void write(byte[] payload) {
                    try (DocumentContext dc = appender.writingDocument()) {
                        dc.wire().bytes().write(payload);
                    }
                }

                @Override
                public void close() {
                    queue.close();
                }
            };
        }
    }

    static EventStateLog<byte[], Long> openLog(Path path) {
        return EventStateLog.openOrCreate(
                path,
                new EventStateLog.Settings<>(
                        1 << 20, FixedCodec.bytes(PAYLOAD), FixedCodec.INT64, 0L));
    }

    /** A child JVM on this classpath with Chronicle's options, talked to by lines. */
    private record Child(Process process, BufferedReader out, PrintWriter in) {
        static Child start(String command) throws IOException {
            List<String> line = new ArrayList<>();
            line.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            line.add("-Xmx256m");
            line.addAll(ChronicleJvmArgs.OPTIONS);
            line.add("-cp");
            line.add(System.getProperty("java.class.path"));
            line.add(EventLogLatency.class.getName());
            line.add("child");
            Process process =
                    new ProcessBuilder(line).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            Child child =
                    new Child(
                            process,
                            new BufferedReader(
                                    new InputStreamReader(
                                            process.getInputStream(), StandardCharsets.UTF_8)),
                            new PrintWriter(
                                    process.getOutputStream(), true, StandardCharsets.UTF_8));
            child.send(command);
            return child;
        }

        void send(String line) {
            in.println(line);
        }

        String await(String prefix) throws IOException {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
            throw new IllegalStateException(
                    "child ended before answering '" + prefix + "' (exit " + exit() + ")");
        }

        private String exit() {
            try {
                return process.waitFor(5, TimeUnit.SECONDS)
                        ? Integer.toString(process.exitValue())
                        : "still running";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "?";
            }
        }

        void kill() {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ----------------------------------------------------------------------------- child

    private static void child() throws IOException {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String[] w = in.readLine().split(" ");
        switch (w[0]) {
            case "reader" -> read(w[1], Path.of(w[2]), w[3], Integer.parseInt(w[4]));
            case "producer" -> produce(w[1], Path.of(w[2]), Integer.parseInt(w[3]), in);
            default -> throw new IllegalArgumentException(w[0]);
        }
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    private static void read(String system, Path path, String mode, int messages) {
        boolean spin = mode.equals("spin");
        Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        int warmup = messages / 10;
        int[] seen = new int[1];
        ByteBuffer view = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        java.util.function.Consumer<byte[]> record =
                payload -> {
                    long now = System.nanoTime();
                    long sent = view.clear().put(payload, 0, 8).getLong(0);
                    if (seen[0]++ >= warmup) {
                        histogram.recordValue(Math.max(0, now - sent));
                    }
                };
        if (system.equals("cxc")) {
            EventStateLog<byte[], Long> log = openLog(path);
            EventLogReader<byte[]> reader =
                    log.reader(0)
                            .waitingWith(
                                    mode.equals("sleep")
                                            ? WaitPhases.SLEEP_AT_ONCE
                                            : WaitPhases.DEFAULT);
            boolean bell = mode.equals("wait") || mode.equals("sleep");
            System.out.println("ready");
            System.out.flush();
            while (seen[0] < messages) {
                if (bell) {
                    reader.poll(record, Duration.ofSeconds(10));
                } else if (reader.poll(record) == 0) {
                    idle(spin);
                }
            }
        } else {
            ChronicleQueue queue = ChronicleQueue.singleBuilder(path).build();
            ExcerptTailer tailer = queue.createTailer();
            byte[] payload = new byte[PAYLOAD];
            System.out.println("ready");
            System.out.flush();
            while (seen[0] < messages) {
                boolean present;
                try (DocumentContext dc = tailer.readingDocument()) {
                    present = dc.isPresent();
                    if (present) {
                        dc.wire().bytes().read(payload);
                    }
                }
                if (present) {
                    record.accept(payload);
                } else {
                    idle(spin);
                }
            }
        }
        System.out.printf(
                "result %d %d %d %d%n",
                histogram.getValueAtPercentile(50),
                histogram.getValueAtPercentile(99),
                histogram.getValueAtPercentile(99.9),
                histogram.getMaxValue());
    }

    private static void idle(boolean spin) {
        if (spin) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(1_000);
        }
    }

    private static void produce(String system, Path path, int writes, BufferedReader in)
            throws IOException {
        Writer writer = system.equals("cxc") ? producerLog(path) : Writer.open(system, path);
        byte[] payload = new byte[PAYLOAD];
        for (int i = 0; i < 10_000; i++) {
            writer.write(payload); // warm-up, before the race
        }
        System.out.println("ready");
        System.out.flush();
        in.readLine();
        long start = System.nanoTime();
        for (int i = 0; i < writes; i++) {
            writer.write(payload);
        }
        long end = System.nanoTime();
        System.out.println("span " + start + " " + end);
    }

    /** Three producers share one log of 2^20: nobody drains it during the race. */
    private static Writer producerLog(Path path) {
        EventStateLog<byte[], Long> log = openLog(path);
        return new Writer() {
            @Override
            public void write(byte[] payload) {
                log.emit(payload);
            }

            @Override
            public void close() {
                log.close();
            }
        };
    }
}
