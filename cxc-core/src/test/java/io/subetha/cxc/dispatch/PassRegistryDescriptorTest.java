package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The layout's arithmetic, at its edges: the header numbers the body layout accepts (each bound and
 * one past it), the strides, and the state word's and caller identity's fields, including a
 * generation that wraps and an identity stamped for another claim.
 */
class PassRegistryDescriptorTest {

    @Test
    void theBodyLayoutAcceptsEachBoundAndRefusesOnePastIt() {
        assertThat(BODY_LAYOUT.bodyLength(1, 256)).isEqualTo(ENTRIES_OFFSET + 256);
        assertThat(BODY_LAYOUT.bodyLength(MAX_PASSES, 320))
                .isEqualTo(ENTRIES_OFFSET + MAX_PASSES * 320L);
        assertThatThrownBy(() -> BODY_LAYOUT.bodyLength(0, 256))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("capacity (max passes) must be 1..4096, got 0");
        assertThatThrownBy(() -> BODY_LAYOUT.bodyLength(MAX_PASSES + 1, 256))
                .hasMessage("capacity (max passes) must be 1..4096, got 4097");
        assertThatThrownBy(() -> BODY_LAYOUT.bodyLength(1, 192))
                .hasMessage(
                        "slot size (one pass entry with its mailbox) must be a multiple of 64 of"
                                + " at least 256, got 192");
        assertThatThrownBy(() -> BODY_LAYOUT.bodyLength(1, 257)).hasMessageEndingWith("got 257");
    }

    @Test
    void theCallersDoorbellOfSixtyFourWaitersFollowsTheRegistryHeader() {
        assertThat(LAYOUT_VERSION).isEqualTo(3);
        assertThat(DOORBELL_OFFSET).isEqualTo(REGISTRY_HEADER_LENGTH);
        assertThat(CALLER_WAITERS).isEqualTo(64);
        assertThat(ENTRIES_OFFSET).isEqualTo(64 + 64 + 64 * 32);
    }

    @Test
    void stridesRoundThePayloadUpToSixtyFourBytes() {
        assertThat(slotStride(1)).isEqualTo(128);
        assertThat(slotStride(64)).isEqualTo(128);
        assertThat(slotStride(65)).isEqualTo(192);
        assertThat(entryStride(3, 64)).isEqualTo(128 + 3 * 128);
        assertThat(bodyLength(2, 3, 65)).isEqualTo(ENTRIES_OFFSET + 2 * (128 + 3 * 192));
    }

    @Test
    void theStateWordKeepsItsFieldsApartAndTheGenerationWraps() {
        long word = packState(STATE_FAILED, 0x12_3456, 0xFFFF_FFFEL);
        assertThat(state(word)).isEqualTo(STATE_FAILED);
        assertThat(generation(word)).isEqualTo(0x12_3456);
        assertThat(callerPid(word)).isEqualTo(0xFFFF_FFFEL);
        assertThat(withState(word, STATE_FREE))
                .isEqualTo(packState(STATE_FREE, 0x12_3456, 0xFFFF_FFFEL));
        assertThat(packState(STATE_REQUEST, 1L << 24 | 5, 1L << 32 | 7))
                .isEqualTo(packState(STATE_REQUEST, 5, 7));
        assertThat(nextGeneration(packState(STATE_FREE, 0xFF_FFFF, 1))).isZero();
        assertThat(nextGeneration(packState(STATE_FREE, 41, 1))).isEqualTo(42);
    }

    @Test
    void aCallerIdentityGivesItsStartTimeOnlyToTheClaimItWasStampedFor() {
        long identity = callerIdentity(41, 0xAB_CDEF_0123L);
        assertThat(identity).isEqualTo((41L << 32) | 0xCDEF_0123L);
        assertThat(callerStartTime(identity, packState(STATE_CLAIMED, 41, 9)))
                .isEqualTo(0xCDEF_0123L);
        assertThat(callerStartTime(identity, packState(STATE_CLAIMED, 42, 9))).isZero();
        assertThat(callerIdentity(1L << 24 | 3, 5)).isEqualTo(callerIdentity(3, 5));
    }
}
