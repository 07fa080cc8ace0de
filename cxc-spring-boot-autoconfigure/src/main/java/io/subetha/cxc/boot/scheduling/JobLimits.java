package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.lease.OwnerLease.Lease;
import io.subetha.cxc.lease.OwnerLeaseDescriptor;
import io.subetha.cxc.mmf.CxcFileOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A declared scheduler's concurrency limits by job type, {@code
 * cxc.schedulers.<name>.limits.<type>=N}: a run of a limited type holds one of the N leases {@code
 * <type>#0} .. {@code <type>#N-1} of the lease table {@code <name>.limits} beside the scheduler's
 * file, so at most N run at once across every process. A lease is free again when its run ends, at
 * once when its holder's process dies, and past the scheduler's grace when the holder is silent (a
 * live one extends its leases every tick): the judgement that re-queues a silent worker's job.
 *
 * <p>The table is created with room for the limits, at least its default capacity ({@link
 * #LEASES}), and its size is fixed then: copies declaring other limits (a rolling deploy) share it
 * as long as theirs fit, a type no longer limited leaves its slots to new names (see {@link
 * OwnerLease}), and limits that outgrow it are refused, saying to remove the file.
 */
public final class JobLimits implements AutoCloseable {

    public static final String SUFFIX = ".limits";

    /** The slots of a table created for limits that add up to less. */
    public static final int LEASES = OwnerLease.Settings.DEFAULT_CAPACITY;

    /** The most a scheduler's limits add up to: a lease table's largest. */
    public static final int MOST = OwnerLeaseDescriptor.MAX_CAPACITY;

    private static final long PID = ProcessHandle.current().pid();

    private final Map<String, Integer> limits;
    private final OwnerLease leases;
    private final Duration span;
    private final Set<Lease> held = ConcurrentHashMap.newKeySet();

    private JobLimits(Map<String, Integer> limits, OwnerLease leases, Duration span) {
        this.limits = limits;
        this.leases = leases;
        this.span = span;
    }

    /**
     * Opens (or creates) the limits table beside {@code schedulerFile}, after checking {@code
     * limits}; its leases last {@code span} (the scheduler's grace) unless extended by {@link
     * #extendHeld}.
     *
     * @throws InvalidCxcPropertyException naming the property of a limit below 1, or of the limits
     *     when they add up to more than {@link #MOST} or than the leases of the existing table
     */
    public static JobLimits open(
            String scheduler,
            Path schedulerFile,
            Map<String, Integer> limits,
            Duration span,
            CxcFileOptions options) {
        String property = "cxc.schedulers." + scheduler + ".limits";
        long sum = 0;
        for (Map.Entry<String, Integer> limit : limits.entrySet()) {
            Integer n = limit.getValue();
            if (n == null || n < 1) {
                throw new InvalidCxcPropertyException(
                        property + "." + limit.getKey(),
                        n,
                        "a limit must be at least 1 (jobs of the type that run at once)",
                        "Set it to 1 or more, or remove it to leave the type unlimited.");
            }
            sum += n;
        }
        if (sum > MOST) {
            throw new InvalidCxcPropertyException(
                    property,
                    limits,
                    "the limits add up to "
                            + sum
                            + ", more than the "
                            + MOST
                            + " leases a table of "
                            + scheduler
                            + SUFFIX
                            + " holds at most",
                    "Lower them to " + MOST + " in all.");
        }
        Path file = schedulerFile.resolveSibling(SchedulerWorkers.nameOf(schedulerFile) + SUFFIX);
        OwnerLease leases = table(file, (int) Math.max(LEASES, sum), options);
        if (sum > leases.capacity()) {
            leases.close();
            throw new InvalidCxcPropertyException(
                    property,
                    limits,
                    "the limits add up to "
                            + sum
                            + ", more than the "
                            + leases.capacity()
                            + " leases "
                            + file
                            + " was created with",
                    "Lower them to "
                            + leases.capacity()
                            + " in all, or stop every copy and remove "
                            + file
                            + " so that it is created anew with room for them.");
        }
        return new JobLimits(Map.copyOf(limits), leases, span);
    }

    /** The existing table, whatever its size; else a new one of {@code leases} slots. */
    private static OwnerLease table(Path file, int leases, CxcFileOptions options) {
        if (!Files.exists(file)) {
            try {
                return OwnerLease.TYPE.openOrCreate(file, new OwnerLease.Settings(leases), options);
            } catch (CxcCapacityException otherSize) {
                // Created meanwhile by a copy declaring other limits: opened at its size below.
            }
        }
        return (OwnerLease) OwnerLease.TYPE.openAsRecorded(file, options);
    }

    /**
     * A type's limit and how many of its leases have a live holder now, in every process.
     *
     * @param limit jobs of the type that may run at once
     * @param running those running now (a lease held)
     */
    public record Use(int limit, int running) {}

    /** Each limited type's limit and use now, by type; reads the table once. */
    public Map<String, Use> use() {
        Map<String, Integer> running = new HashMap<>();
        for (OwnerLease.HeldName held : leases.held()) {
            int hash = held.name().lastIndexOf('#');
            if (hash > 0 && limits.containsKey(held.name().substring(0, hash))) {
                running.merge(held.name().substring(0, hash), 1, Integer::sum);
            }
        }
        Map<String, Use> use = new TreeMap<>();
        limits.forEach((type, n) -> use.put(type, new Use(n, running.getOrDefault(type, 0))));
        return use;
    }

    /** Whether jobs of {@code type} are limited. */
    boolean limits(String type) {
        return limits.containsKey(type);
    }

    /** One of {@code type}'s leases, or empty when every one has a live holder. */
    Optional<Lease> tryEnter(String type) {
        int n = limits.getOrDefault(type, 0);
        for (int i = 0; i < n; i++) {
            Optional<Lease> lease = leases.tryAcquire(type + "#" + i, PID, span);
            if (lease.isPresent()) {
                held.add(lease.get());
                return lease;
            }
        }
        return Optional.empty();
    }

    /** Frees the lease of a run that ended. */
    void leave(Lease lease) {
        held.remove(lease);
        leases.release(lease);
    }

    /**
     * Extends the leases of the runs still going by the span: a tick's work. Returns the names of
     * those lost meanwhile (silent past the span: another run of the type may have begun).
     */
    Set<String> extendHeld() {
        Set<String> lost = new TreeSet<>();
        for (Lease lease : held) {
            if (!leases.extend(lease, span) && held.remove(lease)) {
                lost.add(lease.name()); // said once: it is no longer extended
            }
        }
        return lost;
    }

    @Override
    public void close() {
        leases.close();
    }

    @Override
    public String toString() {
        return "JobLimits" + limits;
    }
}
