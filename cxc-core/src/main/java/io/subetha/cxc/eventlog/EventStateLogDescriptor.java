package io.subetha.cxc.eventlog;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.wake.DoorbellDescriptor;

/**
 * Body layout of an {@link EventStateLog} file. Offsets are relative to the body, which follows the
 * 64-byte common header (whose capacity is the log's capacity and whose slot size is {@link
 * #SLOT_STRIDE_OFFSET the stride}). Little-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "EVSTLOG1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Codec fingerprint (u64)                  8   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Event size (u32)                        16   |
 * +---------------------------------------------------------------+
 * |                  State size (u32)                        20   |
 * +---------------------------------------------------------------+
 * |                  Capacity (u32, the header's, again)     24   |
 * +---------------------------------------------------------------+
 * |                  Slot stride (u32, the header's slot)    28   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                     32..63    |
 * +---------------------------------------------------------------+
 * |                  Reserve cursor (u64)                    64   |  own cache line
 * +---------------------------------------------------------------+
 * |                  State generation (u64)                 128   |  own cache line
 * +---------------------------------------------------------------+
 * |                  Drain turn: an OwnerRecord (24 bytes)  192   |  own cache line
 * +---------------------------------------------------------------+
 * |                  Gaps marked (u64)                      256   |
 * +---------------------------------------------------------------+
 * |                  Reserved, zero                   264..319    |
 * +---------------------------------------------------------------+
 * |                  State copy 0 (one stride)              320   |
 * +---------------------------------------------------------------+
 * |                  State copy 1 (one stride)                    |
 * +---------------------------------------------------------------+
 * |                  Event slot 0 .. capacity-1 (one stride each) |
 * +---------------------------------------------------------------+
 * |                  Doorbell region (DoorbellDescriptor)         |  readers asleep;
 * |                  at STATE_COPIES_OFFSET + (capacity+2)*stride |  rung by every commit
 * +---------------------------------------------------------------+
 *
 * State copy (at offset 0 of its stride)          Event slot (at offset 0 of its stride)
 * +-------------------------------+               +-------------------------------+
 * | Read position (u64)        0  |               | Owner record (24 bytes)    0  |
 * +-------------------------------+               |   owner word: PID | lap key    |
 * | State, state-size bytes    8  |               |   identity, heartbeat         |
 * +-------------------------------+               +-------------------------------+
 *                                                 | Content word (u64)        24  |
 *                                                 +-------------------------------+
 *                                                 | Event, event-size bytes   32  |
 *                                                 +-------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Reserve cursor</b>: the next sequence to reserve, a hint that lags by at most the
 *       reservations whose emitter has not advanced it yet (anyone who sees the cursor's slot
 *       already reserved advances it for them).
 *   <li><b>State generation</b>: the published state is copy {@code generation & 1}; the drainer
 *       writes the other copy (position and state) and publishes both with one CAS of the
 *       generation. It only rises, so a reader that saw the same generation before and after its
 *       copy read a state no drainer was writing.
 *   <li><b>Event slot owner word</b>: sequence {@code s} lives in slot {@code s % capacity}; its
 *       reservation is an {@link OwnerRecord} claim whose key is {@link #lapKey s's lap}
 *       (1..2^32-1, 0 for a slot never used). A slot is free for {@code s} when its key is {@link
 *       #previousLapKey the previous lap's} and {@code s} is less than a capacity ahead of the read
 *       position.
 *   <li><b>Content word</b>: {@code s + 1} once the event of sequence {@code s} is whole in the
 *       slot (a release store after the bytes), {@code (s + 1) | }{@link #GAP_BIT} once the
 *       sequence is known to hold no event (its emitter died, or its event was refused by the
 *       codec).
 *   <li><b>Doorbell</b>: where a {@link EventLogReader} that waits announces itself; every commit
 *       and every gap marked rings it ({@link io.subetha.cxc.wake.Doorbell}).
 *   <li><b>Stride</b>: a multiple of 64, large enough for an event slot and a state copy, so that
 *       slots written by different producers never share a cache line.
 * </ul>
 */
public final class EventStateLogDescriptor {

    public static final int LAYOUT_VERSION = 2;

    /** The body magic, in ASCII. */
    public static final String MAGIC = "EVSTLOG1";

    public static final int EVENT_SIZE_OFFSET = PrimitiveType.CODEC_SIZES_OFFSET;
    public static final int STATE_SIZE_OFFSET = PrimitiveType.CODEC_SIZES_OFFSET + 4;
    public static final int CAPACITY_OFFSET = 24;
    public static final int SLOT_STRIDE_OFFSET = 28;
    public static final int CURSOR_OFFSET = 64;
    public static final int GENERATION_OFFSET = 128;
    public static final int DRAIN_TURN_OFFSET = 192;
    public static final int GAPS_OFFSET = 256;
    public static final int STATE_COPIES_OFFSET = 320;

    /** Within a state copy. */
    public static final int POSITION_OFFSET = 0;

    public static final int STATE_OFFSET = 8;

    /** Within an event slot. */
    public static final int OWNER_OFFSET = 0;

    public static final int CONTENT_OFFSET = OwnerRecord.LENGTH;
    public static final int EVENT_OFFSET = 32;

    /** Set in a content word whose sequence holds no event. */
    public static final long GAP_BIT = 1L << 63;

    /** The most events a log can hold pending. */
    public static final int MAX_CAPACITY = 1 << 20;

    /** The largest event or state a codec may describe. */
    public static final int MAX_PAYLOAD = 1 << 16;

    private static final long MAX_LAP_KEY = 0xFFFF_FFFFL;

    public static final BodyLayout BODY_LAYOUT =
            (capacity, stride) -> {
                if (capacity < 1 || capacity > MAX_CAPACITY) {
                    throw new IllegalArgumentException(
                            "an event-state-log holds 1.."
                                    + MAX_CAPACITY
                                    + " events, not "
                                    + capacity);
                }
                if (stride < 64
                        || stride % 64 != 0
                        || stride > strideFor(MAX_PAYLOAD, MAX_PAYLOAD)) {
                    throw new IllegalArgumentException(
                            "an event-state-log's slots are a multiple of 64 bytes, 64.."
                                    + strideFor(MAX_PAYLOAD, MAX_PAYLOAD)
                                    + ", not "
                                    + stride);
                }
                return bodyLength(capacity, stride);
            };

    private EventStateLogDescriptor() {}

    /** The stride that holds an event of {@code eventSize} and a state of {@code stateSize}. */
    public static int strideFor(int eventSize, int stateSize) {
        int needed = Math.max(EVENT_OFFSET + eventSize, STATE_OFFSET + stateSize);
        return (needed + 63) & ~63;
    }

    public static long bodyLength(int capacity, int stride) {
        return doorbellOffset(capacity, stride) + DoorbellDescriptor.LENGTH;
    }

    /** The doorbell region, after the last event slot (64-byte aligned: strides are). */
    public static long doorbellOffset(int capacity, int stride) {
        return STATE_COPIES_OFFSET + (capacity + 2L) * stride;
    }

    /** State copy 0 or 1. */
    public static int stateCopyOffset(long generation, int stride) {
        return STATE_COPIES_OFFSET + (int) (generation & 1) * stride;
    }

    public static int eventSlotOffset(long sequence, int capacity, int stride) {
        return STATE_COPIES_OFFSET + (2 + (int) (sequence % capacity)) * stride;
    }

    /** The owner key of sequence {@code s}'s reservation: its lap, 1..2^32-1, cycling. */
    public static long lapKey(long sequence, int capacity) {
        return (sequence / capacity) % MAX_LAP_KEY + 1;
    }

    /** The key a slot holds when it is free for sequence {@code s}: 0 on the first lap. */
    public static long previousLapKey(long sequence, int capacity) {
        return sequence < capacity ? 0 : lapKey(sequence - capacity, capacity);
    }

    /** The content word of a committed event. */
    public static long committed(long sequence) {
        return sequence + 1;
    }

    /** The content word of a sequence that holds no event. */
    public static long gap(long sequence) {
        return (sequence + 1) | GAP_BIT;
    }

    /** {@link #MAGIC} read as a little-endian u64. */
    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);
}
