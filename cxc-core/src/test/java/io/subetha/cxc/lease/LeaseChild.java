package io.subetha.cxc.lease;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM for the multi-process lease tests. Reads commands from stdin, one per line, answers
 * on stdout; exits when stdin closes.
 *
 * <ul>
 *   <li>{@code open <path> <capacity>}: openOrCreate; answers {@code opened}
 *   <li>{@code acquire <name> <atMostMillis>}: answers {@code acquired <token>}, {@code refused},
 *       or {@code full} (every slot bound to a name with a live holder)
 *   <li>{@code release <name>}: acquires the name and releases it at once, answering {@code
 *       released <token>} or {@code refused}
 *   <li>{@code hammer <name> <iterations> <scratch>}: contends for the name; while holding it,
 *       checks in a shared scratch file that nobody else holds it and that its token is above every
 *       earlier one; answers {@code hammered <acquisitions> <violations>}
 *   <li>{@code hang-at <point> <name>}: acquires the name but stops for good at the {@link Point}
 *       named, answering {@code paused}
 *   <li>{@code churn <prefix> <names>}: acquires and releases {@code <prefix>0..} forever,
 *       answering {@code churning} first
 * </ul>
 */
public final class LeaseChild {

    /** Scratch file words: the PID inside the critical section, the last token seen. */
    static final int INSIDE_OFFSET = 0;

    static final int LAST_TOKEN_OFFSET = 8;
    static final int SCRATCH_LENGTH = 64;

    private static volatile OwnerLease leases;

    private LeaseChild() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("ready " + Pids.current());
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ");
            switch (words[0]) {
                case "open" -> {
                    leases =
                            OwnerLease.openOrCreate(
                                    Path.of(words[1]),
                                    new OwnerLease.Settings(Integer.parseInt(words[2])));
                    System.out.println("opened");
                }
                case "acquire" -> {
                    try {
                        Optional<Lease> lease =
                                leases.tryAcquire(
                                        words[1],
                                        Pids.current(),
                                        Duration.ofMillis(Long.parseLong(words[2])));
                        System.out.println(
                                lease.map(l -> "acquired " + l.token()).orElse("refused"));
                    } catch (CxcCapacityException e) {
                        System.out.println("full");
                    }
                }
                case "release" -> {
                    Optional<Lease> lease =
                            leases.tryAcquire(words[1], Pids.current(), Duration.ofMinutes(1));
                    lease.ifPresent(leases::release);
                    System.out.println(lease.map(l -> "released " + l.token()).orElse("refused"));
                }
                case "hammer" -> hammer(words[1], Integer.parseInt(words[2]), Path.of(words[3]));
                case "hang-at" -> {
                    Point at = Point.valueOf(words[1]);
                    Interleaving.install(
                            point -> {
                                if (point == at) {
                                    System.out.println("paused");
                                    System.out.flush();
                                    while (true) {
                                        LockSupport.park();
                                    }
                                }
                            });
                    leases.tryAcquire(words[2], Pids.current(), Duration.ofMinutes(1));
                }
                case "churn" -> churn(words[1], Integer.parseInt(words[2]));
                default -> System.out.println("unknown " + line);
            }
            System.out.flush();
        }
        System.exit(0); // stdin closed: the test is over
    }

    static AtomicBuffer scratch(Path path) throws Exception {
        try (FileChannel channel =
                FileChannel.open(
                        path,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE)) {
            return new AtomicBuffer(channel.map(FileChannel.MapMode.READ_WRITE, 0, SCRATCH_LENGTH));
        }
    }

    private static void hammer(String name, int iterations, Path scratchPath) throws Exception {
        AtomicBuffer scratch = scratch(scratchPath);
        long pid = Pids.current();
        long acquisitions = 0;
        long violations = 0;
        for (int i = 0; i < iterations; i++) {
            Optional<Lease> lease = leases.tryAcquire(name, pid, Duration.ofSeconds(30));
            if (lease.isEmpty()) {
                Thread.onSpinWait();
                continue;
            }
            acquisitions++;
            if (!scratch.compareAndSetLong(INSIDE_OFFSET, 0, pid)) {
                violations++; // another process is inside: two holders
            }
            long last = scratch.getLongVolatile(LAST_TOKEN_OFFSET);
            if (lease.get().token() <= last) {
                violations++;
            }
            scratch.setLongVolatile(LAST_TOKEN_OFFSET, lease.get().token());
            scratch.compareAndSetLong(INSIDE_OFFSET, pid, 0);
            if (!leases.release(lease.get())) {
                violations++;
            }
        }
        System.out.println("hammered " + acquisitions + " " + violations);
    }

    private static void churn(String prefix, int names) {
        System.out.println("churning");
        System.out.flush();
        long pid = Pids.current();
        for (long i = 0; ; i++) {
            String name = prefix + (i % names);
            leases.tryAcquire(name, pid, Duration.ofHours(1)).ifPresent(leases::release);
        }
    }
}
