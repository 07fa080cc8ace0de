package io.subetha.cxc.zookeeper;

import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.shedlock.LockProviderContract;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider contract, case for case, on {@link GlobalLeases} over a ZooKeeper server. */
class ZooKeeperLockProviderContractTest extends LockProviderContract {

    private static ContractServer server;
    private GlobalLeases global;

    @BeforeAll
    static void startServer() throws Exception {
        server = ContractServer.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @Override
    protected LeaseBackend openBackend(Path dir) {
        global = server.leases(dir, "host-a");
        return global;
    }

    @Override
    protected void closeBackend() {
        OwnerLease table = global.local();
        global.close();
        table.close();
    }

    @Override
    protected int fuzzIterations() {
        return 300;
    }
}
