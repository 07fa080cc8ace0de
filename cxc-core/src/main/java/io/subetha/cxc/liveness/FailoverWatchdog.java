package io.subetha.cxc.liveness;

import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.*;
import static io.subetha.cxc.liveness.LivenessOps.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.MappedPrimitive;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.FileSpec;
import io.subetha.cxc.mmf.MappedFile;
import io.subetha.cxc.mmf.MappedFiles;
import io.subetha.cxc.mmf.PrimitiveKind;
import io.subetha.cxc.ownership.OwnerStatus;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The detection side of a {@link HeartbeatTable}: holds the work in progress each heartbeat slot
 * owns (64-bit work ids, at most {@code workPerSlot} assigned per slot) and, on {@link #scan()},
 * moves the work of slots whose heartbeat is stale beyond the grace window, or whose process is
 * provably dead, to live slots. Layout: {@link FailoverWatchdogDescriptor}.
 *
 * <p><b>One step per work id.</b> Every work entry has one owner word (state, heartbeat slot and
 * that slot's generation). Assigning, completing and moving are each one CAS on it: a move from a
 * dead owner to a live one either happens whole or not at all, so a work id is never lost and never
 * owned twice, even when several processes scan at once; each scanner reports only the moves its
 * own CASes made. Ownership names the slot's generation, so work of a dead process stays
 * recognisably orphaned even after a new process has reclaimed its slot.
 *
 * <p><b>No thread of its own.</b> The caller scans on its cadence (the seed: "the watchdog does not
 * run as a separate thread"). A scan reads the heartbeat table, probes each held slot's process
 * once (~10 µs each) and walks the work pool.
 *
 * <p><b>Bounds.</b> {@link #assign} refuses a slot's {@code workPerSlot + 1}-th work id. A reclaim
 * may push a survivor beyond that bound, because work is never dropped for lack of room; the pool
 * as a whole holds {@code capacity × workPerSlot} work ids.
 *
 * <p>Thread-safe.
 */
public final class FailoverWatchdog extends MappedPrimitive {

    /** Epochs a slot's beat may lag before its work is moved. */
    public static final long DEFAULT_GRACE_EPOCHS = HeartbeatTable.DEFAULT_GRACE_EPOCHS;

    /** Work ids one heartbeat slot may be assigned, unless given at creation. */
    public static final int DEFAULT_WORK_PER_SLOT = 64;

    private final HeartbeatTable table;
    private final boolean ownsTable;
    private final int capacity;
    private final int workPerSlot;
    private final int entries;

    private FailoverWatchdog(MappedFile file, HeartbeatTable table, boolean ownsTable) {
        super(file, PrimitiveKind.FAILOVER_WATCHDOG, LivenessOps.NAMES, BODY_MAGIC);
        this.table = table;
        this.ownsTable = ownsTable;
        // Both validated by MappedFiles against BODY_LAYOUT and the real file size.
        this.capacity = file.header().capacity();
        this.workPerSlot = file.header().slotSize() / ENTRY_LENGTH;
        this.entries = capacity * workPerSlot;
    }

    /**
     * Creates a watchdog over the heartbeat table at {@code heartbeatPath}, with {@link
     * #DEFAULT_WORK_PER_SLOT}; fails if {@code path} exists.
     */
    public static FailoverWatchdog create(Path path, Path heartbeatPath) {
        return create(path, heartbeatPath, DEFAULT_WORK_PER_SLOT, CxcFileOptions.defaults());
    }

    public static FailoverWatchdog create(
            Path path, Path heartbeatPath, int workPerSlot, CxcFileOptions options) {
        HeartbeatTable table = HeartbeatTable.open(heartbeatPath, options);
        try {
            return create(path, table, workPerSlot, options, true);
        } catch (RuntimeException e) {
            table.close();
            throw e;
        }
    }

    /**
     * Creates a watchdog over an open table (which it will not close), so that a process beats and
     * assigns work through the same handle.
     */
    public static FailoverWatchdog create(
            Path path, HeartbeatTable table, int workPerSlot, CxcFileOptions options) {
        return create(path, table, workPerSlot, options, false);
    }

    private static FailoverWatchdog create(
            Path path,
            HeartbeatTable table,
            int workPerSlot,
            CxcFileOptions options,
            boolean ownsTable) {
        requireWorkPerSlot(workPerSlot);
        return new FailoverWatchdog(
                MappedFiles.create(
                        path,
                        fileSpec(table.capacity(), workPerSlot),
                        FailoverWatchdog::initialise,
                        options),
                table,
                ownsTable);
    }

    /** Opens an existing watchdog over the heartbeat table at {@code heartbeatPath}. */
    public static FailoverWatchdog open(Path path, Path heartbeatPath) {
        return open(path, heartbeatPath, CxcFileOptions.defaults());
    }

    public static FailoverWatchdog open(Path path, Path heartbeatPath, CxcFileOptions options) {
        HeartbeatTable table = HeartbeatTable.open(heartbeatPath, options);
        try {
            return open(path, table, options, true);
        } catch (RuntimeException e) {
            table.close();
            throw e;
        }
    }

    /** Opens an existing watchdog over an open table (which it will not close). */
    public static FailoverWatchdog open(Path path, HeartbeatTable table, CxcFileOptions options) {
        return open(path, table, options, false);
    }

    private static FailoverWatchdog open(
            Path path, HeartbeatTable table, CxcFileOptions options, boolean ownsTable) {
        try {
            return new FailoverWatchdog(
                    MappedFiles.open(path, fileSpec(table.capacity(), FileSpec.ANY), options),
                    table,
                    ownsTable);
        } catch (CxcCapacityException e) {
            throw new CxcCapacityException(
                    path
                            + " watches a heartbeat table of another capacity than "
                            + table.file()
                            + " ("
                            + table.capacity()
                            + " slots): "
                            + e.getMessage());
        }
    }

    /** Opens the watchdog, or creates it; race-safe across processes. */
    public static FailoverWatchdog openOrCreate(
            Path path, HeartbeatTable table, int workPerSlot, CxcFileOptions options) {
        requireWorkPerSlot(workPerSlot);
        return new FailoverWatchdog(
                MappedFiles.openOrCreate(
                        path,
                        fileSpec(table.capacity(), workPerSlot),
                        FailoverWatchdog::initialise,
                        options),
                table,
                false);
    }

    private static void initialise(AtomicBuffer body) {
        body.setLongPlain(MAGIC_OFFSET, BODY_MAGIC);
    }

    private static void requireWorkPerSlot(int workPerSlot) {
        if (workPerSlot < 1 || workPerSlot > MAX_WORK_PER_SLOT) {
            throw new IllegalArgumentException(
                    "workPerSlot must be 1.." + MAX_WORK_PER_SLOT + ", got " + workPerSlot);
        }
    }

    // ------------------------------------------------------------------------------ assign

    /**
     * Records that the current holder of heartbeat {@code slot} owns {@code workId}. The caller
     * keeps work ids unique: assigning an id that is already owned is refused, but two processes
     * assigning the same new id at the same instant are not told apart.
     *
     * @throws IllegalStateException if the slot is free, or {@code workId} is already owned
     * @throws CxcCapacityException if the slot already owns {@code workPerSlot} work ids, or the
     *     pool is full
     * @throws SlotLostException if a scan judged the slot's holder dead while this call ran
     */
    public void assign(int slot, long workId) {
        checkSlot(slot);
        counters.increment(OP_ASSIGN);
        int generation = holderGeneration(slot, "assign work to it");
        int owned = 0;
        for (int entry = 0; entry < entries; entry++) {
            long word = ownerWord(entry);
            int state = state(word);
            if (state == STATE_FREE) {
                continue;
            }
            if (state == STATE_OWNED && workId(entry) == workId) {
                throw new IllegalStateException(
                        "work id "
                                + workId
                                + " is already owned by heartbeat slot "
                                + FailoverWatchdogDescriptor.slot(word)
                                + " in "
                                + file.path()
                                + "; complete it before assigning it again");
            }
            if (state == STATE_OWNED
                    && FailoverWatchdogDescriptor.slot(word) == slot
                    && FailoverWatchdogDescriptor.generation(word) == generation) {
                owned++;
            }
        }
        if (owned >= workPerSlot) {
            throw new CxcCapacityException(
                    "heartbeat slot "
                            + slot
                            + " already owns "
                            + owned
                            + " work ids, the most "
                            + file.path()
                            + " allows per slot ("
                            + workPerSlot
                            + "); complete some first, or create the watchdog with a larger"
                            + " workPerSlot (up to "
                            + MAX_WORK_PER_SLOT
                            + ") in a new file");
        }
        int home = slot * workPerSlot; // start at the slot's own region: entries stay local
        for (int i = 0; i < entries; i++) {
            int entry = (home + i) % entries;
            long word = ownerWord(entry);
            if (state(word) != STATE_FREE) {
                continue;
            }
            int tag = tag(word) + 1;
            long claiming = packClaimWord(tag, slot, Pids.current());
            if (!body.compareAndSetLong(entryOffset(entry) + OWNER_WORD_OFFSET, word, claiming)) {
                continue;
            }
            Interleaving.at(Point.ENTRY_CLAIMED);
            // Safe as a plain store: a claiming entry is freed only once this process is dead, so
            // while we run it is still ours and holds no one else's work.
            body.setLongRelease(entryOffset(entry) + WORK_ID_OFFSET, workId);
            if (!body.compareAndSetLong(
                    entryOffset(entry) + OWNER_WORD_OFFSET,
                    claiming,
                    packOwnerWord(tag, STATE_OWNED, slot, generation))) {
                throw new IllegalStateException(
                        "entry "
                                + entry
                                + " of "
                                + file.path()
                                + " changed while this process held its claim: another process"
                                + " wrote into the file outside the watchdog protocol");
            }
            // If the slot's holder was replaced meanwhile, this names its old generation: the
            // next scan moves the work to a live slot, as for any silent holder.
            return;
        }
        throw new CxcCapacityException(
                file.path()
                        + " has no free work entry: all "
                        + entries
                        + " ("
                        + capacity
                        + " slots × "
                        + workPerSlot
                        + ") are owned; complete work, or create the watchdog with a larger"
                        + " workPerSlot in a new file");
    }

    /**
     * Releases {@code workId}, finished by the holder of heartbeat {@code slot}.
     *
     * @return false if the slot's holder does not own it (never assigned, already completed, or
     *     moved to another slot by a scan: then its new owner completes it)
     */
    public boolean complete(int slot, long workId) {
        checkSlot(slot);
        counters.increment(OP_COMPLETE);
        int generation = holderGeneration(slot, "complete its work");
        for (int entry = 0; entry < entries; entry++) {
            long word = ownerWord(entry);
            if (state(word) == STATE_OWNED
                    && FailoverWatchdogDescriptor.slot(word) == slot
                    && FailoverWatchdogDescriptor.generation(word) == generation
                    && workId(entry) == workId
                    && body.compareAndSetLong(
                            entryOffset(entry) + OWNER_WORD_OFFSET,
                            word,
                            packOwnerWord(tag(word), STATE_FREE, 0, 0))) {
                return true;
            }
        }
        return false;
    }

    // -------------------------------------------------------------------------------- scan

    /** {@link #scan(long)} with {@link #DEFAULT_GRACE_EPOCHS}. */
    public ReclaimReport scan() {
        return scan(DEFAULT_GRACE_EPOCHS);
    }

    /**
     * Moves every work id whose owner is stale (beat more than {@code graceEpochs} behind), dead
     * (process gone, a zombie, PID reused) or gone (its slot freed or taken by a newer holder) to
     * the least-loaded live slot, one CAS per work id, and reports the moves this call made.
     */
    public ReclaimReport scan(long graceEpochs) {
        HeartbeatTable.requireGrace(graceEpochs);
        counters.increment(OP_SCAN);
        boolean[] live = new boolean[capacity];
        int[] generations = new int[capacity];
        long[] pids = new long[capacity];
        for (int slot = 0; slot < capacity; slot++) {
            Optional<HeartbeatSnapshot> snapshot = table.snapshot(slot);
            if (snapshot.isPresent()) {
                pids[slot] = snapshot.get().pid();
                generations[slot] = snapshot.get().generation();
                live[slot] = table.status(snapshot.get(), graceEpochs) == OwnerStatus.LIVE;
            }
        }
        int[] load = new int[capacity];
        for (int entry = 0; entry < entries; entry++) {
            long word = ownerWord(entry);
            if (state(word) == STATE_OWNED && ownerIsLive(word, live, generations)) {
                load[FailoverWatchdogDescriptor.slot(word)]++;
            }
        }
        List<ReclaimReport.WorkMove> moves = new ArrayList<>();
        List<Long> stranded = new ArrayList<>();
        int abandonedClaims = 0;
        for (int entry = 0; entry < entries; entry++) {
            long word = ownerWord(entry);
            int state = state(word);
            if (state == STATE_FREE
                    || (state == STATE_OWNED && ownerIsLive(word, live, generations))) {
                continue;
            }
            int offset = entryOffset(entry) + OWNER_WORD_OFFSET;
            int from = FailoverWatchdogDescriptor.slot(word);
            if (state == STATE_CLAIMING) {
                // Only a dead assigner's claim is freed: a slow one still writes its work id here.
                // Its assign never returned, so no work id was handed out.
                if (ProcessProbe.status(claimant(word), ProcessProbe.UNKNOWN_START_TIME)
                                == ProcessStatus.DEAD
                        && body.compareAndSetLong(
                                offset, word, packOwnerWord(tag(word), STATE_FREE, 0, 0))) {
                    abandonedClaims++;
                }
                continue;
            }
            if (state != STATE_OWNED) {
                continue; // not a state this layout writes: leave it for a person to look at
            }
            int to = leastLoaded(live, load);
            if (to < 0) {
                stranded.add(workId(entry));
                continue;
            }
            long moved = packOwnerWord(tag(word), STATE_OWNED, to, generations[to]);
            if (body.compareAndSetLong(offset, word, moved)) {
                load[to]++;
                long fromPid =
                        from < capacity && generations[from] == generation(word) ? pids[from] : 0;
                // Read after the CAS: while we own the move the id cannot change.
                moves.add(new ReclaimReport.WorkMove(workId(entry), from, fromPid, to, pids[to]));
            }
            // A failed CAS means another scanner moved it, or its owner completed it: not ours.
        }
        return new ReclaimReport(moves, stranded, abandonedClaims);
    }

    private boolean ownerIsLive(long word, boolean[] live, int[] generations) {
        int slot = FailoverWatchdogDescriptor.slot(word);
        // The slot number comes from the file: check it before indexing.
        return slot < capacity && live[slot] && generations[slot] == generation(word);
    }

    private static int leastLoaded(boolean[] live, int[] load) {
        int best = -1;
        for (int slot = 0; slot < live.length; slot++) {
            if (live[slot] && (best < 0 || load[slot] < load[best])) {
                best = slot;
            }
        }
        return best;
    }

    // ------------------------------------------------------------------------------- reads

    /** The work ids the current holder of {@code slot} owns, in pool order. */
    public List<Long> workOf(int slot) {
        checkSlot(slot);
        counters.increment(OP_READ);
        Optional<HeartbeatSnapshot> holder = table.snapshot(slot);
        List<Long> work = new ArrayList<>();
        if (holder.isEmpty()) {
            return work;
        }
        for (WorkAssignment assignment : assignments()) {
            if (assignment.slot() == slot && assignment.generation() == holder.get().generation()) {
                work.add(assignment.workId());
            }
        }
        return work;
    }

    /** The slot owning {@code workId}, if any (whether or not its holder is alive). */
    public OptionalInt ownerOf(long workId) {
        counters.increment(OP_READ);
        for (WorkAssignment assignment : assignments()) {
            if (assignment.workId() == workId) {
                return OptionalInt.of(assignment.slot());
            }
        }
        return OptionalInt.empty();
    }

    /** Every owned work id with its owner, in pool order. */
    public List<WorkAssignment> assignments() {
        counters.increment(OP_READ);
        List<WorkAssignment> all = new ArrayList<>();
        for (int entry = 0; entry < entries; entry++) {
            long word = ownerWord(entry);
            if (state(word) == STATE_OWNED) {
                long workId = workId(entry);
                // Re-read: the id is only meaningful while the entry stayed owned by the same word.
                if (ownerWord(entry) == word) {
                    all.add(
                            new WorkAssignment(
                                    workId,
                                    FailoverWatchdogDescriptor.slot(word),
                                    generation(word)));
                }
            }
        }
        return all;
    }

    public HeartbeatTable heartbeatTable() {
        return table;
    }

    /** The watched table's slot count. */
    public int capacity() {
        return capacity;
    }

    public int workPerSlot() {
        return workPerSlot;
    }

    private int holderGeneration(int slot, String action) {
        return table.snapshot(slot)
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "heartbeat slot "
                                                + slot
                                                + " of "
                                                + table.file()
                                                + " is free: register a process in it before you "
                                                + action))
                .generation();
    }

    private long ownerWord(int entry) {
        return body.getLongVolatile(entryOffset(entry) + OWNER_WORD_OFFSET);
    }

    private long workId(int entry) {
        return body.getLongAcquire(entryOffset(entry) + WORK_ID_OFFSET);
    }

    private void checkSlot(int slot) {
        if (slot < 0 || slot >= capacity) {
            throw new IllegalArgumentException(
                    "slot " + slot + " is outside 0.." + (capacity - 1) + " of " + table.file());
        }
    }

    // ----------------------------------------------------------------------------- lifecycle

    /** Marks this handle closed, and the heartbeat table too if this watchdog opened it. */
    @Override
    public void close() {
        file.close();
        if (ownsTable) {
            table.close();
        }
    }

    @Override
    public String toString() {
        return "FailoverWatchdog[" + file.path() + ", watching " + table.file() + "]";
    }
}
