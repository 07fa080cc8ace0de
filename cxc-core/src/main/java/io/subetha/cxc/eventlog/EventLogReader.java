package io.subetha.cxc.eventlog;

import static io.subetha.cxc.eventlog.EventStateLogDescriptor.*;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.function.Consumer;

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
 * <p>Not thread-safe: one reader per thread.
 */
public final class EventLogReader<E> {

    private final EventStateLog<E, ?> log;
    private final AtomicBuffer body;
    private final FixedCodec<E> codec;
    private final int capacity;
    private final int stride;
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

    private EventsOverwrittenException overwritten(long sequence) {
        return new EventsOverwrittenException(
                log.file().toString(), sequence, log.oldestRetained() + 1);
    }
}
