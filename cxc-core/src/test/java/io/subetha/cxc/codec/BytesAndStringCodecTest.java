package io.subetha.cxc.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BytesAndStringCodecTest {

    private final AtomicBuffer buffer = Buffers.direct(128);

    @Test
    void bytesRoundTripAsACopy() {
        FixedCodec<byte[]> codec = FixedCodec.bytes(4);
        byte[] value = {1, -2, 3, -128};
        codec.write(buffer, 5, value);
        value[0] = 99;
        byte[] read = codec.read(buffer, 5);
        assertThat(read).containsExactly(1, -2, 3, -128);
        assertThat(codec.read(buffer, 5)).isNotSameAs(read);
        assertThat(codec.size()).isEqualTo(4);
        assertThat(codec.describe()).isEqualTo("byte[4]");
    }

    @Test
    void aByteArrayOfAnotherLengthIsRefusedNamingBothLengths() {
        FixedCodec<byte[]> codec = FixedCodec.bytes(4);
        assertThatThrownBy(() -> codec.write(buffer, 0, new byte[5]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("byte[4] takes exactly 4 bytes, got 5");
        assertThatThrownBy(() -> codec.write(buffer, 0, new byte[0])).hasMessageContaining("got 0");
        assertThatThrownBy(() -> FixedCodec.bytes(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 or more, got 0");
    }

    @Test
    void stringsRoundTripFromEmptyToExactlyTheLimit() {
        FixedCodec<String> codec = FixedCodec.string(8);
        assertThat(codec.size()).isEqualTo(12);
        assertThat(codec.describe()).isEqualTo("string(8)");
        for (String value : new String[] {"", "a", "12345678", "ab€\u00e9", "\uD83D\uDE00x€"}) {
            assertThat(value.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(8);
            codec.write(buffer, 4, value);
            assertThat(codec.read(buffer, 4)).isEqualTo(value);
        }
    }

    @Test
    void aStringOneByteTooLongIsRefusedNamingTheLimitAndTheLength() {
        FixedCodec<String> codec = FixedCodec.string(16);
        assertThatThrownBy(() -> codec.write(buffer, 0, "x".repeat(17)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("string(16) holds at most 16 UTF-8 bytes")
                .hasMessageContaining("17 chars is 17 UTF-8 bytes")
                .hasMessageContaining("never cut");
    }

    @Test
    void aMultiByteCharacterAcrossTheLimitIsRefusedNotCut() {
        FixedCodec<String> codec = FixedCodec.string(5);
        AtomicBuffer filled = Buffers.filled(16, 0xEE);
        byte[] before = Buffers.bytes(filled);

        // "abc" + "€" is 3 + 3 = 6 bytes: one past the limit, the last char would be cut mid-way.
        assertThatThrownBy(() -> codec.write(filled, 0, "abc€"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 5 UTF-8 bytes")
                .hasMessageContaining("4 chars is 6 UTF-8 bytes");
        // Four-byte characters are counted as four, not as two chars.
        assertThatThrownBy(() -> codec.write(filled, 0, "ab\uD83D\uDE00"))
                .hasMessageContaining("is 6 UTF-8 bytes");
        assertThat(Buffers.bytes(filled)).isEqualTo(before);

        codec.write(filled, 0, "ab€");
        assertThat(codec.read(filled, 0)).isEqualTo("ab€");
    }

    @Test
    void anUnpairedSurrogateIsRefusedRatherThanTurnedIntoAQuestionMark() {
        FixedCodec<String> codec = FixedCodec.string(16);
        assertThatThrownBy(() -> codec.write(buffer, 0, "ab\uD83D"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate at index 2");
        assertThatThrownBy(() -> codec.write(buffer, 0, "\uDE00ab"))
                .hasMessageContaining("unpaired surrogate at index 0");
    }

    @Test
    void theUnusedEndOfAStringIsZeroed() {
        FixedCodec<String> codec = FixedCodec.string(10);
        AtomicBuffer filled = Buffers.filled(14, 0xEE);
        codec.write(filled, 0, "abcdefghij");
        codec.write(filled, 0, "xy");
        assertThat(Buffers.bytes(filled))
                .containsExactly(2, 0, 0, 0, 'x', 'y', 0, 0, 0, 0, 0, 0, 0, 0);
    }

    @Test
    void aStoredLengthOutsideTheLimitIsAFormatError() {
        FixedCodec<String> codec = FixedCodec.string(8);
        buffer.setIntPlain(16, 9);
        assertThatThrownBy(() -> codec.read(buffer, 16))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("string(8) at offset 16 stores a length of 9 bytes")
                .hasMessageContaining("outside 0..8");
        buffer.setIntPlain(16, -1);
        assertThatThrownBy(() -> codec.read(buffer, 16))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("length of 4294967295 bytes");
    }

    @Test
    void limitsMustBeUsable() {
        assertThatThrownBy(() -> FixedCodec.string(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 0");
        assertThatThrownBy(() -> FixedCodec.string(Integer.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aStringThatWouldOverflowTheBufferIsRefusedBeforeAnyStore() {
        FixedCodec<String> codec = FixedCodec.string(8);
        AtomicBuffer small = Buffers.filled(16, 0xEE);
        assertThatThrownBy(() -> codec.write(small, 5, "a"))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("string(8) needs 12 bytes at offset 5, outside a buffer of 16 bytes");
        assertThat(Buffers.bytes(small)).containsOnly(0xEE);
    }
}
