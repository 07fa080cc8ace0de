package io.subetha.cxc.election;

import io.subetha.cxc.election.FencedLedger.WriteOutcome;
import io.subetha.cxc.testing.Linearizability;
import io.subetha.cxc.testing.ProcessHandles;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * The fenced ledger's write and its reads of the fence are linearizable: every concurrent history
 * of writes by different handles on one file is one a single-threaded ledger ({@link Model}) could
 * produce. The write counters are statistics, bumped after the decision, and not part of the model.
 */
@Param(name = "term", gen = IntGen.class, conf = "1:4")
@Param(name = "pid", gen = IntGen.class, conf = "1:3")
@Param(name = "thread", gen = ThreadIdGen.class)
public class FencedLedgerLinearizabilityTest {

    private final ProcessHandles<FencedLedger> ledgers =
            ProcessHandles.on(
                    "ledger",
                    path -> FencedLedger.TYPE.create(path, new FencedLedger.Settings()),
                    path -> FencedLedger.TYPE.open(path, new FencedLedger.Settings()));

    @Operation
    public WriteOutcome write(
            @Param(name = "thread") int thread,
            @Param(name = "term") int term,
            @Param(name = "pid") int pid) {
        return ledgers.of(thread).write(term, pid);
    }

    @Operation
    public long highestTerm(@Param(name = "thread") int thread) {
        return ledgers.of(thread).highestTerm();
    }

    @Operation
    public long holderPid(@Param(name = "thread") int thread) {
        return ledgers.of(thread).holderPid();
    }

    @Test
    void stress() {
        Linearizability.stress().sequentialSpecification(Model.class).check(getClass());
    }

    @Test
    void modelChecking() {
        Linearizability.modelChecking().sequentialSpecification(Model.class).check(getClass());
    }

    /** The ledger's rules on one highest term and its holder. */
    public static final class Model {
        private long highest;
        private long holder;

        public WriteOutcome write(int thread, int term, int pid) {
            if (term < highest) {
                return WriteOutcome.REJECTED_STALE_TERM;
            }
            if (term == highest && holder != pid) {
                return WriteOutcome.REJECTED_TERM_CONFLICT;
            }
            highest = term;
            holder = pid;
            return WriteOutcome.ACCEPTED;
        }

        public long highestTerm(int thread) {
            return highest;
        }

        public long holderPid(int thread) {
            return holder;
        }
    }
}
