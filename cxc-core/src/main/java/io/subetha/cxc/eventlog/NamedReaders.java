package io.subetha.cxc.eventlog;

import static io.subetha.cxc.eventlog.NamedReadersDescriptor.*;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The saved positions of an event log's named readers, in a file of their own beside the log
 * (Chronicle's named tailers, Kafka's committed offsets): a process {@linkplain #claim claims} a
 * reader name, reads the log from the name's saved position and {@linkplain Seat#save saves} each
 * position it reaches, so that a process that claims the name after it (a restarted copy) goes on
 * where it stopped. Layout: {@link NamedReadersDescriptor}.
 *
 * <p><b>One reader per name.</b> A name is held by one live process at a time: a claim of a name
 * whose holder is alive is refused with {@link ReaderNameTakenException} naming it (a stopped,
 * {@code SIGSTOP}ped holder counts as alive); a dead holder's name is taken over at once, with its
 * saved position. Names get their slots one at a time, under the table's naming turn, so one name
 * never gets two slots; a name keeps its slot for the life of the file.
 *
 * <p><b>Crash safety.</b> A namer killed before it published the name's length leaves a slot that
 * holds no name, which the next namer reuses. A reader killed between handling an event and saving
 * the position past it leaves the old position: the next holder of the name hands that event over
 * again (at-least-once). A position is one aligned 8-byte store: never torn.
 *
 * <p>Thread-safe; a {@link Seat} is written by its holder's thread.
 */
public final class NamedReaders extends MappedPrimitive {

    /** How long {@link #claim} waits for another live process that is naming a reader. */
    public static final Duration DEFAULT_NAMING_WAIT = Duration.ofSeconds(10);

    /** The ops a reader table counts, exported under these names. */
    public enum Op implements OpKind {
        CLAIM(1),
        SAVE(2);

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
     * A reader table's creation settings.
     *
     * @param capacity reader slots, 1..{@value NamedReadersDescriptor#MAX_CAPACITY}: the most
     *     distinct reader names the file will ever hold; fixed when the file is created
     */
    public record Settings(int capacity) {
        /** The capacity of a table created without one. */
        public static final int DEFAULT_CAPACITY = 64;

        public Settings {
            CxcSettingsException.requireInRange("capacity", capacity, 1, MAX_CAPACITY, "");
        }
    }

    public static final PrimitiveType<NamedReaders, Settings> TYPE =
            PrimitiveType.<NamedReaders, Settings>define(
                            PrimitiveKinds.EVENT_LOG_READERS, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .shape(
                            settings -> new PrimitiveType.Shape(settings.capacity(), SLOT_LENGTH),
                            BODY_LAYOUT)
                    .initialiser(
                            (body, settings) ->
                                    body.setIntPlain(CAPACITY_OFFSET, settings.capacity()))
                    .bodyCheck(NamedReaders::problem)
                    .defaults(new Settings(Settings.DEFAULT_CAPACITY))
                    .recorded(file -> new Settings(file.header().capacity()))
                    .construct((file, settings, options) -> new NamedReaders(file));

    /**
     * A reader name as every process sees it.
     *
     * @param name the reader's name
     * @param pid the PID that reads under it now, 0 when nobody does
     * @param position the next sequence it handles: every event before it was handled
     */
    public record ReaderInfo(String name, long pid, long position) {}

    private static final long PID = Pids.current();
    private static final long START_TIME = OwnerRecord.startTimeOf(PID);

    private final int capacity;

    private NamedReaders(MappedFile file) {
        super(file, TYPE);
        this.capacity = file.header().capacity();
    }

    private static @Nullable String problem(AtomicBuffer body) {
        int capacity = body.getIntPlain(CAPACITY_OFFSET);
        if (capacity < 1 || capacity > MAX_CAPACITY || bodyLength(capacity) != body.capacity()) {
            return "the body declares capacity "
                    + capacity
                    + ", but it has "
                    + body.capacity()
                    + " bytes";
        }
        return null;
    }

    /** {@link #claim(String, LongSupplier, Duration)} waiting {@link #DEFAULT_NAMING_WAIT}. */
    public Seat claim(String name, LongSupplier firstPosition) {
        return claim(name, firstPosition, DEFAULT_NAMING_WAIT);
    }

    /**
     * Claims the reader {@code name} for this process: its saved position, or {@code
     * firstPosition}'s for a name never claimed before.
     *
     * @param wait how long to wait for another live process that is naming a reader
     * @throws ReaderNameTakenException if a live process (this one included) reads under {@code
     *     name}
     * @throws CxcCapacityException if the name is new and every slot holds a name
     * @throws IllegalArgumentException if {@code name} is empty or longer than {@value
     *     NamedReadersDescriptor#MAX_NAME_BYTES} UTF-8 bytes
     */
    public Seat claim(String name, LongSupplier firstPosition, Duration wait) {
        byte[] stored = storedName(name);
        Objects.requireNonNull(firstPosition, "firstPosition");
        requireOpen();
        countOp(Op.CLAIM);
        long turn = Turn.claim(body, NAMING_TURN_OFFSET, wait, file.path(), "the naming turn");
        try {
            int slot = find(stored);
            if (slot < 0) {
                return name(name, stored, firstPosition.getAsLong());
            }
            int record = slotOffset(slot);
            while (true) {
                long word = OwnerRecord.ownerWord(body, record);
                if (OwnerRecord.pid(word) != OwnerRecord.NO_OWNER
                        && !OwnerRecord.isDead(body, record, word)) {
                    throw new ReaderNameTakenException(
                            file.path().toString(), name, OwnerRecord.pid(word), PID);
                }
                long mine = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(word));
                if (OwnerRecord.claim(body, record, word, mine, START_TIME, System::nanoTime)) {
                    return new Seat(name, record, mine);
                }
            }
        } finally {
            Turn.release(body, NAMING_TURN_OFFSET, turn);
        }
    }

    /** Gives {@code name} the first slot that holds no name; under the naming turn. */
    private Seat name(String name, byte[] stored, long position) {
        if (position < 0) {
            throw new IllegalArgumentException("firstPosition must be 0 or more, got " + position);
        }
        for (int slot = 0; slot < capacity; slot++) {
            int record = slotOffset(slot);
            if (body.getIntVolatile(record + NAME_LENGTH_OFFSET) != 0) {
                continue;
            }
            // Only the turn's holder writes an unnamed slot: its owner is free, or a namer that
            // died before it published the name.
            long word = OwnerRecord.ownerWord(body, record);
            long mine = OwnerRecord.ownerWord(PID, OwnerRecord.nextGeneration(word));
            if (!OwnerRecord.claim(body, record, word, mine, START_TIME, System::nanoTime)) {
                throw damaged(
                        "the owner of unnamed reader slot "
                                + slot
                                + " changed under the naming turn");
            }
            Interleaving.at(Point.READER_SLOT_CLAIMED);
            body.setLongRelease(record + POSITION_OFFSET, position);
            body.putBytes(record + NAME_OFFSET, stored);
            body.setIntRelease(record + NAME_LENGTH_OFFSET, stored.length);
            return new Seat(name, record, mine);
        }
        throw new CxcCapacityException(
                "the reader table "
                        + file.path()
                        + " holds "
                        + capacity
                        + " reader names (its capacity), and '"
                        + name
                        + "' is not one of them: reuse a reader name, or delete the file while"
                        + " no process reads (every saved position is lost) to create it with a"
                        + " larger capacity");
    }

    /** The slot of {@code stored}, or -1. */
    private int find(byte[] stored) {
        for (int slot = 0; slot < capacity; slot++) {
            int record = slotOffset(slot);
            int length = nameLength(record, slot);
            if (length == stored.length && sameName(record, stored)) {
                return slot;
            }
        }
        return -1;
    }

    private int nameLength(int record, int slot) {
        int length = body.getIntAcquire(record + NAME_LENGTH_OFFSET);
        if (length < 0 || length > MAX_NAME_BYTES) {
            throw damaged("reader slot " + slot + " declares a name of " + length + " bytes");
        }
        return length;
    }

    private boolean sameName(int record, byte[] stored) {
        for (int i = 0; i < stored.length; i++) {
            if (body.getByte(record + NAME_OFFSET + i) != stored[i]) {
                return false;
            }
        }
        return true;
    }

    private static byte[] storedName(String name) {
        Objects.requireNonNull(name, "name");
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException(
                    "a reader name is 1.."
                            + MAX_NAME_BYTES
                            + " UTF-8 bytes, got "
                            + bytes.length
                            + " in '"
                            + name
                            + "'");
        }
        return bytes;
    }

    /** Every named reader, in slot order. */
    public List<ReaderInfo> readers() {
        passFileCheck();
        requireOpen();
        List<ReaderInfo> readers = new ArrayList<>();
        for (int slot = 0; slot < capacity; slot++) {
            int record = slotOffset(slot);
            int length = nameLength(record, slot);
            if (length == 0) {
                continue;
            }
            byte[] name = new byte[length];
            body.getBytes(record + NAME_OFFSET, name);
            long word = OwnerRecord.ownerWord(body, record);
            readers.add(
                    new ReaderInfo(
                            new String(name, StandardCharsets.UTF_8),
                            OwnerRecord.pid(word) == OwnerRecord.NO_OWNER
                                            || OwnerRecord.isDead(body, record, word)
                                    ? 0
                                    : OwnerRecord.pid(word),
                            savedPosition(record, slot)));
        }
        return readers;
    }

    private long savedPosition(int record, int slot) {
        long position = body.getLongAcquire(record + POSITION_OFFSET);
        if (position < 0) {
            throw damaged("reader slot " + slot + " holds position " + position + ", below 0");
        }
        return position;
    }

    public int capacity() {
        return capacity;
    }

    @Override
    public Map<String, Object> describe() {
        Map<String, Object> readers = new LinkedHashMap<>();
        for (ReaderInfo reader : readers()) {
            readers.put(reader.name(), fields("pid", reader.pid(), "position", reader.position()));
        }
        return fields("capacity", capacity, "readers", readers);
    }

    /**
     * A reader name held by this process: its saved position, which only this holder writes, until
     * {@link #close}.
     */
    public final class Seat implements AutoCloseable {
        private final String name;
        private final int record;
        private final long ownerWord;
        private final AtomicBoolean released = new AtomicBoolean();

        private Seat(String name, int record, long ownerWord) {
            this.name = name;
            this.record = record;
            this.ownerWord = ownerWord;
        }

        public String name() {
            return name;
        }

        /** The saved position: the next sequence to handle. */
        public long position() {
            return savedPosition(record, (record - TABLE_HEADER_LENGTH) / SLOT_LENGTH);
        }

        /**
         * Saves {@code position}: every event before it was handled.
         *
         * @throws IllegalStateException if the seat was closed, or another process holds the name
         *     (only a file written outside the protocol makes that)
         */
        public void save(long position) {
            if (position < 0) {
                throw new IllegalArgumentException("position must be 0 or more, got " + position);
            }
            if (released.get() || OwnerRecord.ownerWord(body, record) != ownerWord) {
                throw new IllegalStateException(
                        "reader '" + name + "' of " + file.path() + " is no longer held here");
            }
            countOp(Op.SAVE);
            body.setLongRelease(record + POSITION_OFFSET, position);
        }

        /** Frees the name, its position kept, for the next process that claims it. */
        @Override
        public void close() {
            if (released.compareAndSet(false, true) && !isClosed()) {
                OwnerRecord.release(body, record, ownerWord);
            }
        }

        @Override
        public String toString() {
            return "reader '" + name + "' of " + file.path();
        }
    }
}
