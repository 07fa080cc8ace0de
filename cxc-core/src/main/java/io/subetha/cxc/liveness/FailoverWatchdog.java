package io.subetha.cxc.liveness;

import static io.subetha.cxc.liveness.FailoverWatchdogDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.observe.StateMaps;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

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
 * <p><b>No thread of its own.</b> The caller scans on its cadence: the watchdog runs no thread, so
 * it costs nothing between scans and needs no shutdown. A scan reads the heartbeat table, probes
 * each held slot's process once (~10 µs each) and walks the work pool.
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

    /** The table a watchdog created without one watches: the Spring Boot starter's. */
    public static final Path DEFAULT_HEARTBEAT_TABLE = Path.of("participants.heartbeat");

    /** The ops a watchdog counts, exported under these names. */
    public enum Op implements OpKind {
        SCAN(5),
        READ(7),
        ASSIGN(8),
        COMPLETE(9);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /**
     * A watchdog's creation settings.
     *
     * @param heartbeatTable the table whose slots own the work: relative to the watchdog file's
     *     directory, or absolute; at most {@value FailoverWatchdogDescriptor#MAX_TABLE_PATH_BYTES}
     *     UTF-8 bytes as given. Its capacity is the watchdog's.
     * @param workPerSlot work ids one heartbeat slot may be assigned, 1..{@value
     *     FailoverWatchdogDescriptor#MAX_WORK_PER_SLOT}; fixed when the file is created
     */
    public record Settings(Path heartbeatTable, int workPerSlot) {
        public Settings {
            int bytes = heartbeatTable.toString().getBytes(StandardCharsets.UTF_8).length;
            if (bytes == 0 || bytes > MAX_TABLE_PATH_BYTES) {
                throw new CxcSettingsException(
                        "heartbeatTable",
                        "heartbeatTable must name the table in 1.."
                                + MAX_TABLE_PATH_BYTES
                                + " UTF-8 bytes, got "
                                + bytes
                                + " ("
                                + heartbeatTable
                                + "); keep the table beside the watchdog and name it relatively");
            }
            CxcSettingsException.requireInRange(
                    "workPerSlot", workPerSlot, 1, MAX_WORK_PER_SLOT, "");
        }

        /**
         * The table at {@code table} (absolute, or relative to the working directory), as the
         * watchdog file at {@code watchdog} names it: relative when it lies beside or below it, so
         * the two files move together; else absolute.
         */
        public static Settings watching(Path watchdog, Path table, int workPerSlot) {
            Path directory = watchdog.toAbsolutePath().getParent();
            Path absolute = table.toAbsolutePath();
            Path relative =
                    directory != null && absolute.startsWith(directory)
                            ? directory.relativize(absolute)
                            : absolute;
            return new Settings(relative, workPerSlot);
        }
    }

    public static final PrimitiveType<FailoverWatchdog, Settings> TYPE =
            PrimitiveType.<FailoverWatchdog, Settings>define(
                            PrimitiveKinds.FAILOVER_WATCHDOG, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .shape(
                            (path, settings) ->
                                    new PrimitiveType.Shape(
                                            tableCapacity(path, settings.heartbeatTable()),
                                            settings.workPerSlot() * ENTRY_LENGTH),
                            BODY_LAYOUT)
                    .initialiser(
                            (body, settings) -> {
                                byte[] name =
                                        settings.heartbeatTable()
                                                .toString()
                                                .getBytes(StandardCharsets.UTF_8);
                                body.setIntPlain(TABLE_PATH_LENGTH_OFFSET, name.length);
                                body.putBytes(TABLE_PATH_OFFSET, name);
                            })
                    .bodyCheck(FailoverWatchdog::tablePathProblem)
                    .defaults(
                            new Settings(DEFAULT_HEARTBEAT_TABLE, DEFAULT_WORK_PER_SLOT),
                            directory ->
                                    HeartbeatTable.openOrCreate(
                                                    directory.resolve(DEFAULT_HEARTBEAT_TABLE),
                                                    new HeartbeatTable.Settings(
                                                            HeartbeatTable.Settings
                                                                    .DEFAULT_CAPACITY))
                                            .close())
                    .recorded(
                            file ->
                                    new Settings(
                                            storedTablePath(file.body()),
                                            file.header().slotSize() / ENTRY_LENGTH))
                    .construct((file, settings, options) -> new FailoverWatchdog(file, options));

    private final HeartbeatTable table;
    private final boolean ownsTable;
    private final int capacity;
    private final int workPerSlot;
    private final int entries;

    private FailoverWatchdog(MappedFile file, CxcFileOptions options) {
        super(file, TYPE);
        // Both validated against BODY_LAYOUT and the real file size.
        this.capacity = file.header().capacity();
        this.workPerSlot = file.header().slotSize() / ENTRY_LENGTH;
        this.entries = capacity * workPerSlot;
        this.ownsTable = true;
        Path tablePath = resolve(file.path(), storedTablePath(body));
        try {
            this.table =
                    HeartbeatTable.TYPE.open(
                            tablePath, new HeartbeatTable.Settings(capacity), options);
        } catch (CxcCapacityException e) {
            throw new CxcCapacityException(
                    file.path()
                            + " watches a heartbeat table of "
                            + capacity
                            + " slots, but "
                            + tablePath
                            + " is not one: "
                            + e.getMessage());
        }
    }

    /** The same watchdog, through {@code shared} (which it will not close) instead of its own. */
    private FailoverWatchdog(FailoverWatchdog own, HeartbeatTable shared) {
        super(own.file, TYPE);
        this.ownsTable = false;
        this.table = shared;
        this.capacity = own.capacity;
        this.workPerSlot = own.workPerSlot;
        this.entries = own.entries;
        own.table.close();
    }

    private static int tableCapacity(Path watchdog, Path table) {
        try (HeartbeatTable peek =
                HeartbeatTable.TYPE.openAsRecorded(
                        resolve(watchdog, table), CxcFileOptions.defaults().asReadOnly())) {
            return peek.capacity();
        }
    }

    private static Path resolve(Path watchdog, Path table) {
        Path directory = watchdog.toAbsolutePath().getParent();
        return directory == null ? table : directory.resolve(table);
    }

    private static Path storedTablePath(AtomicBuffer body) {
        byte[] name = new byte[body.getIntAcquire(TABLE_PATH_LENGTH_OFFSET)];
        body.getBytes(TABLE_PATH_OFFSET, name);
        return Path.of(new String(name, StandardCharsets.UTF_8));
    }

    private static @Nullable String tablePathProblem(AtomicBuffer body) {
        int length = body.getIntAcquire(TABLE_PATH_LENGTH_OFFSET);
        if (length < 1 || length > MAX_TABLE_PATH_BYTES) {
            return "it declares a "
                    + Integer.toUnsignedString(length)
                    + "-byte heartbeat table path, outside 1.."
                    + MAX_TABLE_PATH_BYTES;
        }
        try {
            storedTablePath(body);
        } catch (InvalidPathException unusable) {
            return "its heartbeat table path is no path: " + unusable.getMessage();
        }
        return null;
    }

    /**
     * Opens an existing watchdog that must watch the heartbeat table {@code expected} names, with
     * {@code expected}'s work per slot, and the table it watches.
     *
     * @throws CxcCapacityException if it watches a table of another capacity than {@code
     *     expected}'s, or was created with another work per slot
     * @throws io.subetha.cxc.CxcFormatException if it watches another table of the same capacity
     */
    public static FailoverWatchdog open(Path path, Settings expected) {
        FailoverWatchdog watchdog = TYPE.openAsRecorded(path, CxcFileOptions.defaults());
        try {
            watchdog.requireWatching(path, expected);
        } catch (RuntimeException e) {
            watchdog.close();
            throw e;
        }
        return watchdog;
    }

    /**
     * Opens the watchdog, or creates it with {@code settings}, and the table it watches; race-safe
     * across processes.
     */
    public static FailoverWatchdog openOrCreate(Path path, Settings settings) {
        return TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
    }

    /**
     * Opens the watchdog of the table {@code table} has open, or creates it with {@code
     * workPerSlot}, and works through that handle (which it will not close): a process beats and
     * assigns work through one table handle. Race-safe across processes.
     */
    public static FailoverWatchdog openOrCreate(
            Path path, HeartbeatTable table, int workPerSlot, CxcFileOptions options) {
        return new FailoverWatchdog(
                TYPE.openOrCreate(
                        path, Settings.watching(path, table.file(), workPerSlot), options),
                table);
    }

    /** Refuses a watchdog that does not watch {@code expected}'s table with its work per slot. */
    private void requireWatching(Path path, Settings expected) {
        Path heartbeatPath = resolve(path, expected.heartbeatTable());
        Path watched = table.file().toAbsolutePath().normalize();
        if (!watched.equals(heartbeatPath.toAbsolutePath().normalize())) {
            int expectedCapacity = tableCapacity(path, heartbeatPath.toAbsolutePath());
            if (expectedCapacity != capacity) {
                throw new CxcCapacityException(
                        path
                                + " watches a heartbeat table of another capacity than "
                                + heartbeatPath
                                + " ("
                                + expectedCapacity
                                + " slots): it was created with capacity "
                                + capacity
                                + ", for "
                                + watched);
            }
            throw new CxcFormatException(
                    "cannot open "
                            + path
                            + " as a watchdog of "
                            + heartbeatPath
                            + ": it watches "
                            + watched
                            + ". The file was left untouched.");
        }
        if (expected.workPerSlot() != workPerSlot) {
            throw new CxcCapacityException(
                    path
                            + " was created with "
                            + workPerSlot
                            + " work ids per slot, but was opened expecting "
                            + expected.workPerSlot()
                            + "; open it with "
                            + workPerSlot
                            + ", or give the new work per slot a new file");
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
        countOp(Op.ASSIGN);
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
            Interleaving.at(Point.WATCHDOG_ENTRY_JUDGED);
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
        countOp(Op.COMPLETE);
        int generation = holderGeneration(slot, "complete its work");
        for (int entry = 0; entry < entries; entry++) {
            long word = ownerWord(entry);
            if (state(word) == STATE_OWNED
                    && FailoverWatchdogDescriptor.slot(word) == slot
                    && FailoverWatchdogDescriptor.generation(word) == generation
                    && workId(entry) == workId) {
                Interleaving.at(Point.WATCHDOG_ENTRY_JUDGED);
                if (body.compareAndSetLong(
                        entryOffset(entry) + OWNER_WORD_OFFSET,
                        word,
                        packOwnerWord(tag(word), STATE_FREE, 0, 0))) {
                    return true;
                }
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
        countOp(Op.SCAN);
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
                        == ProcessStatus.DEAD) {
                    Interleaving.at(Point.WATCHDOG_ENTRY_JUDGED);
                    if (body.compareAndSetLong(
                            offset, word, packOwnerWord(tag(word), STATE_FREE, 0, 0))) {
                        abandonedClaims++;
                    }
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
            Interleaving.at(Point.WATCHDOG_ENTRY_JUDGED);
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
        countOp(Op.READ);
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
        countOp(Op.READ);
        for (WorkAssignment assignment : assignments()) {
            if (assignment.workId() == workId) {
                return OptionalInt.of(assignment.slot());
            }
        }
        return OptionalInt.empty();
    }

    /** Every owned work id with its owner, in pool order. */
    public List<WorkAssignment> assignments() {
        countOp(Op.READ);
        return readAssignments();
    }

    private List<WorkAssignment> readAssignments() {
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

    /** Marks this handle closed, and the heartbeat table's too if this watchdog opened it. */
    @Override
    public void close() {
        file.close();
        if (ownsTable) {
            table.close();
        }
    }

    /** The table watched, the pool's size and every owned work id with its owner. */

    /** {@link #describe()} with each assignment's owner slot judged live, stale or dead. */
    @Override
    public Map<String, Object> inspect(long graceEpochs) {
        return StateMaps.withEach(
                describe(),
                "assignments",
                a ->
                        Map.of(
                                "ownerStatus",
                                table.status((int) StateMaps.number(a.get("slot")), graceEpochs)
                                        .name()));
    }

    @Override
    public Map<String, Object> describe() {
        List<Map<String, Object>> owned = new ArrayList<>();
        for (WorkAssignment a : readAssignments()) {
            owned.add(
                    fields(
                            "workId", a.workId(),
                            "slot", a.slot(),
                            "generation", Integer.toUnsignedLong(a.generation())));
        }
        return fields(
                "heartbeatTable", table.file().toString(),
                "capacity", capacity,
                "workPerSlot", workPerSlot,
                "owned", owned.size(),
                "assignments", List.copyOf(owned));
    }
}
