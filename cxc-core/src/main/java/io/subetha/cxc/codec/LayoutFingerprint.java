package io.subetha.cxc.codec;

import java.nio.charset.StandardCharsets;

/**
 * The fingerprint of a canonical layout string: FNV-1a, 64 bits, over the UTF-8 bytes of {@link
 * #RULES} followed by the layout. FNV-1a because it is a dozen lines, fixed forever by its
 * published constants, and independent of anything a JVM may change ({@code hashCode}, identity,
 * class loading); collisions between layouts only matter by accident, never by attack, and 64 bits
 * make an accident negligible.
 */
final class LayoutFingerprint {

    /**
     * Names the layout rules of {@link FixedCodec}; a change to a rule changes this, and so every
     * fingerprint.
     */
    static final String RULES = "cxc.codec.v1:";

    private static final long FNV_OFFSET_BASIS = 0xcbf2_9ce4_8422_2325L;
    private static final long FNV_PRIME = 0x0000_0100_0000_01b3L;

    private LayoutFingerprint() {}

    static long of(String canonicalLayout) {
        long hash = FNV_OFFSET_BASIS;
        for (byte b : (RULES + canonicalLayout).getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= FNV_PRIME;
        }
        // A header stores 0 for "no codec": no layout may claim it.
        return hash == 0 ? 1 : hash;
    }
}
