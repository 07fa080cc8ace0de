package io.subetha.cxc.eventlog;

import static io.subetha.cxc.eventlog.EventStateLogDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.wake.DoorbellWaiter;
import io.subetha.cxc.wake.WaitPhases;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Follows an {@link EventStateLog} without consuming it: its own position, in this process only,
 * and no effect on the drain. {@link #poll} hands over the committed events from the position on,
 * in sequence order, skipping gaps, and stops at the first sequence not committed yet.
 *
 * <p><b>No torn event.</b> An event is read between two reads of its slot's owner word: a later lap
 * must claim the slot (changing that word) before it writes a byte there, so an unchanged word
 * means the bytes read were the committed event's. A changed key means the event was overwritten:
 * the reader fell more than {@code capacity} events behind and is told so with {@link
 * EventsOverwrittenException} (its position stays, so {@link #seek} decides where to go on).
 *
 * <p><b>Waiting.</b> {@link #await} waits until the event at the position is committed (or the
 * position holds anything {@link #poll} must act on): it spins, yields, then sleeps on the log's
 * {@link io.subetha.cxc.wake.Doorbell}, which every commit rings, so a sleeping reader in another
 * process sees an event within a Unix socket's hand-over. {@link #close} gives its doorbell slot
 * back; closing the log does it for every reader.
 *
 * <p>Not thread-safe: one reader per thread.
 */
public final class EventLogReader<E> implements AutoCloseable {

    private final EventStateLog<E, ?> log;
    private final AtomicBuffer body;
    private final FixedCodec<E> codec;
    private final int capacity;
    private final int stride;
    private final BooleanSupplier hasEvent = this::hasEvent;
    private @Nullable DoorbellWaiter waiter;
    private WaitPhases phases = WaitPhases.DEFAULT;
    private long position;

    EventLogReader(EventStateLog<E, ?> log, long fromSequence) {
        this.log = log;
        this.body = log.buffer();
        this.codec = log.eventsCodec();
        this.capacity = log.capacity();
        this.stride = log.stride();
        this.position = fromSequence;
    }

    /** The sequence the next {@link #poll} starts at. */
    public long position() {
        return position;
    }

    /** Moves the position to {@code sequence}. */
    public void seek(long sequence) {
        if (sequence < 0) {
            throw new IllegalArgumentException("sequence must be 0 or more, got " + sequence);
        }
        position = sequence;
    }

    /** {@link #poll(Consumer, int)} with no limit but what is committed. */
    public int poll(Consumer<? super E> consumer) {
        return poll(consumer, Integer.MAX_VALUE);
    }

    /**
     * Hands every committed event from the position on to {@code consumer}, at most {@code limit}.
     * If {@code consumer} throws, the position stays at that event.
     *
     * @return how many events were handed over
     * @throws EventsOverwrittenException if the event at the position is no longer retained
     */
    public int poll(Consumer<? super E> consumer, int limit) {
        log.passFileCheckOfReader();
        Objects.requireNonNull(consumer, "consumer");
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be 1 or more, got " + limit);
        }
        int delivered = 0;
        while (delivered < limit) {
            long s = position;
            int slot = eventSlotOffset(s, capacity, stride);
            long before = OwnerRecord.ownerWord(body, slot);
            long key = OwnerRecord.key(before);
            if (key != lapKey(s, capacity)) {
                if (key == previousLapKey(s, capacity) || s >= log.emittedCount()) {
                    return delivered; // not reserved yet
                }
                throw overwritten(s);
            }
            long content = body.getLongAcquire(slot + CONTENT_OFFSET);
            if (content == gap(s)) {
                position = s + 1;
                continue;
            }
            if (content != committed(s)) {
                if (OwnerRecord.pid(before) == OwnerRecord.NO_OWNER) {
                    position = s + 1; // freed by a drainer: a gap not marked yet
                    continue;
                }
                return delivered; // reserved, not committed yet
            }
            E event;
            try {
                event = codec.read(body, slot + EVENT_OFFSET);
            } catch (CxcFormatException torn) {
                if (OwnerRecord.ownerWord(body, slot) != before) {
                    throw overwritten(s);
                }
                throw torn;
            }
            VarHandle.acquireFence();
            if (OwnerRecord.ownerWord(body, slot) != before) {
                throw overwritten(s); // a later lap claimed the slot while we read it
            }
            consumer.accept(event);
            position = s + 1;
            delivered++;
        }
        return delivered;
    }

    /**
     * Waits until {@link #poll} has something to hand over (or to report), at most {@code timeout};
     * returns at once if it has. Spins and yields as {@link #waitingWith} says, then sleeps until a
     * writer rings.
     *
     * @return whether {@link #poll} has something now; false on timeout or when the log closed
     */
    public boolean await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (hasEvent()) {
            return true;
        }
        DoorbellWaiter w = waiter;
        if (w == null) {
            w = log.waiter(phases);
            waiter = w;
        }
        return w.await(hasEvent, timeout);
    }

    /**
     * {@link #await} for at most {@code timeout}, then {@link #poll(Consumer)}.
     *
     * @return how many events were handed over; 0 on timeout
     */
    public int poll(Consumer<? super E> consumer, Duration timeout) {
        Objects.requireNonNull(consumer, "consumer");
        return await(timeout) ? poll(consumer) : 0;
    }

    /**
     * How {@link #await} spins and yields before it sleeps ({@link WaitPhases#DEFAULT} unless set).
     */
    public EventLogReader<E> waitingWith(WaitPhases newPhases) {
        this.phases = Objects.requireNonNull(newPhases, "phases");
        DoorbellWaiter w = waiter;
        if (w != null) {
            waiter = null;
            log.forget(w);
        }
        return this;
    }

    /** Gives the reader's doorbell slot back; it may wait again later (with a new one). */
    @Override
    public void close() {
        DoorbellWaiter w = waiter;
        if (w != null) {
            waiter = null;
            log.forget(w);
        }
    }

    /**
     * Whether the position's slot holds what {@link #poll} acts on: its event committed, a gap, a
     * slot freed without a mark, or a later lap (overwritten). False while the sequence is not
     * reserved yet or reserved but not committed.
     */
    private boolean hasEvent() {
        long s = position;
        int slot = eventSlotOffset(s, capacity, stride);
        long content = body.getLongAcquire(slot + CONTENT_OFFSET);
        if (content == committed(s) || content == gap(s)) {
            return true;
        }
        long word = OwnerRecord.ownerWord(body, slot);
        long key = OwnerRecord.key(word);
        if (key == lapKey(s, capacity)) {
            return OwnerRecord.pid(word) == OwnerRecord.NO_OWNER; // freed: poll steps over it
        }
        // a later lap (poll reports it), unless the position is past what was ever emitted
        return key != previousLapKey(s, capacity) && s < log.emittedCount();
    }

    private EventsOverwrittenException overwritten(long sequence) {
        return new EventsOverwrittenException(
                log.file().toString(), sequence, log.oldestRetained() + 1);
    }
}
