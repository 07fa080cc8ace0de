package io.subetha.cxc.lease;

import io.subetha.cxc.testing.Linearizability;
import io.subetha.cxc.testing.ProcessHandles;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * Acquiring, extending and releasing named leases, and reading their holders, are linearizable
 * across handles on one file, fencing tokens included: every concurrent history is one a table of
 * names with a holder and a counter each ({@link Model}) could produce. Each thread keeps the
 * leases it acquired, as a process would, and extends or releases only those. Leases last a minute,
 * so none expires during a scenario; every holder is this (live) process.
 */
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "name", gen = IntGen.class, conf = "0:1")
public class OwnerLeaseLinearizabilityTest {

    private static final String[] NAMES = {"a", "b"};
    private static final long PID = ProcessHandle.current().pid();
    private static final Duration AT_MOST = Duration.ofMinutes(1);
    private static final OwnerLease.Settings SETTINGS = new OwnerLease.Settings(NAMES.length);

    private final ProcessHandles<OwnerLease> tables =
            ProcessHandles.on(
                    "lease",
                    path -> OwnerLease.TYPE.create(path, SETTINGS),
                    path -> OwnerLease.TYPE.open(path, SETTINGS));

    /** Each thread's leases, by thread and name; only their own thread touches an entry. */
    private final Map<String, OwnerLease.Lease> held = new ConcurrentHashMap<>();

    /** The lease's fencing token, or -1 if a live holder has the name. */
    @Operation
    public long acquire(@Param(name = "thread") int thread, @Param(name = "name") int name) {
        if (held.containsKey(key(thread, name))) {
            return -2; // the model refuses a second acquisition too: not reentrant
        }
        Optional<OwnerLease.Lease> lease = tables.of(thread).tryAcquire(NAMES[name], PID, AT_MOST);
        lease.ifPresent(l -> held.put(key(thread, name), l));
        return lease.map(OwnerLease.Lease::token).orElse(-1L);
    }

    /** Whether this thread's lease on the name was extended; false if it holds none. */
    @Operation
    public boolean extend(@Param(name = "thread") int thread, @Param(name = "name") int name) {
        OwnerLease.Lease lease = held.get(key(thread, name));
        return lease != null && tables.of(thread).extend(lease, AT_MOST);
    }

    /** Whether this thread's lease on the name was released; false if it holds none. */
    @Operation
    public boolean release(@Param(name = "thread") int thread, @Param(name = "name") int name) {
        OwnerLease.Lease lease = held.remove(key(thread, name));
        return lease != null && tables.of(thread).release(lease);
    }

    /** The holder's token, or -1 if the name is free. */
    @Operation
    public long holder(@Param(name = "thread") int thread, @Param(name = "name") int name) {
        return tables.of(thread).holder(NAMES[name]).map(OwnerLease.LeaseInfo::token).orElse(-1L);
    }

    private static String key(int thread, int name) {
        return thread + "/" + name;
    }

    @Test
    void stress() {
        Linearizability.stress().sequentialSpecification(Model.class).check(getClass());
    }

    @Test
    void modelChecking() {
        Linearizability.modelChecking().sequentialSpecification(Model.class).check(getClass());
    }

    /** Per name: the holding thread (or none) and the last token handed out. */
    public static final class Model {
        private final Map<Integer, Integer> holders = new HashMap<>();
        private final Map<Integer, Long> tokens = new HashMap<>();

        public long acquire(int thread, int name) {
            Integer holder = holders.get(name);
            if (holder != null && holder == thread) {
                return -2;
            }
            if (holder != null) {
                return -1;
            }
            long token = tokens.merge(name, 1L, Long::sum);
            holders.put(name, thread);
            return token;
        }

        public boolean extend(int thread, int name) {
            Integer holder = holders.get(name);
            return holder != null && holder == thread;
        }

        public boolean release(int thread, int name) {
            Integer holder = holders.get(name);
            if (holder == null || holder != thread) {
                return false;
            }
            holders.remove(name);
            return true;
        }

        public long holder(int thread, int name) {
            return holders.containsKey(name) ? tokens.get(name) : -1;
        }
    }
}
