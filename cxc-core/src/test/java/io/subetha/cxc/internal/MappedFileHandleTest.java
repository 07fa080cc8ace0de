package io.subetha.cxc.internal;

import static io.subetha.cxc.mmf.HeaderDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.FileHeader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a mapped file handle is: its path, header, body window and identity; a read-write open maps
 * the file writable and a read-only one neither maps nor opens it for writing; close only marks it.
 */
class MappedFileHandleTest {

    @TempDir Path dir;

    private Path create(String name) {
        Path path = dir.resolve(name);
        MappedFiles.create(
                        path,
                        HeaderValidationTest.spec(2, 64),
                        body -> body.setLongPlain(0, 0x1122334455667788L),
                        CxcFileOptions.defaults())
                .close();
        return path;
    }

    private static MappedFile open(Path path, CxcFileOptions options) {
        return MappedFiles.open(path, HeaderValidationTest.spec(2, 64), options);
    }

    @Test
    void aHandleNamesItsPathHeaderIdentityAndWhetherItCreatedTheFile() throws Exception {
        Path path = dir.resolve("made.cxc");
        Object inode;
        try (MappedFile made =
                MappedFiles.create(
                        path,
                        HeaderValidationTest.spec(2, 64),
                        b -> {},
                        CxcFileOptions.defaults())) {
            inode = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
            assertThat(made.path()).isEqualTo(path.toAbsolutePath());
            assertThat(made.created()).isTrue();
            assertThat(made.fileKey()).isEqualTo(inode);
            assertThat(made.header().initialised()).isEqualTo(INITIALISED);
            assertThat(made.toString()).isEqualTo("cxc file " + path.toAbsolutePath());
        }
        try (MappedFile opened = open(path, CxcFileOptions.defaults())) {
            assertThat(opened.path()).isEqualTo(path);
            assertThat(opened.created()).isFalse();
            assertThat(opened.fileKey()).isEqualTo(inode);
            assertThat(opened.header()).isEqualTo(MappedFiles.readHeader(path));
            assertThat(opened.body().capacity()).isEqualTo(128);
        }
    }

    @Test
    void closeOnlyMarksTheHandleClosed() {
        Path path = create("closed.cxc");
        MappedFile file = open(path, CxcFileOptions.defaults());
        assertThat(file.isClosed()).isFalse();
        file.close();
        assertThat(file.isClosed()).isTrue();
        assertThat(file.body().getLongVolatile(0)).isEqualTo(0x1122334455667788L);
    }

    @Test
    void theBodyStartsRightAfterTheHeaderAndAReadWriteOpenWritesThrough() throws Exception {
        Path path = create("written.cxc");
        try (MappedFile file = open(path, CxcFileOptions.defaults())) {
            assertThat(file.body().getLongVolatile(0)).isEqualTo(0x1122334455667788L);
            file.body().setLongVolatile(120, 0x0A0B0C0DL);
            file.force();
        }
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(path)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(bytes.capacity()).isEqualTo(HEADER_LENGTH + 128);
        assertThat(bytes.getLong(HEADER_LENGTH)).isEqualTo(0x1122334455667788L);
        assertThat(bytes.getLong(HEADER_LENGTH + 120)).isEqualTo(0x0A0B0C0DL);
    }

    @Test
    void aReadOnlyViewIsMappedReadOnlyAndItsForceIsANoOp() {
        Path path = create("viewed.cxc");
        try (MappedFile view = open(path, CxcFileOptions.defaults().asReadOnly())) {
            assertThat(view.body().getLongVolatile(0)).isEqualTo(0x1122334455667788L);
            assertThatThrownBy(() -> view.body().setLongVolatile(0, 1))
                    .isInstanceOf(ReadOnlyBufferException.class);
            view.force();
        }
    }

    @Test
    void aReadOnlyViewNeverOpensTheFileForWriting() throws Exception {
        // Root may write any file whatever its mode; an immutable file it may not open for writing.
        Path path = create("immutable.cxc");
        assumeTrue(chattr("+i", path), "chattr +i works on this file system");
        try {
            try (MappedFile view = open(path, CxcFileOptions.defaults().asReadOnly())) {
                assertThat(view.body().getLongVolatile(0)).isEqualTo(0x1122334455667788L);
            }
            assertThatThrownBy(() -> open(path, CxcFileOptions.defaults()))
                    .isInstanceOf(io.subetha.cxc.CxcFileAccessException.class)
                    .hasMessage("cannot open " + path + ": Operation not permitted");
        } finally {
            chattr("-i", path);
        }
    }

    @Test
    void theChecksumIsTheCrc32cOfTheFirst56Bytes() throws Exception {
        Path path = create("summed.cxc");
        byte[] header = new byte[HEADER_LENGTH];
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.read(ByteBuffer.wrap(header), 0);
        }
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(header, 0, CHECKSUM_OFFSET);
        int stored = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getInt(CHECKSUM_OFFSET);
        assertThat(stored).isEqualTo((int) crc.getValue()).isNotZero();
        assertThat(FileHeader.checksumOf(ByteBuffer.wrap(header))).isEqualTo(stored);
    }

    @Test
    void aFlippedByteAnywhereInTheSummedBytesIsACorruptHeader() throws Exception {
        // The reserved word and the creation time: fields no other check reads.
        for (int offset : new int[] {RESERVED_OFFSET, CREATED_AT_OFFSET}) {
            Path path = create("flipped-" + offset + ".cxc");
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(new byte[] {0x5A}), offset);
            }
            assertThatThrownBy(() -> open(path, CxcFileOptions.defaults()))
                    .isInstanceOf(io.subetha.cxc.CxcFormatException.class)
                    .hasMessageContaining("header checksum mismatch");
        }
    }

    private static boolean chattr(String flag, Path path) {
        try {
            Process p =
                    new ProcessBuilder("chattr", flag, path.toString())
                            .redirectErrorStream(true)
                            .start();
            try {
                return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
            } finally {
                p.destroyForcibly();
            }
        } catch (Exception e) {
            return false;
        }
    }
}
