package io.subetha.cxc.console;

import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.lease.OwnerLease.HeldName;
import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.observe.PrimitiveRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Every lease table the application has opened (its own, ShedLock's and Spring Integration's lock
 * registry alike: each is an {@link OwnerLease} in the registry) and every name held in it.
 */
public final class LeaseTables {

    private final PrimitiveRegistry registry;
    private final Instants instants;

    public LeaseTables(PrimitiveRegistry registry, Clock clock) {
        this.registry = registry;
        this.instants = new Instants(clock);
    }

    /**
     * A held name.
     *
     * @param acquiredAtMillis when it was acquired (epoch ms)
     * @param expiresAtMillis when it expires unless extended (epoch ms), null while its holder has
     *     not yet published the deadline
     * @param lingering released early but held until its deadline
     */
    public record HeldLease(
            String name,
            long pid,
            long token,
            long acquiredAtMillis,
            @Nullable Long expiresAtMillis,
            boolean lingering) {}

    /** A lease table and its held names, in slot order. */
    public record LeaseTable(String name, String file, int capacity, List<HeldLease> held) {}

    public List<LeaseTable> tables() {
        List<LeaseTable> tables = new ArrayList<>();
        for (ObservedPrimitive primitive : registry.primitives()) {
            if (primitive instanceof OwnerLease leases && !leases.isClosed()) {
                tables.add(
                        new LeaseTable(
                                leases.name(),
                                leases.file().toString(),
                                leases.capacity(),
                                leases.held().stream().map(this::held).toList()));
            }
        }
        return tables;
    }

    private HeldLease held(HeldName held) {
        OwnerLease.LeaseInfo holder = held.holder();
        return new HeldLease(
                held.name(),
                holder.pid(),
                holder.token(),
                instants.epochMillis(holder.acquiredAtNanos()),
                holder.expiresAtNanos() == Long.MAX_VALUE
                        ? null
                        : instants.epochMillis(holder.expiresAtNanos()),
                holder.lingering());
    }
}
