package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.ENTRIES_OFFSET;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.ENTRY_HEADER_LENGTH;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.MAILBOX_SLOTS_OFFSET;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.MAX_PASSES_OFFSET;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.MAX_PAYLOAD_OFFSET;

import io.subetha.cxc.mmf.AtomicBuffer;

/**
 * The shape of one registry file, as its body declares it ({@link PassRegistryDescriptor}): where
 * each entry and each mailbox slot starts.
 *
 * @param slotStride bytes of one mailbox slot
 * @param entryStride bytes of one pass entry with its mailbox
 */
record PassLayout(
        int maxPasses, int mailboxSlots, int maxPayload, int slotStride, int entryStride) {

    /** The layout of a body the type's checks proved in range and consistent with its header. */
    static PassLayout of(AtomicBuffer body) {
        int maxPasses = body.getIntAcquire(MAX_PASSES_OFFSET);
        int mailboxSlots = body.getIntAcquire(MAILBOX_SLOTS_OFFSET);
        int maxPayload = body.getIntAcquire(MAX_PAYLOAD_OFFSET);
        return new PassLayout(
                maxPasses,
                mailboxSlots,
                maxPayload,
                (int) PassRegistryDescriptor.slotStride(maxPayload),
                (int) PassRegistryDescriptor.entryStride(mailboxSlots, maxPayload));
    }

    int entryOffset(int entry) {
        return ENTRIES_OFFSET + entry * entryStride;
    }

    int slotOffset(int entryOffset, int slot) {
        return entryOffset + ENTRY_HEADER_LENGTH + slot * slotStride;
    }
}
