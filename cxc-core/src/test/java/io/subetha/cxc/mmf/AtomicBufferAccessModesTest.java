package io.subetha.cxc.mmf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every access mode of {@link AtomicBuffer} reads what every other wrote (each write seen through a
 * different read), the CAS and fetch-and-add forms answer as documented, an empty region needs no
 * alignment; and the small substrate value types: {@link CxcFileOptions} and the ASCII magics of
 * {@link HeaderDescriptor}.
 */
class AtomicBufferAccessModesTest {

    private static AtomicBuffer buffer() {
        return new AtomicBuffer(ByteBuffer.allocateDirect(64));
    }

    @Test
    void eachLongWriteIsSeenByEachRead() {
        AtomicBuffer b = buffer();
        b.setLongPlain(0, 11);
        assertThat(b.getLongVolatile(0)).isEqualTo(11);
        b.setLongOpaque(8, 12);
        assertThat(b.getLongAcquire(8)).isEqualTo(12);
        b.setLongVolatile(16, 13);
        assertThat(b.getLongPlain(16)).isEqualTo(13);
        b.setLongRelease(24, 14);
        assertThat(b.getLongOpaque(24)).isEqualTo(14);
    }

    @Test
    void eachIntWriteIsSeenByEachRead() {
        AtomicBuffer b = buffer();
        b.setIntPlain(0, 21);
        assertThat(b.getIntVolatile(0)).isEqualTo(21);
        b.setIntRelease(4, 22);
        assertThat(b.getIntPlain(4)).isEqualTo(22);
        b.setIntVolatile(8, 23);
        assertThat(b.getIntAcquire(8)).isEqualTo(23);
    }

    @Test
    void casAndFetchFormsAnswerWithTheirWitness() {
        AtomicBuffer b = buffer();
        b.setLongVolatile(0, 5);
        assertThat(b.compareAndSetLong(0, 4, 9)).isFalse();
        assertThat(b.getLongVolatile(0)).isEqualTo(5);
        assertThat(b.compareAndSetLong(0, 5, 9)).isTrue();
        assertThat(b.compareAndExchangeLong(0, 1, 2)).isEqualTo(9);
        assertThat(b.compareAndExchangeLong(0, 9, 3)).isEqualTo(9);
        assertThat(b.getLongVolatile(0)).isEqualTo(3);
        assertThat(b.getAndSetLong(0, 7)).isEqualTo(3);
        assertThat(b.getAndAddLong(0, 2)).isEqualTo(7);
        assertThat(b.getLongVolatile(0)).isEqualTo(9);

        b.setIntVolatile(8, 5);
        assertThat(b.compareAndSetInt(8, 4, 6)).isFalse();
        assertThat(b.compareAndSetInt(8, 5, 6)).isTrue();
        assertThat(b.getAndAddInt(8, 3)).isEqualTo(6);
        assertThat(b.getIntVolatile(8)).isEqualTo(9);
    }

    @Test
    void anEmptyRegionNeedsNoAlignmentButANonEmptyOneDoes() {
        ByteBuffer direct = ByteBuffer.allocateDirect(16);
        int first = 1;
        while (direct.alignmentOffset(first, 8) == 0) {
            first++;
        }
        int misaligned = first;
        assertThat(
                        new AtomicBuffer(direct.duplicate().position(misaligned).limit(misaligned))
                                .capacity())
                .isZero();
        assertThatThrownBy(
                        () ->
                                new AtomicBuffer(
                                        direct.duplicate()
                                                .position(misaligned)
                                                .limit(misaligned + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("8-byte aligned");
    }

    @Test
    void fileOptionsRefuseANegativeWaitAndPermissionsTheOwnerCannotReadAndWrite() {
        assertThatThrownBy(
                        () ->
                                CxcFileOptions.defaults()
                                        .withInitialisationTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("initialisationTimeout must not be negative");
        assertThat(
                        CxcFileOptions.defaults()
                                .withInitialisationTimeout(Duration.ZERO)
                                .initialisationTimeout())
                .isZero();
        for (String mode : new String[] {"-w-------", "r--------", "---rw-rw-"}) {
            assertThatThrownBy(() -> CxcFileOptions.defaults().withFilePermissions(mode))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(
                            "filePermissions must let the owner read and write, got " + mode);
        }
        CxcFileOptions shared =
                CxcFileOptions.defaults()
                        .withFilePermissions("rw-rw----")
                        .withDirectoryPermissions("rwxrwx---");
        assertThat(shared.filePermissions())
                .isEqualTo(PosixFilePermissions.fromString("rw-rw----"));
        assertThat(shared.directoryPermissions())
                .isEqualTo(PosixFilePermissions.fromString("rwxrwx---"));
        assertThat(shared.readOnly()).isFalse();
        assertThat(shared.asReadOnly().readOnly()).isTrue();
        assertThat(shared.asReadOnly().filePermissions()).isEqualTo(shared.filePermissions());
        assertThat(Set.copyOf(CxcFileOptions.defaults().filePermissions()))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void aMagicIsEightAsciiCharactersReadLittleEndian() {
        long magic = HeaderDescriptor.asciiMagic("ABCDEFGH");
        assertThat(magic).isEqualTo(0x4847464544434241L);
        assertThat(HeaderDescriptor.asciiOf(magic)).isEqualTo("ABCDEFGH");
        for (String wrong : new String[] {"ABCDEFG", "ABCDEFGHI", ""}) {
            assertThatThrownBy(() -> HeaderDescriptor.asciiMagic(wrong))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a magic is 8 ASCII characters: " + wrong);
        }
    }
}
