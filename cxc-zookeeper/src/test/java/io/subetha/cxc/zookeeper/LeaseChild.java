package io.subetha.cxc.zookeeper;

import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.process.Pids;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * A process of one simulated host contending for one name through {@link GlobalLeases}: it tries
 * every 10 ms (few ZooKeeper writes: the ensemble shares the test JVM); once it holds the name it
 * prints {@code held <token> <nanoTime>}, checks {@link GlobalLeases#isHeld} every 0.2 ms, and
 * after {@code holdMillis} (0: never; -1: never contends) or on loss prints {@code free <token>
 * <nanoTime> released|lost} before it releases. Exits when stdin closes. Args: hostDirectory
 * connectString path hostName sessionMillis connectionMillis name holdMillis.
 */
public final class LeaseChild {

    private LeaseChild() {}

    public static void main(String[] args) throws Exception {
        Path host = Files.createDirectories(Path.of(args[0]));
        String name = args[6];
        long holdNanos = Duration.ofMillis(Long.parseLong(args[7])).toNanos(); // -1: idle
        Thread stdin =
                new Thread(
                        () -> {
                            try (BufferedReader in =
                                    new BufferedReader(
                                            new InputStreamReader(
                                                    System.in, StandardCharsets.UTF_8))) {
                                while (in.readLine() != null) {
                                    // the test only closes stdin
                                }
                            } catch (Exception e) {
                                // exit below
                            }
                            Runtime.getRuntime().halt(0);
                        });
        stdin.setDaemon(true);
        stdin.start();
        OwnerLease table =
                OwnerLease.openOrCreate(host.resolve("leases.cxc"), new OwnerLease.Settings(16));
        GlobalLeases leases =
                new GlobalLeases(
                        table,
                        new GlobalLeases.Settings(
                                args[1],
                                Duration.ofMillis(Long.parseLong(args[4])),
                                Duration.ofMillis(Long.parseLong(args[5])),
                                args[2],
                                host,
                                args[3]));
        System.out.println("ready " + Pids.current());
        if (holdNanos < 0) {
            stdin.join(); // idle: only sweeps the host's session records
        }
        while (true) {
            Optional<LeaseBackend.Held> got = leases.tryAcquire(name, Duration.ofDays(1));
            if (got.isEmpty()) {
                LockSupport.parkNanos(10_000_000);
                continue;
            }
            LeaseBackend.Held held = got.get();
            long since = System.nanoTime();
            System.out.println("held " + held.token() + " " + since);
            boolean lost = false;
            while (holdNanos == 0 || System.nanoTime() - since < holdNanos) {
                if (!leases.isHeld(held)) {
                    lost = true;
                    break;
                }
                LockSupport.parkNanos(200_000);
            }
            System.out.println(
                    "free "
                            + held.token()
                            + " "
                            + System.nanoTime()
                            + (lost ? " lost" : " released"));
            leases.release(held);
        }
    }
}
