package io.subetha.cxc.benchmarks;

import io.subetha.cxc.integration.CxcLockRegistry;
import io.subetha.cxc.lease.OwnerLease;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * A lock handed over between two JVMs through {@link CxcLockRegistry}: this JVM holds the lock
 * while a child JVM's thread blocks in {@code lock()}; after {@code PAUSE} (so the child's wait is
 * past its first looks and asleep) this JVM stamps {@code System.nanoTime()} into a shared page and
 * unlocks; the child records how long after the stamp its {@code lock()} returned (HdrHistogram),
 * acknowledges, unlocks, and waits for the next round before it blocks again.
 *
 * <pre>
 * java -cp cxc-benchmarks/target/benchmarks.jar io.subetha.cxc.benchmarks.LockHandoffLatency [ROUNDS]
 * </pre>
 */
public final class LockHandoffLatency {

    static final long PAUSE_NANOS = 2_000_000;
    static final int STAMP = 0;
    static final int ACKED = 8;
    static final int HELD = 16;

    private LockHandoffLatency() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(Path.of(args[1]), Integer.parseInt(args[2]));
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        try (ScratchDirectory dir = ScratchDirectory.create()) {
            Path table = dir.resolve("locks.cxc");
            Path page = dir.resolve("page");
            OwnerLease leases = OwnerLease.TYPE.create(table, new OwnerLease.Settings(16));
            MappedByteBuffer shared = map(page);
            Lock lock = new CxcLockRegistry(leases).obtain("handoff");
            lock.lock();
            shared.putLong(HELD, 1);
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(LockHandoffLatency.class.getName());
            command.add("child");
            command.add(dir.resolve("").toString());
            command.add(Integer.toString(rounds));
            Process child =
                    new ProcessBuilder(command)
                            .redirectError(ProcessBuilder.Redirect.INHERIT)
                            .start();
            try {
                for (int round = 1; round <= rounds; round++) {
                    if (round > 1) {
                        lock.lock();
                        shared.putLong(HELD, round); // the child may block again
                    }
                    LockSupport.parkNanos(PAUSE_NANOS);
                    shared.putLong(STAMP, System.nanoTime());
                    lock.unlock();
                    while (shared.getLong(ACKED) != round) {
                        Thread.onSpinWait();
                        if (!child.isAlive()) {
                            throw new IllegalStateException("the child died");
                        }
                    }
                }
                BufferedReader out =
                        new BufferedReader(
                                new InputStreamReader(
                                        child.getInputStream(), StandardCharsets.UTF_8));
                System.out.println(out.readLine());
            } finally {
                child.destroyForcibly();
                child.waitFor(30, TimeUnit.SECONDS);
                leases.close();
            }
        }
    }

    private static void child(Path dir, int rounds) throws Exception {
        OwnerLease leases = OwnerLease.open(dir.resolve("locks.cxc"), new OwnerLease.Settings(16));
        MappedByteBuffer shared = map(dir.resolve("page"));
        Lock lock = new CxcLockRegistry(leases).obtain("handoff");
        Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        for (int round = 1; round <= rounds; round++) {
            while (shared.getLong(HELD) != round) {
                Thread.onSpinWait();
            }
            lock.lock();
            long now = System.nanoTime();
            if (round > rounds / 10) {
                histogram.recordValue(Math.max(0, now - shared.getLong(STAMP)));
            }
            lock.unlock();
            shared.putLong(ACKED, round);
        }
        System.out.printf(
                "lock handoff (ns, %d rounds): p50 %d p99 %d p99.9 %d max %d%n",
                rounds,
                histogram.getValueAtPercentile(50),
                histogram.getValueAtPercentile(99),
                histogram.getValueAtPercentile(99.9),
                histogram.getMaxValue());
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    private static MappedByteBuffer map(Path page) throws Exception {
        try (FileChannel channel =
                FileChannel.open(
                        page,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE)) {
            return (MappedByteBuffer)
                    channel.map(FileChannel.MapMode.READ_WRITE, 0, 64)
                            .order(ByteOrder.LITTLE_ENDIAN);
        }
    }
}
