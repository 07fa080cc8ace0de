package io.subetha.cxc.docs.examples;

// docs:begin election
import io.subetha.cxc.election.SharedLeaderElection;
// docs:end election
import io.subetha.cxc.election.FencedLedger;
import java.nio.file.Path;
import java.time.Duration;

/** Leader election and fencing in plain Java: the README's first example. */
class ElectionExample {

    void elect() throws Exception {
        // docs:begin election

        long me = ProcessHandle.current().pid();
        try (var election = SharedLeaderElection.openOrCreate(Path.of("/dev/shm/myapp/leader.cxc"))) {
            election.tickEpochIfDue(Duration.ofMillis(50)); // any participant keeps the epoch moving
            if (election.tryClaimLeadership(me, SharedLeaderElection.DEFAULT_GRACE_EPOCHS)) {
                long fencingToken = election.electionTerm(); // hand it to downstream writes
                election.beatAsLeader(me);
                // ... leader-only work ...
            } else if (election.claimIfLeaderDead(me)) {
                // the leader's process died: taken over at once, without waiting for the grace window
            }
        }
        // docs:end election
    }

    void fence(SharedLeaderElection election, long me) throws Exception {
        // docs:begin fenced-ledger
        try (var ledger = FencedLedger.openOrCreate(Path.of("/dev/shm/myapp/ledger.cxc"))) {
            if (ledger.write(election.electionTerm(), me).accepted()) {
                // ... the write counts ...
            } // else REJECTED_STALE_TERM: a newer leader exists; stop acting as leader
        }
        // docs:end fenced-ledger
    }
}
