package io.subetha.cxc.docs.examples;

import io.subetha.cxc.lease.OwnerLease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.support.locks.LockRegistry;

/** Named leases in plain Java, and Spring Integration's locks over them. */
class LeaseExample {

    interface Report {
        void run(long fencingToken);
    }

    void lease(Report report) throws Exception {
        // docs:begin owner-lease
        try (OwnerLease leases = OwnerLease.openOrCreate(Path.of("/dev/shm/myapp/leases.cxc"), new OwnerLease.Settings(256))) {
            leases.tryAcquire("nightly-report", ProcessHandle.current().pid(), Duration.ofMinutes(10))
                    .ifPresent(lease -> {
                        try { report.run(lease.token()); } finally { leases.release(lease); }
                    });
        }
        // docs:end owner-lease
    }

    void lock(LockRegistry lockRegistry) throws Exception {
        // docs:begin lock-registry
        Lock lock = lockRegistry.obtain("order-42");
        if (lock.tryLock(1, TimeUnit.SECONDS)) {
            try { /* ... */ } finally { lock.unlock(); }
        }
        // or leadership: new LockRegistryLeaderInitiator(lockRegistry, candidate)
        // docs:end lock-registry
    }
}
