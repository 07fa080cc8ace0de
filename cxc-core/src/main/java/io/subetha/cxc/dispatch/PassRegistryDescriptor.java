package io.subetha.cxc.dispatch;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.wake.DoorbellDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * Body layout of a {@link PassRegistry} file: a 64-byte registry header, the callers' doorbell
 * region ({@link DoorbellDescriptor} of {@link #CALLER_WAITERS} waiter slots), then {@code
 * maxPasses} pass entries. Each entry is a 128-byte entry header followed by that pass's own
 * mailbox of {@code mailboxSlots} slots, each a 64-byte slot header and {@code maxPayloadBytes} of
 * payload rounded up to 64. The file header's capacity is {@code maxPasses} and its slot size is
 * one entry's stride ({@link #entryStride}). Offsets relative to the body; little-endian.
 *
 * <pre>
 * Registry header
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Magic "PASSREG1" (ASCII)                 0   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Max passes (u32)                         8   |
 * +---------------------------------------------------------------+
 * |                  Mailbox slots per pass (u32)            12   |
 * +---------------------------------------------------------------+
 * |                  Max payload bytes (u32)                 16   |
 * +---------------------------------------------------------------+
 * |                  Reserved (4 bytes)                      20   |
 * +---------------------------------------------------------------+
 * |                  Binder record (24 bytes, OwnerRecord):  24   |
 * ~                  who binds ids to entries right now           ~
 * +---------------------------------------------------------------+
 * |                  Reserved (16 bytes)                     48   |
 * +---------------------------------------------------------------+
 * |                  Callers' doorbell (DoorbellDescriptor,  64   |
 * ~                  64 waiter slots: 2112 bytes)                 ~
 * +---------------------------------------------------------------+
 *
 * Pass entry p, at 2176 + p * entryStride
 * +---------------------------------------------------------------+ -.
 * |                  Owner record (24 bytes, OwnerRecord):    0   |  | line 0: read by every
 * ~                  owner word, identity, heartbeat              ~  | caller, written only on
 * +---------------------------------------------------------------+  | register/unregister
 * |                  Pass id (u64, 0 = entry unused)         24   |  |
 * |                                                               |  |
 * +---------------------------------------------------------------+  |
 * |                  Bound key (u64: the owner key the pass  32   |  |
 * |                  id belongs to; 0 = never bound)              |  |
 * +---------------------------------------------------------------+  |
 * |                  Wake address (u64: the owner's wake     40   |  |
 * |                  socket, see WakeServer; 0 = none)            |  |
 * +---------------------------------------------------------------+  |
 * |                  Handler key (u64: which handler the     48   |  |
 * |                  owner serves; 0 = not said)                  |  |
 * +---------------------------------------------------------------+  |
 * |                  Reserved (8 bytes)                      56   |  |
 * +---------------------------------------------------------------+ -'
 * |                  Calls served (u64)                      64   |    line 1: the owner's
 * |                                                               |    dispatchers count here
 * +---------------------------------------------------------------+
 * |                  Dispatcher parked (u64: the owner word  72   |
 * |                  whose dispatcher is about to block; 0 none)  |
 * +---------------------------------------------------------------+
 * |                  Reserved (48 bytes)                     80   |
 * +---------------------------------------------------------------+
 * |                  Mailbox slot 0 .. mailboxSlots-1       128   |
 * ~                                                               ~
 * +---------------------------------------------------------------+
 *
 * Mailbox slot s of an entry, at 128 + s * slotStride within it
 * +---------------------------------------------------------------+ -.
 * |                  Caller PID (u32)                         0   |  | state word:
 * +---------------+-----------------------------------------------+  | one aligned u64,
 * |  State (u8)   |  Generation (u24)                         4   |  | CAS'd as one
 * +---------------+-----------------------------------------------+ -'
 * |                  Addressed owner word (u64)               8   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Payload length (u32)                    16   |
 * +---------------------------------------------------------------+
 * |                  Reserved (4 bytes)                      20   |
 * +---------------+-----------------------------------------------+
 * |  Caller identity (u64): generation (u24) << 32 | the     24   |
 * |  caller's start time, low 32 bits                             |
 * +---------------------------------------------------------------+
 * |                  Addressed owner's start time (u64)      32   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                  Caller's waiter (u64: its slot in the   40   |
 * |                  callers' doorbell + 1; 0 = none named)       |
 * +---------------------------------------------------------------+
 * |                  Reserved (16 bytes)                     48   |
 * +---------------------------------------------------------------+
 * |                  Payload (maxPayloadBytes, padded to 64) 64   |
 * ~                                                               ~
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>Binder record</b>: ids are bound to entries only by the process holding it (an {@link
 *       OwnerRecord} taken by CAS, a dead holder's taken over), so an id is bound to at most one
 *       entry at a time.
 *   <li><b>Pass id and bound key</b>: the id an entry serves, valid only while the bound key equals
 *       the key of the entry's owner word. A binder claims the owner word first (a new key), then
 *       writes the id, then publishes the bound key: a reader that finds the keys unequal sees an
 *       entry being bound (no id), never half of one. Unregistering frees the owner word and keeps
 *       its key, so the entry still names its id ("unregistered") until a binder reuses it.
 *   <li><b>Owner record</b>: the process that serves the pass (PID, generation, start time).
 *   <li><b>Wake address</b>: names the owner's wake socket ({@link WakeServer}), written by the
 *       binder before it publishes the bound key; a hint only (a wrong one costs a poll interval).
 *   <li><b>Handler key</b>: which handler the owner serves, as its registrant named it (the
 *       starter: the handler bean's class and name), written by the binder before it publishes the
 *       bound key and kept on unregister. A process registering the same id with the same non-zero
 *       key stands by while the owner lives and takes the id over once it is gone; another key is a
 *       {@link PassOwnedException}. Files made before it have 0 here: "not said".
 *   <li><b>Dispatcher parked</b>: set by CAS by the owner's dispatcher before it blocks on its wake
 *       socket; a caller that publishes a request and then finds it set clears it by CAS and pokes
 *       the socket.
 *   <li><b>State word</b>: which party holds the slot (see {@link PassMailbox}), the caller that
 *       claimed it (so a dead caller's slot is reclaimed) and a generation that rises with every
 *       claim (so nothing meant for one call ever lands in a later one).
 *   <li><b>Addressed owner word</b>: the owner word the caller sent its request to. A dispatcher
 *       serves only requests addressed to its own word, so a process that took a dead owner's pass
 *       over never runs a request whose caller has been told the owner died.
 *   <li><b>Caller identity</b>: the claiming caller's start time, valid only for the generation it
 *       names, so a slot stamped by a PID now reused by another process is judged dead.
 *   <li><b>Addressed owner's start time</b>: the owner's start time as the caller read it, so a
 *       {@code RUNNING} slot of an owner whose PID was reused is judged dead.
 *   <li><b>Callers' doorbell</b> and <b>caller's waiter</b>: a caller about to block names its
 *       waiter slot in the callers' doorbell in its mailbox slot (with the request when it blocks
 *       at once), then announces itself there and looks at its slot once more; the dispatcher that
 *       publishes the answer rings that waiter slot alone if it is announced ({@link
 *       io.subetha.cxc.wake.Doorbell#ringIfAnnounced(int)}). A waiter slot named by an earlier call
 *       of the same mailbox slot is rung at most once for nothing. Callers blocked at once past the
 *       doorbell's slots poll.
 *   <li><b>Payload length and payload</b>: the request, overwritten by the response (or the
 *       handler's failure text). Written only by the party the state word names.
 * </ul>
 */
public final class PassRegistryDescriptor {

    public static final int MAGIC_OFFSET = 0;
    public static final int MAX_PASSES_OFFSET = 8;
    public static final int MAILBOX_SLOTS_OFFSET = 12;
    public static final int MAX_PAYLOAD_OFFSET = 16;
    public static final int BINDER_OFFSET = 24;
    public static final int REGISTRY_HEADER_LENGTH = 64;

    /** Callers of any process that sleep on the callers' doorbell at once; more poll. */
    public static final int CALLER_WAITERS = DoorbellDescriptor.MAX_SLOTS;

    /** The callers' doorbell region, after the registry header. */
    public static final int DOORBELL_OFFSET = REGISTRY_HEADER_LENGTH;

    /** Where pass entry 0 starts. */
    public static final int ENTRIES_OFFSET =
            DOORBELL_OFFSET + DoorbellDescriptor.length(CALLER_WAITERS);

    public static final int OWNER_RECORD_OFFSET = 0;
    public static final int PASS_ID_OFFSET = OwnerRecord.LENGTH;
    public static final int BOUND_KEY_OFFSET = 32;
    public static final int WAKE_ADDRESS_OFFSET = 40;
    public static final int HANDLER_KEY_OFFSET = 48;
    public static final int CALLS_OFFSET = 64;
    public static final int DISPATCHER_PARKED_OFFSET = 72;
    public static final int ENTRY_HEADER_LENGTH = 128;

    public static final int STATE_WORD_OFFSET = 0;
    public static final int ADDRESSED_OWNER_OFFSET = 8;
    public static final int LENGTH_OFFSET = 16;
    public static final int CALLER_IDENTITY_OFFSET = 24;
    public static final int OWNER_START_TIME_OFFSET = 32;
    public static final int CALLER_WAITER_OFFSET = 40;
    public static final int SLOT_HEADER_LENGTH = 64;

    /** The most passes one file holds. */
    public static final int MAX_PASSES = 4096;

    /** The most mailbox slots one pass has. */
    public static final int MAX_MAILBOX_SLOTS = 1024;

    /** The largest argument or result, in bytes. */
    public static final int MAX_PAYLOAD_BYTES = 1 << 20;

    /** A pass id that names no pass: an unused entry. */
    public static final long NO_PASS = 0;

    public static final int STATE_FREE = 0;

    /** A caller holds the slot and writes its request. */
    public static final int STATE_CLAIMED = 1;

    /** The request is published; the owner's dispatcher may take it. */
    public static final int STATE_REQUEST = 2;

    /** A dispatcher took the request and runs the handler. */
    public static final int STATE_RUNNING = 3;

    /** The result is published; the caller reads it, then frees the slot. */
    public static final int STATE_RESPONSE = 4;

    /** The handler threw: the payload is its class and message. */
    public static final int STATE_FAILED = 5;

    /** The caller gave up while the handler ran: the dispatcher frees the slot when done. */
    public static final int STATE_ABANDONED = 6;

    /** 3: the callers' doorbell and each slot's caller's waiter (2 had a wake token there). */
    public static final int LAYOUT_VERSION = 3;

    public static final String MAGIC = "PASSREG1";

    public static final long BODY_MAGIC = HeaderDescriptor.asciiMagic(MAGIC);

    private static final long GENERATION_MASK = 0xFF_FFFFL;

    /** Checks the header's numbers: capacity 1..{@link #MAX_PASSES}, a plausible entry stride. */
    public static final BodyLayout BODY_LAYOUT =
            (capacity, slotSize) -> {
                if (capacity < 1 || capacity > MAX_PASSES) {
                    throw new IllegalArgumentException(
                            "capacity (max passes) must be 1.." + MAX_PASSES + ", got " + capacity);
                }
                if (slotSize < ENTRY_HEADER_LENGTH + SLOT_HEADER_LENGTH + HeaderDescriptor.ALIGNMENT
                        || slotSize % HeaderDescriptor.ALIGNMENT != 0) {
                    throw new IllegalArgumentException(
                            "slot size (one pass entry with its mailbox) must be a multiple of "
                                    + HeaderDescriptor.ALIGNMENT
                                    + " of at least "
                                    + (ENTRY_HEADER_LENGTH
                                            + SLOT_HEADER_LENGTH
                                            + HeaderDescriptor.ALIGNMENT)
                                    + ", got "
                                    + slotSize);
                }
                return ENTRIES_OFFSET + (long) capacity * slotSize;
            };

    private PassRegistryDescriptor() {}

    /**
     * What is wrong with the settings a body declares (each in range, and the body's length
     * theirs), or null if nothing.
     */
    static @Nullable String settingsProblem(AtomicBuffer body) {
        long passes = Integer.toUnsignedLong(body.getIntAcquire(MAX_PASSES_OFFSET));
        long slots = Integer.toUnsignedLong(body.getIntAcquire(MAILBOX_SLOTS_OFFSET));
        long payload = Integer.toUnsignedLong(body.getIntAcquire(MAX_PAYLOAD_OFFSET));
        if (passes < 1 || passes > MAX_PASSES) {
            return "it declares " + passes + " max passes, outside 1.." + MAX_PASSES;
        }
        if (slots < 1 || slots > MAX_MAILBOX_SLOTS) {
            return "it declares " + slots + " mailbox slots, outside 1.." + MAX_MAILBOX_SLOTS;
        }
        if (payload < 1 || payload > MAX_PAYLOAD_BYTES) {
            return "it declares a payload of "
                    + payload
                    + " bytes, outside 1.."
                    + MAX_PAYLOAD_BYTES;
        }
        long expected = bodyLength(passes, slots, payload);
        if (expected != body.capacity()) {
            return "its settings ("
                    + passes
                    + " passes, "
                    + slots
                    + " slots, "
                    + payload
                    + "-byte payloads) need a body of "
                    + expected
                    + " bytes, the file has "
                    + body.capacity();
        }
        return null;
    }

    /**
     * What is wrong with a sound body's settings against its header (the header's capacity must be
     * {@code maxPasses}, its slot size one entry's stride), or null if nothing.
     */
    static @Nullable String shapeProblem(FileHeader header, AtomicBuffer body) {
        long passes = body.getIntAcquire(MAX_PASSES_OFFSET);
        long stride =
                entryStride(
                        body.getIntAcquire(MAILBOX_SLOTS_OFFSET),
                        body.getIntAcquire(MAX_PAYLOAD_OFFSET));
        if (header.capacity() == passes && header.slotSize() == stride) {
            return null;
        }
        return "its body declares "
                + passes
                + " passes of "
                + stride
                + " bytes, its header "
                + header.capacity()
                + " of "
                + header.slotSize();
    }

    /** Bytes of one mailbox slot: its header and the payload rounded up to 64. */
    public static long slotStride(long maxPayloadBytes) {
        long align = HeaderDescriptor.ALIGNMENT;
        return SLOT_HEADER_LENGTH + (maxPayloadBytes + align - 1) / align * align;
    }

    /** Bytes of one pass entry: its header and its mailbox. */
    public static long entryStride(long mailboxSlots, long maxPayloadBytes) {
        return ENTRY_HEADER_LENGTH + mailboxSlots * slotStride(maxPayloadBytes);
    }

    /** The body length of a file with these settings. */
    public static long bodyLength(long maxPasses, long mailboxSlots, long maxPayloadBytes) {
        return ENTRIES_OFFSET + maxPasses * entryStride(mailboxSlots, maxPayloadBytes);
    }

    public static long packState(int state, long generation, long callerPid) {
        return ((generation & GENERATION_MASK) << 40)
                | ((long) (state & 0xFF) << 32)
                | (callerPid & 0xFFFF_FFFFL);
    }

    public static int state(long stateWord) {
        return (int) (stateWord >>> 32) & 0xFF;
    }

    /** The generation of a state word (u24): the claim it belongs to. */
    public static long generation(long stateWord) {
        return stateWord >>> 40;
    }

    public static long callerPid(long stateWord) {
        return stateWord & 0xFFFF_FFFFL;
    }

    /** A caller identity word: the claim's generation and the caller's start time (low 32). */
    public static long callerIdentity(long generation, long startTime) {
        return ((generation & GENERATION_MASK) << 32) | (startTime & 0xFFFF_FFFFL);
    }

    /**
     * The start time a caller identity word gives the claim of {@code stateWord}, or 0 (unknown)
     * when it belongs to another claim (never published for this one).
     */
    public static long callerStartTime(long identity, long stateWord) {
        return (identity >>> 32) == generation(stateWord) ? identity & 0xFFFF_FFFFL : 0;
    }

    /** The same claim in another state. */
    public static long withState(long stateWord, int state) {
        return packState(state, generation(stateWord), callerPid(stateWord));
    }

    /** The generation the next claim of a slot in {@code stateWord} installs (mod 2^24). */
    public static long nextGeneration(long stateWord) {
        return (generation(stateWord) + 1) & GENERATION_MASK;
    }
}
