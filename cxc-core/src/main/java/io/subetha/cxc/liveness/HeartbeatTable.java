package io.subetha.cxc.liveness;

import static io.subetha.cxc.liveness.HeartbeatTableDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.claim.OwnerStatus;
import io.subetha.cxc.internal.EpochPacer;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.observe.StateMaps;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per-process liveness slots in a shared table. A process {@linkplain #register registers} to claim
 * a slot, then {@linkplain #beat beats} it periodically, writing the current global epoch into it;
 * observers read a slot ({@link #snapshot}, {@link #scan}) to tell whether its owner is alive: a
 * slot whose last beat lags the global epoch by more than a grace window is stale. Someone must
 * {@linkplain #tickGlobalEpoch tick} the epoch for staleness to mean anything: every participant
 * may call {@link #tickGlobalEpochIfDue}, which advances it about once per interval whatever the
 * number of callers. Layout: {@link HeartbeatTableDescriptor}.
 *
 * <p><b>Claiming.</b> A slot is claimed by one CAS on its owner word (PID and generation), so two
 * racing registrants never share one. {@link #register} prefers free slots; when none is left it
 * reclaims a slot whose owner is dead (PID gone, a zombie, or reused by another process, told apart
 * by start time) or whose heartbeat is stale beyond the grace window. A full table of live owners
 * is a {@link CxcCapacityException} naming the capacity.
 *
 * <p><b>Handles.</b> A slot is beaten and unregistered through the handle that registered it: the
 * handle remembers the owner word it installed, so {@link #beat} notices at once (one volatile read
 * and a compare) when the slot was reclaimed from it after a long pause, and throws {@link
 * SlotLostException} instead of refreshing another process's slot. {@link #close()} unregisters
 * every slot this handle still holds, so peers see a clean exit at once.
 *
 * <p>Thread-safe; one instance may serve every thread of a process.
 */
public final class HeartbeatTable extends MappedPrimitive {

    /** The largest capacity of a table (and of an {@link EpochBarrier}). */
    public static final int IN_FLIGHT_SLOTS = 1024;

    /** Epochs a slot's beat may lag the global epoch before the slot counts as stale. */
    public static final long DEFAULT_GRACE_EPOCHS = 3;

    /** The ops a heartbeat table counts, exported under these names. */
    public enum Op implements OpKind {
        BEAT(1),
        REGISTER(2),
        TICK_EPOCH(4),
        SCAN(5),
        UNREGISTER(6),
        READ(7);

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
     * A table's creation settings.
     *
     * @param capacity slots, 1..{@link #IN_FLIGHT_SLOTS}: the most processes registered at once;
     *     fixed when the file is created
     */
    public record Settings(int capacity) {
        /** The capacity of a table created without one. */
        public static final int DEFAULT_CAPACITY = 64;

        public Settings {
            CxcSettingsException.requireInRange(
                    "capacity", capacity, 1, IN_FLIGHT_SLOTS, " (IN_FLIGHT_SLOTS)");
        }
    }

    public static final PrimitiveType<HeartbeatTable, Settings> TYPE =
            PrimitiveType.<HeartbeatTable, Settings>define(
                            PrimitiveKinds.HEARTBEAT_TABLE, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .shape(
                            settings -> new PrimitiveType.Shape(settings.capacity(), SLOT_LENGTH),
                            BODY_LAYOUT)
                    .defaults(new Settings(Settings.DEFAULT_CAPACITY))
                    .recorded(file -> new Settings(file.header().capacity()))
                    .construct((file, settings, options) -> new HeartbeatTable(file));

    private static final int CLAIM_ROUNDS = 8;

    private final int capacity;

    /** The owner word this handle installed per slot, 0 where it holds none. */
    private final AtomicLongArray held;

    private final EpochPacer pacer;

    private HeartbeatTable(MappedFile file) {
        super(file, TYPE);
        // Validated against BODY_LAYOUT (1..IN_FLIGHT_SLOTS) and the file size.
        this.capacity = file.header().capacity();
        this.held = new AtomicLongArray(capacity);
        this.pacer = new EpochPacer(body, LAST_TICK_NANOS_OFFSET);
    }

    /**
     * Opens an existing table, whatever its capacity: the table records its only setting, so a
     * process that joins it needs none.
     */
    public static HeartbeatTable open(Path path) {
        return TYPE.openAsRecorded(path, CxcFileOptions.defaults());
    }

    /**
     * Opens the table, or creates it with {@code settings}; race-safe across processes.
     *
     * @throws io.subetha.cxc.CxcCapacityException if the file was created with another capacity
     */
    public static HeartbeatTable openOrCreate(Path path, Settings settings) {
        return TYPE.openOrCreate(path, settings, CxcFileOptions.defaults());
    }

    // ---------------------------------------------------------------------------- register

    /** {@link #register(long, long)} with {@link #DEFAULT_GRACE_EPOCHS}. */
    public int register(long pid) {
        return register(pid, DEFAULT_GRACE_EPOCHS);
    }

    /**
     * Claims a slot for {@code pid}: a free one if any, else one whose owner is dead or whose beat
     * lags the global epoch by more than {@code graceEpochs}. The slot starts with a fresh beat.
     *
     * @return the slot index, to pass to {@link #beat} and {@link #unregister}
     * @throws CxcCapacityException if every slot is held by a live owner
     * @throws IllegalArgumentException for an invalid PID or a negative grace
     */
    public int register(long pid, long graceEpochs) {
        Pids.requireValid(pid);
        requireGrace(graceEpochs);
        countOp(Op.REGISTER);
        for (int round = 0; round < CLAIM_ROUNDS; round++) {
            boolean contended = false;
            for (int slot = 0; slot < capacity; slot++) {
                long word = ownerWord(slot);
                if (OwnerRecord.pid(word) == OwnerRecord.NO_OWNER) {
                    if (claim(slot, word, pid)) {
                        return slot;
                    }
                    contended = true;
                }
            }
            // No free slot: reclaim one whose owner is dead or silent. Probing costs ~10 µs per
            // held slot, paid only on a full table.
            for (int slot = 0; slot < capacity; slot++) {
                long word = ownerWord(slot);
                if (OwnerRecord.pid(word) != OwnerRecord.NO_OWNER
                        && statusOf(slot, word, graceEpochs).isReclaimable()) {
                    if (claim(slot, word, pid)) {
                        return slot;
                    }
                    contended = true;
                }
            }
            if (!contended) {
                break;
            }
        }
        throw new CxcCapacityException(
                file.path()
                        + " is full: all "
                        + capacity
                        + " slots are held by live processes (heartbeat within "
                        + graceEpochs
                        + " epochs, process running). Create the table with a larger capacity (up"
                        + " to IN_FLIGHT_SLOTS = "
                        + IN_FLIGHT_SLOTS
                        + ") in a new file, or unregister the slots of processes that exit");
    }

    /** Installs {@code pid} in {@code slot} if its owner word is still {@code expected}. */
    private boolean claim(int slot, long expected, long pid) {
        int base = slotOffset(slot);
        long word = OwnerRecord.ownerWord(pid, OwnerRecord.nextGeneration(expected));
        if (!OwnerRecord.claim(
                body, base, expected, word, OwnerRecord.startTimeOf(pid), this::globalEpochRaw)) {
            return false;
        }
        // Ours from here on: the rest of the slot has one writer.
        held.set(slot, word);
        body.setLongRelease(base + LAST_BEAT_NANOS_OFFSET, System.nanoTime());
        body.setLongRelease(base + REGISTERED_AT_OFFSET, globalEpochRaw());
        return true;
    }

    /**
     * Releases a slot this handle registered, for a clean exit: observers see it free at once
     * instead of waiting out the grace window.
     *
     * @return false if this handle holds no such slot, or it had already been reclaimed
     */
    public boolean unregister(int slot) {
        checkSlot(slot);
        countOp(Op.UNREGISTER);
        long mine = held.getAndSet(slot, 0);
        if (mine == 0) {
            return false;
        }
        return OwnerRecord.release(body, slotOffset(slot), mine);
    }

    // -------------------------------------------------------------------------------- beat

    /**
     * Writes the current global epoch (and the monotonic time) into a slot this handle registered.
     * One volatile read of the owner word, a compare and two release stores.
     *
     * @throws SlotLostException if the slot was reclaimed by another process (this process's
     *     heartbeat went stale, e.g. after a long pause): register again
     * @throws IllegalStateException if this handle did not register the slot
     */
    public void beat(int slot) {
        checkSlot(slot);
        countOp(Op.BEAT);
        long mine = held.get(slot);
        int base = slotOffset(slot);
        long word = body.getLongVolatile(base + OWNER_WORD_OFFSET);
        if (word != mine || mine == 0) {
            throw notHeld(slot, mine, word);
        }
        writeBeat(base);
    }

    private void writeBeat(int base) {
        OwnerRecord.beat(body, base, globalEpochRaw());
        body.setLongRelease(base + LAST_BEAT_NANOS_OFFSET, System.nanoTime());
    }

    private RuntimeException notHeld(int slot, long mine, long word) {
        if (mine == 0) {
            return new IllegalStateException(
                    "slot "
                            + slot
                            + " of "
                            + file.path()
                            + " was not registered through this handle; beat the slot that"
                            + " register() returned, through the same HeartbeatTable");
        }
        held.compareAndSet(slot, mine, 0);
        long newOwner = OwnerRecord.pid(word);
        return new SlotLostException(
                "slot "
                        + slot
                        + " of "
                        + file.path()
                        + " no longer belongs to PID "
                        + OwnerRecord.pid(mine)
                        + (newOwner == 0 ? ": it was freed" : ": PID " + newOwner + " reclaimed it")
                        + " after its heartbeat went stale (a pause longer than the grace window?);"
                        + " register() again");
    }

    // ------------------------------------------------------------------------------- epoch

    /** Advances the global epoch by one. @return the new epoch */
    public long tickGlobalEpoch() {
        countOp(Op.TICK_EPOCH);
        return body.getAndAddLong(GLOBAL_EPOCH_OFFSET, 1) + 1;
    }

    /**
     * Advances the global epoch if no one has within {@code interval} (CAS on a shared
     * CLOCK_MONOTONIC timestamp). Every participant may call this on its own cadence; together they
     * advance the epoch about once per interval, and no single death freezes it.
     *
     * @return true if this call advanced the epoch
     */
    public boolean tickGlobalEpochIfDue(Duration interval) {
        if (!pacer.claimTick(interval)) {
            return false;
        }
        tickGlobalEpoch();
        return true;
    }

    public long globalEpoch() {
        countOp(Op.READ);
        return globalEpochRaw();
    }

    private long globalEpochRaw() {
        return body.getLongVolatile(GLOBAL_EPOCH_OFFSET);
    }

    // ------------------------------------------------------------------------------- reads

    /** One slot's owner and heartbeat; empty if the slot is free. */
    public Optional<HeartbeatSnapshot> snapshot(int slot) {
        checkSlot(slot);
        countOp(Op.READ);
        return Optional.ofNullable(read(slot, ownerWord(slot)));
    }

    /**
     * Every held slot, in slot order, each with its lag ({@link HeartbeatSnapshot#lag()}). Reads
     * only shared memory; it does not probe processes (see {@link #status}).
     */
    public List<HeartbeatSnapshot> scan() {
        countOp(Op.SCAN);
        List<HeartbeatSnapshot> slots = new ArrayList<>();
        for (int slot = 0; slot < capacity; slot++) {
            HeartbeatSnapshot snapshot = read(slot, ownerWord(slot));
            if (snapshot != null) {
                slots.add(snapshot);
            }
        }
        return slots;
    }

    /**
     * The held slots whose owner is {@link OwnerStatus#LIVE} under {@code graceEpochs}: beat within
     * the window and process not known to be dead. Probes each held slot's process (~10 µs each).
     */
    public List<HeartbeatSnapshot> liveSlots(long graceEpochs) {
        requireGrace(graceEpochs);
        List<HeartbeatSnapshot> live = new ArrayList<>();
        for (HeartbeatSnapshot snapshot : scan()) {
            if (status(snapshot, graceEpochs) == OwnerStatus.LIVE) {
                live.add(snapshot);
            }
        }
        return live;
    }

    /** {@link #status(HeartbeatSnapshot, long)} of a slot as it is now. */
    public OwnerStatus status(int slot, long graceEpochs) {
        checkSlot(slot);
        requireGrace(graceEpochs);
        countOp(Op.READ);
        long word = ownerWord(slot);
        return OwnerRecord.pid(word) == OwnerRecord.NO_OWNER
                ? OwnerStatus.FREE
                : statusOf(slot, word, graceEpochs);
    }

    /**
     * Judges a snapshot: {@link OwnerStatus#STALE} if its beat lags by more than {@code
     * graceEpochs}, else {@link OwnerStatus#DEAD} if its process is provably gone (or its PID
     * reused), else {@link OwnerStatus#LIVE}. An unknown process status counts as alive: the
     * heartbeat stays the authority, the probe only ever speeds up declaring a death.
     */
    public OwnerStatus status(HeartbeatSnapshot snapshot, long graceEpochs) {
        requireGrace(graceEpochs);
        if (snapshot.isStale(graceEpochs)) {
            return OwnerStatus.STALE;
        }
        return ProcessProbe.status(snapshot.pid(), snapshot.startTime()) == ProcessStatus.DEAD
                ? OwnerStatus.DEAD
                : OwnerStatus.LIVE;
    }

    private OwnerStatus statusOf(int slot, long word, long graceEpochs) {
        return OwnerRecord.judge(body, slotOffset(slot), word, globalEpochRaw(), graceEpochs);
    }

    /** The slot as owned by {@code word}, or null if {@code word} holds no PID. */
    private HeartbeatSnapshot read(int slot, long word) {
        long pid = OwnerRecord.pid(word);
        if (pid == OwnerRecord.NO_OWNER) {
            return null;
        }
        int base = slotOffset(slot);
        return new HeartbeatSnapshot(
                slot,
                pid,
                HeartbeatTableDescriptor.generation(word),
                OwnerRecord.startTime(body, base, word),
                body.getLongAcquire(base + LAST_BEAT_EPOCH_OFFSET),
                body.getLongAcquire(base + LAST_BEAT_NANOS_OFFSET),
                body.getLongAcquire(base + REGISTERED_AT_OFFSET),
                globalEpochRaw());
    }

    /** The slot's owner word: PID and generation, see {@link HeartbeatTableDescriptor}. */
    long ownerWord(int slot) {
        return body.getLongVolatile(slotOffset(slot) + OWNER_WORD_OFFSET);
    }

    /** Slot count, fixed at creation. */
    public int capacity() {
        return capacity;
    }

    private void checkSlot(int slot) {
        if (slot < 0 || slot >= capacity) {
            throw new IllegalArgumentException(
                    "slot " + slot + " is outside 0.." + (capacity - 1) + " of " + file.path());
        }
    }

    static void requireGrace(long graceEpochs) {
        if (graceEpochs < 0) {
            throw new IllegalArgumentException("graceEpochs must be 0 or more, got " + graceEpochs);
        }
    }

    // ----------------------------------------------------------------------------- lifecycle

    /** Unregisters every slot this handle still holds, then marks the handle closed. */
    @Override
    public void close() {
        if (file.isClosed()) {
            return;
        }
        for (int slot = 0; slot < capacity; slot++) {
            if (held.get(slot) != 0) {
                unregister(slot);
            }
        }
        file.close();
    }

    /** Capacity, epoch, and each held slot's owner, generation and lag; probes no process. */

    /** {@link #describe()} with each slot's owner judged live, stale or dead. */
    @Override
    public Map<String, Object> inspect(long graceEpochs) {
        return StateMaps.withEach(
                describe(),
                "slots",
                slot -> {
                    OwnerStatus status =
                            status((int) StateMaps.number(slot.get("slot")), graceEpochs);
                    return StateMaps.orderedOf(
                            "status", status.name(), "alive", status == OwnerStatus.LIVE);
                });
    }

    @Override
    public Map<String, Object> describe() {
        long epoch = globalEpochRaw();
        List<Map<String, Object>> slots = new ArrayList<>();
        for (int slot = 0; slot < capacity; slot++) {
            HeartbeatSnapshot s = read(slot, ownerWord(slot));
            if (s != null) {
                slots.add(
                        fields(
                                "slot", s.slot(),
                                "pid", s.pid(),
                                "generation", Integer.toUnsignedLong(s.generation()),
                                "lastBeatEpoch", s.lastBeatEpoch(),
                                "lagEpochs", s.lag(),
                                "startTime", s.startTime()));
            }
        }
        return fields("capacity", capacity, "globalEpoch", epoch, "slots", List.copyOf(slots));
    }
}
