package io.subetha.cxc.zookeeper;

import io.subetha.cxc.lease.OwnerLease;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.TestingServer;

/**
 * One ZooKeeper server for a contract test class (the lock providers' cases, run on {@link
 * GlobalLeases}): each test's leases live under a path of their own, so no test sees another's.
 */
final class ContractServer implements AutoCloseable {

    private static final AtomicInteger TESTS = new AtomicInteger();

    private final TestingServer server;

    private ContractServer(TestingServer server) {
        this.server = server;
    }

    static ContractServer start() throws Exception {
        // curator-test writes a configuration file per server start into java.io.tmpdir.
        Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
        return new ContractServer(new TestingServer(true));
    }

    /** A new test's path: its hosts share it. */
    static String nextPath() {
        return "/cxc/contract-" + TESTS.incrementAndGet() + "/leases";
    }

    String connectString() {
        return server.getConnectString();
    }

    /** Leases of one simulated host: its own table and session records below {@code dir}. */
    GlobalLeases leases(Path dir, String host) {
        return leases(dir, host, nextPath());
    }

    GlobalLeases leases(Path dir, String host, String path) {
        try {
            Path directory = Files.createDirectories(dir.resolve(host));
            OwnerLease table =
                    OwnerLease.openOrCreate(
                            directory.resolve("leases.cxc"), new OwnerLease.Settings(64));
            return new GlobalLeases(
                    table,
                    new GlobalLeases.Settings(
                            server.getConnectString(),
                            Duration.ofSeconds(10),
                            Duration.ofSeconds(5),
                            path,
                            directory,
                            host));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws Exception {
        server.close();
    }
}
