package io.subetha.cxc.internal;

import static io.subetha.cxc.mmf.HeaderDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.FileHeader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each bound on a header's declared body length refuses a file on its own: the file is cut or grown
 * (sparse) to exactly the length the header declares, so the file-size check passes and only the
 * bound under test stands between the header and the layout check (whose error is another).
 */
class BodyLengthCheckedAloneTest {

    @TempDir Path dir;

    /** A file whose header declares {@code bodyLength} (checksum rewritten) and is that long. */
    private Path declaring(long bodyLength) throws Exception {
        Path path = dir.resolve("body-" + bodyLength + ".cxc");
        MappedFiles.create(
                        path, HeaderValidationTest.spec(2, 64), b -> {}, CxcFileOptions.defaults())
                .close();
        try (FileChannel channel =
                FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(header, 0);
            header.putLong(BODY_LENGTH_OFFSET, bodyLength);
            header.putInt(CHECKSUM_OFFSET, FileHeader.checksumOf(header));
            channel.write(header.position(0), 0);
            long size = HEADER_LENGTH + Math.max(0, bodyLength);
            if (size < channel.size()) {
                channel.truncate(size);
            } else if (size > channel.size()) {
                channel.write(ByteBuffer.allocate(1), size - 1);
            }
        }
        assertThat(Files.size(path)).isEqualTo(HEADER_LENGTH + Math.max(0, bodyLength));
        return path;
    }

    private static void assertRefused(Path path, String phrase) {
        assertThatThrownBy(
                        () ->
                                MappedFiles.open(
                                        path,
                                        HeaderValidationTest.spec(2, 64),
                                        CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining(phrase)
                .hasMessageNotContaining("need a 128-byte body");
    }

    @Test
    void anEmptyBodyInAHeaderOnlyFileIsRefusedAsNoBody() throws Exception {
        assertRefused(
                declaring(0), "declares a 0-byte body, which no file can have, and the file is 64");
    }

    @Test
    void anUnalignedBodyOfTheFilesOwnLengthIsRefused() throws Exception {
        assertRefused(
                declaring(129),
                "declares a 129-byte body, not a multiple of 64 bytes as every body is");
    }

    @Test
    void anAlignedBodyAboveTheLimitOfTheFilesOwnLengthIsRefused() throws Exception {
        long over = MAX_BODY_LENGTH + ALIGNMENT - MAX_BODY_LENGTH % ALIGNMENT; // 2^31 - 64
        assertThat(over % ALIGNMENT).isZero();
        assertRefused(
                declaring(over),
                "declares a "
                        + over
                        + "-byte body, more than the largest a file may have ("
                        + MAX_BODY_LENGTH
                        + " bytes)");
    }

    @Test
    void theLayoutCheckIsTheOneThatRefusesAnAlignedBodyWithinTheLimit() throws Exception {
        assertThatThrownBy(
                        () ->
                                MappedFiles.open(
                                        declaring(192),
                                        HeaderValidationTest.spec(2, 64),
                                        CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("need a 128-byte body, but the header declares 192");
    }
}
