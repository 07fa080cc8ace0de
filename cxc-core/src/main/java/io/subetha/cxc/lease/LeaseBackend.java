package io.subetha.cxc.lease;

import io.subetha.cxc.process.Pids;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Named leases with fencing tokens, as the lock providers (cxc-shedlock's {@code CxcLockProvider},
 * cxc-spring-integration's {@code CxcLockRegistry}) take them: on this host only ({@link
 * #local(OwnerLease)}, an {@link OwnerLease} file), or across hosts (cxc-zookeeper's {@code
 * GlobalLeases}, the host-local lease first and then ZooKeeper). The providers depend on this
 * interface only, so they need no ZooKeeper client on their classpath.
 */
public interface LeaseBackend {

    /** A held lease: pass it back to extend or release it. */
    interface Held {
        String name();

        /** The fencing token: above every earlier acquisition's of this name. */
        long token();

        /** {@link System#nanoTime()} right after the acquisition. */
        long acquiredAtNanos();
    }

    /**
     * Puts a lease table's leases on a backend: what the Boot starter's lock providers ask for each
     * lease file they open. Without a bean of this type they stay host-local ({@link #LOCAL});
     * cxc-zookeeper's auto-configuration defines one for {@code cxc.leader.backend=zookeeper}.
     */
    @FunctionalInterface
    interface Factory {
        /** The leases of this host only. */
        Factory LOCAL = (local, table) -> LeaseBackend.local(local);

        /**
         * @param local the table's host-local lease file
         * @param table the table's name (the file's, without {@code .cxc}), to tell tables apart
         */
        LeaseBackend over(OwnerLease local, String table);
    }

    /** The host-local lease table under these leases (the whole of them for {@link #local}). */
    OwnerLease local();

    /** Takes {@code name} for at most {@code atMost} for this process, or answers empty. */
    Optional<Held> tryAcquire(String name, Duration atMost);

    /** Whether {@code lease} still holds. */
    boolean isHeld(Held lease);

    /** Moves the lease's end to {@code atMost} from now; false if it no longer holds. */
    boolean extend(Held lease, Duration atMost);

    /** Releases the lease; answers whether it still held. */
    boolean release(Held lease);

    /** Releases the lease, keeping the name held until {@code notBeforeNanos} (nanoTime). */
    boolean releaseNoEarlierThan(Held lease, long notBeforeNanos);

    /**
     * Waits up to {@code timeout} for a release that may let {@code look} succeed, answering true
     * once it did.
     */
    boolean awaitRelease(BooleanSupplier look, Duration timeout);

    /**
     * {@link #awaitRelease(BooleanSupplier, Duration)} for a waiter of {@code name}: a backend
     * whose looks cost a round trip (ZooKeeper's) looks again only once that name may be free.
     */
    default boolean awaitRelease(String name, BooleanSupplier look, Duration timeout) {
        return awaitRelease(look, timeout);
    }

    /** The leases of an {@link OwnerLease} file, for this process: exclusion on this host. */
    static LeaseBackend local(OwnerLease leases) {
        long pid = Pids.current();
        return new LeaseBackend() {
            @Override
            public OwnerLease local() {
                return leases;
            }

            @Override
            public Optional<Held> tryAcquire(String name, Duration atMost) {
                return leases.tryAcquire(name, pid, atMost).map(Held.class::cast);
            }

            @Override
            public boolean isHeld(Held lease) {
                return leases.isHeld((OwnerLease.Lease) lease);
            }

            @Override
            public boolean extend(Held lease, Duration atMost) {
                return leases.extend((OwnerLease.Lease) lease, atMost);
            }

            @Override
            public boolean release(Held lease) {
                return leases.release((OwnerLease.Lease) lease);
            }

            @Override
            public boolean releaseNoEarlierThan(Held lease, long notBeforeNanos) {
                return leases.releaseNoEarlierThan((OwnerLease.Lease) lease, notBeforeNanos);
            }

            @Override
            public boolean awaitRelease(BooleanSupplier look, Duration timeout) {
                return leases.awaitRelease(look, timeout);
            }

            @Override
            public String toString() {
                return "host-local leases in " + leases.file();
            }
        };
    }
}
