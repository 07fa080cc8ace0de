package io.subetha.cxc.participant;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A slot word's short lap tag read back as the full lap within one lap of its ring's head. */
class LapTagsTest {

    @Test
    void aTagWithinOneLapOfTheHeadIsThatLap() {
        for (int bits : new int[] {24, 32}) {
            assertThat(LapTags.fullLap(5, 5, bits)).isEqualTo(5);
            assertThat(LapTags.fullLap(5, 6, bits)).isEqualTo(6);
            assertThat(LapTags.fullLap(5, 4, bits)).isEqualTo(4);
            assertThat(LapTags.fullLap(0, 0, bits)).isZero();
        }
    }

    @Test
    void aTagAcrossTheWrapIsTheLapOnTheHeadsSideOfIt() {
        for (int bits : new int[] {24, 32}) {
            long wrap = 1L << bits;
            long last = wrap - 1;
            assertThat(LapTags.fullLap(wrap, last, bits))
                    .as("%d bits, behind", bits)
                    .isEqualTo(last);
            assertThat(LapTags.fullLap(last, 0, bits)).as("%d bits, ahead", bits).isEqualTo(wrap);
            assertThat(LapTags.fullLap(3 * wrap + 1, 2, bits)).isEqualTo(3 * wrap + 2);
            assertThat(LapTags.fullLap(3 * wrap, last, bits)).isEqualTo(3 * wrap - 1);
        }
    }
}
