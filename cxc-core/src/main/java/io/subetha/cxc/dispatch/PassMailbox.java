package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The call protocol over the mailbox slots of a registry file ({@link PassRegistryDescriptor}): a
 * caller claims a slot and publishes its request, a dispatcher takes it and publishes the answer,
 * the caller takes the answer and frees the slot; dead parties' slots are reclaimed. No threads and
 * no waiting here: the caller's side ({@link PassCaller}) and the dispatchers ({@link
 * PassDispatchers}) drive it.
 *
 * <p><b>A call, step by step</b> (the state word of a mailbox slot: state, generation, caller PID,
 * one CAS'd u64):
 *
 * <ol>
 *   <li>The caller claims a free slot of the pass's mailbox: CAS {@code FREE(g)} to {@code
 *       CLAIMED(g+1, caller)}. Only then does it stamp its start time with generation {@code g+1}
 *       (the caller identity), write the owner word it addresses and that owner's start time, the
 *       argument and its length, and publish {@code REQUEST} by CAS. Killed in between: the slot
 *       stays {@code CLAIMED} by a dead caller, freed by the next caller that finds the mailbox
 *       full (dead callers' slots are reclaimed by CAS from the judged word; dead is by PID and the
 *       start time stamped for this generation, so a recycled PID does not keep a slot; a caller
 *       killed before stamping is judged by PID alone, as an owner record before its identity).
 *   <li>A dispatcher of the owner takes it: CAS {@code REQUEST} to {@code RUNNING}, only if the
 *       request is addressed to its own current owner word; it reads the argument after winning,
 *       runs the handler, writes the result (or the handler's exception) and publishes {@code
 *       RESPONSE} (or {@code FAILED}) by CAS from {@code RUNNING}. The owner killed in between
 *       leaves {@code RUNNING}: the caller sees the owner dead at its next check and frees the slot
 *       by CAS, failing with {@link PassOwnerDiedException} naming the PID.
 *   <li>The caller reads the result and frees the slot: CAS to {@code FREE(g+1)}, whose next claim
 *       installs {@code g+2}. Killed before: a dead caller's {@code RESPONSE} is reclaimed like its
 *       {@code CLAIMED}.
 * </ol>
 *
 * A caller that gives up (timeout, or the owner gone) withdraws by CAS: {@code REQUEST} to {@code
 * FREE} (the handler never runs), or {@code RUNNING} to {@code ABANDONED}, which the dispatcher,
 * once its handler returns, frees instead of answering. Every transition is a CAS from the exact
 * word read, generation included, so a response is only ever read by the call that claimed the
 * slot: a slot is claimed again only after it is free, and a timed-out call's slot is freed only
 * after its handler returned. Nothing shared is written for a claim before its CAS is won.
 */
final class PassMailbox {

    private final AtomicBuffer body;
    private final PassLayout layout;
    private final Path file;
    private final long pid;
    private final long startTime;

    PassMailbox(AtomicBuffer body, PassLayout layout, Path file, long pid, long startTime) {
        this.body = body;
        this.layout = layout;
        this.file = file;
        this.pid = pid;
        this.startTime = startTime;
    }

    long stateWord(int slot) {
        return body.getLongVolatile(slot + STATE_WORD_OFFSET);
    }

    /** Whether {@code word} belongs to the claim that published {@code claimed}. */
    static boolean sameClaim(long word, long claimed) {
        return generation(word) == generation(claimed) && callerPid(word) == callerPid(claimed);
    }

    // ------------------------------------------------------------------------------ caller side

    /**
     * Claims a free slot of the call's mailbox and publishes its request, with {@code waiter} as
     * the slot's caller's waiter (its doorbell slot + 1; 0: none yet); records the slot and the
     * published word in {@code call}. False if no slot is free.
     */
    boolean tryPublish(PassCall call, long waiter) {
        int slots = layout.mailboxSlots();
        int first = ThreadLocalRandom.current().nextInt(slots);
        for (int i = 0; i < slots; i++) {
            int slot = layout.slotOffset(call.entryOffset, (first + i) % slots);
            long word = body.getLongVolatile(slot + STATE_WORD_OFFSET);
            if (state(word) != STATE_FREE) {
                continue;
            }
            long claimed = packState(STATE_CLAIMED, nextGeneration(word), pid);
            Interleaving.at(Point.PASS_SLOT_JUDGED);
            if (!body.compareAndSetLong(slot + STATE_WORD_OFFSET, word, claimed)) {
                continue;
            }
            // The slot is ours: nobody else writes it until we publish. Our start time first, so
            // a reclaimer can tell us from a later process that reuses our PID.
            body.setLongRelease(
                    slot + CALLER_IDENTITY_OFFSET, callerIdentity(generation(claimed), startTime));
            body.setLongPlain(slot + OWNER_START_TIME_OFFSET, call.ownerStartTime);
            body.setLongPlain(slot + CALLER_WAITER_OFFSET, waiter);
            body.setLongPlain(slot + ADDRESSED_OWNER_OFFSET, call.addressed);
            body.putBytes(slot + SLOT_HEADER_LENGTH, call.args);
            body.setIntPlain(slot + LENGTH_OFFSET, call.args.length);
            Interleaving.at(Point.PASS_REQUEST_WRITTEN);
            long request = withState(claimed, STATE_REQUEST);
            if (body.compareAndSetLong(slot + STATE_WORD_OFFSET, claimed, request)) {
                call.slot = slot;
                call.claimed = request;
                return true;
            }
            // Reclaimed as a dead caller's: impossible for a live one, but never write on.
        }
        return false;
    }

    /**
     * Names the caller's waiter (its doorbell slot + 1) in the slot of its pending call, before it
     * announces itself: the caller's own field, written only while its claim holds the slot.
     */
    void nameWaiter(PassCall call, long waiter) {
        body.setLongRelease(call.slot + CALLER_WAITER_OFFSET, waiter);
    }

    /** The waiter a slot's caller named (its doorbell slot + 1), 0 if none. */
    long callerWaiter(int slot) {
        return body.getLongAcquire(slot + CALLER_WAITER_OFFSET);
    }

    /** Withdraws the call: returns a result that arrived meanwhile, else throws {@code why}. */
    byte[] withdraw(PassCall call, CxcException why) {
        int offset = call.slot + STATE_WORD_OFFSET;
        boolean ownerDead =
                why instanceof PassOwnerDiedException
                        && ProcessProbe.status(call.ownerPid(), call.ownerStartTime)
                                == ProcessStatus.DEAD;
        while (true) {
            long word = body.getLongVolatile(offset);
            if (!sameClaim(word, call.claimed)) {
                throw why;
            }
            switch (state(word)) {
                case STATE_RESPONSE, STATE_FAILED -> {
                    return take(call, word);
                }
                case STATE_REQUEST -> {
                    if (body.compareAndSetLong(offset, word, withState(word, STATE_FREE))) {
                        throw why;
                    }
                }
                case STATE_RUNNING -> {
                    // A dead dispatcher never answers: free the slot. A live one frees it itself.
                    int next = ownerDead ? STATE_FREE : STATE_ABANDONED;
                    if (body.compareAndSetLong(offset, word, withState(word, next))) {
                        throw why;
                    }
                }
                default -> throw why;
            }
        }
    }

    /** Reads the published outcome, frees the slot, and returns the result or throws. */
    byte[] take(PassCall call, long word) {
        int slot = call.slot;
        int maxPayload = layout.maxPayload();
        int length = body.getIntAcquire(slot + LENGTH_OFFSET);
        byte[] payload = null;
        if (length >= 0 && length <= maxPayload) {
            payload = new byte[length];
            body.getBytes(slot + SLOT_HEADER_LENGTH, payload);
        }
        // Read before freeing: the next claim may overwrite the payload.
        body.compareAndSetLong(slot + STATE_WORD_OFFSET, word, withState(word, STATE_FREE));
        if (payload == null) {
            throw new CxcException(
                    "pass "
                            + call.passId
                            + " of "
                            + file
                            + " answered with a length of "
                            + Integer.toUnsignedString(length)
                            + " bytes, outside 0.."
                            + maxPayload
                            + "; the file is corrupt");
        }
        if (state(word) == STATE_FAILED) {
            String text = new String(payload, StandardCharsets.UTF_8);
            int split = text.indexOf('\n');
            throw new PassFailedException(
                    call.passId,
                    call.ownerPid(),
                    split < 0 ? text : text.substring(0, split),
                    split < 0 ? "" : text.substring(split + 1));
        }
        return payload;
    }

    /**
     * Frees the slots of dead parties: a dead caller's claimed, requested or answered slot, and a
     * dead owner's running or abandoned one. Each by CAS from the judged word. Dead is by PID and
     * start time ({@link ProcessProbe}): a caller's start time as it stamped it for this very claim
     * (a claim killed before stamping is judged by PID only), the owner's as the caller read it. So
     * a slot whose PID now names another process is reclaimed. Probes {@code /proc} per busy slot:
     * run only when the mailbox is full.
     */
    void reclaimDeadSlots(int entryOffset) {
        for (int i = 0; i < layout.mailboxSlots(); i++) {
            int slot = layout.slotOffset(entryOffset, i);
            long word = body.getLongVolatile(slot + STATE_WORD_OFFSET);
            int state = state(word);
            long judged;
            long judgedStartTime;
            if (state == STATE_CLAIMED
                    || state == STATE_REQUEST
                    || state == STATE_RESPONSE
                    || state == STATE_FAILED) {
                judged = callerPid(word);
                judgedStartTime =
                        callerStartTime(body.getLongAcquire(slot + CALLER_IDENTITY_OFFSET), word);
            } else if (state == STATE_RUNNING || state == STATE_ABANDONED) {
                // Written before the request was published, which these states follow.
                judged = OwnerRecord.pid(body.getLongAcquire(slot + ADDRESSED_OWNER_OFFSET));
                judgedStartTime = body.getLongAcquire(slot + OWNER_START_TIME_OFFSET);
            } else {
                continue;
            }
            if (judged == 0 || ProcessProbe.status(judged, judgedStartTime) == ProcessStatus.DEAD) {
                body.compareAndSetLong(slot + STATE_WORD_OFFSET, word, withState(word, STATE_FREE));
            }
        }
    }

    // -------------------------------------------------------------------------- dispatcher side

    /**
     * Takes the request in {@code slot} if it is addressed to {@code ownerWord}: CAS {@code
     * REQUEST} to {@code RUNNING}.
     *
     * @return the {@code RUNNING} word installed, or 0 if there was none to take
     */
    long tryTake(int slot, long ownerWord) {
        long word = body.getLongVolatile(slot + STATE_WORD_OFFSET);
        if (state(word) == STATE_REQUEST
                && body.getLongAcquire(slot + ADDRESSED_OWNER_OFFSET) == ownerWord) {
            long running = withState(word, STATE_RUNNING);
            if (body.compareAndSetLong(slot + STATE_WORD_OFFSET, word, running)) {
                return running;
            }
        }
        return 0;
    }

    /** Whether a request addressed to {@code ownerWord} waits in the entry's mailbox. */
    boolean hasRequest(int entryOffset, long ownerWord) {
        for (int i = 0; i < layout.mailboxSlots(); i++) {
            int slot = layout.slotOffset(entryOffset, i);
            if (state(body.getLongVolatile(slot + STATE_WORD_OFFSET)) == STATE_REQUEST
                    && body.getLongAcquire(slot + ADDRESSED_OWNER_OFFSET) == ownerWord) {
                return true;
            }
        }
        return false;
    }

    /** The request length a caller wrote into {@code slot}; unchecked. */
    int requestLength(int slot) {
        return body.getIntAcquire(slot + LENGTH_OFFSET);
    }

    /** The request of a slot taken by {@link #tryTake}, of a length checked against the limit. */
    byte[] readRequest(int slot, int length) {
        byte[] args = new byte[length];
        body.getBytes(slot + SLOT_HEADER_LENGTH, args);
        return args;
    }

    int slotOffset(int entryOffset, int slot) {
        return layout.slotOffset(entryOffset, slot);
    }

    int slotsPerPass() {
        return layout.mailboxSlots();
    }

    int maxPayload() {
        return layout.maxPayload();
    }

    /**
     * Writes the answer of a slot taken by {@link #tryTake}, counts the call, and publishes it: CAS
     * {@code RUNNING} to {@code RESPONSE} (or {@code FAILED}). A slot its caller abandoned is freed
     * instead.
     *
     * @return whether the answer was published (its caller may be waiting to be woken)
     */
    boolean answer(int entryOffset, int slot, long running, byte[] result, boolean failed) {
        int offset = slot + STATE_WORD_OFFSET;
        // Only the dispatcher whose CAS took the request writes while it runs; the caller may
        // abandon meanwhile, but writes nothing.
        body.putBytes(slot + SLOT_HEADER_LENGTH, result);
        body.setIntPlain(slot + LENGTH_OFFSET, result.length);
        Interleaving.at(Point.PASS_ANSWER_WRITTEN);
        // Counted before the answer is published, so a caller that has its answer sees the count.
        body.getAndAddLong(entryOffset + CALLS_OFFSET, 1);
        if (body.compareAndSetLong(
                offset, running, withState(running, failed ? STATE_FAILED : STATE_RESPONSE))) {
            return true;
        }
        // Abandoned by its caller: nobody reads this answer, free the slot.
        body.compareAndSetLong(
                offset, withState(running, STATE_ABANDONED), withState(running, STATE_FREE));
        return false;
    }

    /** A handler's failure as the caller reads it: class, newline, message; cut to fit. */
    byte[] failure(String type, String message) {
        byte[] text = (type + "\n" + message).getBytes(StandardCharsets.UTF_8);
        int maxPayload = layout.maxPayload();
        return text.length <= maxPayload ? text : Arrays.copyOf(text, maxPayload);
    }

    // ------------------------------------------------------------------------------------ reads

    /** The slots of an entry's mailbox that are not free. */
    int busySlots(int entryOffset) {
        int busy = 0;
        for (int i = 0; i < layout.mailboxSlots(); i++) {
            if (state(stateWord(layout.slotOffset(entryOffset, i))) != STATE_FREE) {
                busy++;
            }
        }
        return busy;
    }

    /** The calls an entry's owners answered since it was bound to its id. */
    long callsServed(int entryOffset) {
        return body.getLongVolatile(entryOffset + CALLS_OFFSET);
    }
}
