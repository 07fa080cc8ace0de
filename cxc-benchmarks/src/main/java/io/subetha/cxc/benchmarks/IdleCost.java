package io.subetha.cxc.benchmarks;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.eventlog.EventLogReader;
import io.subetha.cxc.eventlog.EventStateLog;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * What idle waiters cost a process: CPU time (utime + stime from {@code /proc/self/stat}) over a
 * span in which nothing happens, as a percentage of one core. Modes: {@code jvm} (nothing opened:
 * the baseline), {@code pass} (a registered pass handler whose dispatcher sleeps), {@code reader}
 * (a thread waiting for an event-log event: on its doorbell where the reader has {@code await},
 * else the polling loop readers used before it, {@code parkNanos(1 µs)} between empty polls), and
 * {@code both}. Subtract the {@code jvm} row.
 *
 * <pre>
 * java -cp cxc-benchmarks/target/benchmarks.jar io.subetha.cxc.benchmarks.IdleCost MODE [SECONDS]
 * </pre>
 */
public final class IdleCost {

    private IdleCost() {}

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "both";
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        Path dir = Files.createTempDirectory("cxc-idle");
        if (mode.equals("pass") || mode.equals("both")) {
            PassRegistry passes =
                    PassRegistry.TYPE.create(
                            dir.resolve("idle.passes"), new PassRegistry.Settings(4, 4, 64));
            passes.register(1, bytes -> bytes);
        }
        if (mode.equals("reader") || mode.equals("both")) {
            EventStateLog<Long, Long> log =
                    EventStateLog.openOrCreate(
                            dir.resolve("idle.log"),
                            new EventStateLog.Settings<>(
                                    1024, FixedCodec.INT64, FixedCodec.INT64, 0L));
            EventLogReader<Long> reader = log.reader(0);
            Method await = awaitOf();
            Thread thread =
                    new Thread(
                            () -> {
                                while (true) {
                                    if (await != null) {
                                        try {
                                            await.invoke(reader, Duration.ofHours(1));
                                        } catch (ReflectiveOperationException e) {
                                            throw new IllegalStateException(e);
                                        }
                                    } else if (reader.poll(e -> {}) == 0) {
                                        LockSupport.parkNanos(1_000);
                                    }
                                }
                            },
                            "idle-reader");
            thread.setDaemon(true);
            thread.start();
        }
        Thread.sleep(5_000); // past start-up and the first compilations
        long before = cpuTicks();
        Thread.sleep(seconds * 1_000L);
        long ticks = cpuTicks() - before;
        System.out.printf(
                "%-7s %5.2f %% of a core (%d ticks of 10 ms over %d s)%n",
                mode, ticks * 100.0 / (seconds * 100.0), ticks, seconds);
        System.exit(0);
    }

    private static Method awaitOf() {
        try {
            return EventLogReader.class.getMethod("await", Duration.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** utime + stime of this process, in clock ticks (10 ms at the usual USER_HZ of 100). */
    static long cpuTicks() throws Exception {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15
    }
}
