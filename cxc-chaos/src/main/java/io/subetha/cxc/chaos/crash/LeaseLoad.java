package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.election.FencedLedger.WriteOutcome;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.process.Pids;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Takes the run's one lease name, writes its token to the fenced ledger a few times while it holds
 * it, and releases it (one time in ten it lets the lease expire instead).
 */
final class LeaseLoad implements Load {

    private final OwnerLease lease;
    private final FencedLedger ledger;
    private final Duration atMost;
    private final History history;
    private final long pid = Pids.current();

    LeaseLoad(OwnerLease lease, FencedLedger ledger, Duration atMost, History history) {
        this.lease = lease;
        this.ledger = ledger;
        this.atMost = atMost;
        this.history = history;
    }

    @Override
    public Family family() {
        return Family.LEASE;
    }

    @Override
    public void step(Random random) {
        history.log(Family.LEASE, "acquire-begin");
        Optional<Lease> acquired = lease.tryAcquire(CrashFiles.LEASE_NAME, pid, atMost);
        if (acquired.isEmpty()) {
            history.log(Family.LEASE, "held-elsewhere");
            return;
        }
        Lease held = acquired.get();
        long token = held.token();
        history.log(Family.LEASE, "acquired", token, held.acquiredAtNanos(), atMost.toNanos());
        int writes = 1 + random.nextInt(3);
        for (int i = 0; i < writes; i++) {
            history.log(Family.LEASE, "write-begin", token);
            WriteOutcome outcome = ledger.write(token, pid);
            history.log(Family.LEASE, "wrote", token, outcome);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(random.nextInt(10)));
        }
        if (random.nextInt(10) == 0) {
            history.log(Family.LEASE, "let-expire", token);
            return;
        }
        history.log(Family.LEASE, "release-begin", token);
        boolean released = lease.release(held);
        history.log(Family.LEASE, "released", token, released);
    }
}
