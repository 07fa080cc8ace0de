package io.subetha.cxc.internal;

import static io.subetha.cxc.mmf.HeaderDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFileAccessException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcPidNamespaceException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.FileHeader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every check {@link MappedFiles} makes before it trusts a header, each on a file that passes all
 * the others (the header rewritten with a correct checksum where the check comes after it): the
 * shapes create refuses, short and empty files, the magic and the initialised marker, kind and
 * layout version (newer or older, unsigned), body length against the file size and the layout,
 * capacity and slot size, the PID namespace, what is not a regular file, and a header that changes
 * between validation and mapping. Files are of a test kind of capacity-many 64-byte slots.
 */
class HeaderValidationTest {

    static final int KIND = 60_003;

    static final BodyLayout SLOTS =
            (capacity, slotSize) -> {
                if (capacity < 1 || capacity > 8) {
                    throw new IllegalArgumentException("capacity must be 1..8");
                }
                return (long) capacity * slotSize;
            };

    @TempDir Path dir;

    static FileSpec spec(int layoutVersion, int capacity, int slotSize, BodyLayout layout) {
        return new FileSpec(
                KIND,
                "test-slots",
                layoutVersion,
                capacity,
                slotSize,
                layout,
                code -> code == KIND ? Optional.of("test-slots") : Optional.empty());
    }

    static FileSpec spec(int capacity, int slotSize) {
        return spec(1, capacity, slotSize, SLOTS);
    }

    private Path create(int capacity, int slotSize) {
        Path path = dir.resolve("file-" + System.nanoTime() + ".cxc");
        MappedFiles.create(path, spec(capacity, slotSize), body -> {}, CxcFileOptions.defaults())
                .close();
        return path;
    }

    private static MappedFile open(Path path, FileSpec spec) {
        return MappedFiles.open(path, spec, CxcFileOptions.defaults());
    }

    /** Rewrites header fields, then the checksum over them, as a careful forger would. */
    private static void rewrite(Path path, Consumer<ByteBuffer> change) throws Exception {
        try (FileChannel channel =
                FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(header, 0);
            change.accept(header);
            header.putInt(CHECKSUM_OFFSET, FileHeader.checksumOf(header));
            channel.write(header.position(0), 0);
        }
    }

    private static void assertRefused(Path path, FileSpec spec, String... phrases)
            throws Exception {
        byte[] before = Files.readAllBytes(path);
        var thrown =
                assertThatThrownBy(() -> open(path, spec)).isInstanceOf(CxcFormatException.class);
        for (String phrase : phrases) {
            thrown.hasMessageContaining(phrase);
        }
        assertThat(Files.readAllBytes(path)).isEqualTo(before);
    }

    // ------------------------------------------------------------------------- create

    @Test
    void createNeedsConcreteNumbersAndAnAlignedBodyWithinTheLimit() {
        Path path = dir.resolve("new.cxc");
        CxcFileOptions options = CxcFileOptions.defaults();
        assertThatThrownBy(() -> MappedFiles.create(path, spec(FileSpec.ANY, 64), b -> {}, options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "create needs a concrete capacity and slot size, got capacity -1");
        assertThatThrownBy(() -> MappedFiles.create(path, spec(1, FileSpec.ANY), b -> {}, options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slot size -1");
        for (long length : new long[] {0, -64, 65, 1L << 31}) {
            assertThatThrownBy(
                            () ->
                                    MappedFiles.create(
                                            path,
                                            spec(1, 0, 0, (c, s) -> length),
                                            b -> {},
                                            options))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(
                            "body length " + length + " must be a positive multiple of 64");
        }
        assertThat(path).doesNotExist();
        try (MappedFile smallest =
                MappedFiles.create(path, spec(1, 0, 0, (c, s) -> 64), b -> {}, options)) {
            assertThat(smallest.header().bodyLength()).isEqualTo(64);
            assertThat(smallest.created()).isTrue();
        }
    }

    @Test
    void theRootHasNoDirectoryToCreateIn() {
        assertThatThrownBy(
                        () ->
                                MappedFiles.create(
                                        Path.of("/"),
                                        spec(1, 64),
                                        b -> {},
                                        CxcFileOptions.defaults()))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("it has no directory");
    }

    @Test
    void theHeaderOfAnyFileReadsBackAsWritten() {
        Path path = create(2, 64);
        FileHeader header = MappedFiles.readHeader(path);
        assertThat(header.magic()).isEqualTo(MAGIC);
        assertThat(header.kindCode()).isEqualTo(KIND);
        assertThat(header.capacity()).isEqualTo(2);
        assertThat(header.slotSize()).isEqualTo(64);
        assertThat(header.bodyLength()).isEqualTo(128);
        assertThat(header.creatorPid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(header.initialised()).isEqualTo(INITIALISED);
        assertThat(header.pidNamespace()).isEqualTo(PidNamespace.current());
        assertThatThrownBy(() -> MappedFiles.readHeader(dir.resolve("absent.cxc")))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("cannot read the header of");
    }

    // ------------------------------------------------------------------------- open

    @Test
    void aFileShorterThanAHeaderIsNamedEmptyOrShort() throws Exception {
        Path empty = Files.createFile(dir.resolve("empty.cxc"));
        assertRefused(empty, spec(2, 64), "the file is empty (0 bytes)");
        Path shortFile = Files.write(dir.resolve("short.cxc"), new byte[HEADER_LENGTH - 1]);
        assertRefused(
                shortFile,
                spec(2, 64),
                "the file is 63 bytes, shorter than the 64-byte cxc header");
    }

    @Test
    void aWrongMagicAndACorruptMarkerAreRefused() throws Exception {
        Path magic = create(2, 64);
        rewrite(magic, h -> h.putLong(MAGIC_OFFSET, 0x0102030405060708L));
        assertRefused(magic, spec(2, 64), "wrong magic number", "found 0x0102030405060708");

        Path marker = create(2, 64);
        rewrite(marker, h -> h.putInt(INITIALISED_OFFSET, 0x1234));
        assertRefused(marker, spec(2, 64), "corrupt initialised marker 0x00001234");
    }

    @Test
    void aFileNeverMarkedInitialisedTimesOutNamingItsCreator() throws Exception {
        Path path = create(2, 64);
        rewrite(path, h -> h.putInt(INITIALISED_OFFSET, 0));

        assertThatThrownBy(
                        () ->
                                MappedFiles.open(
                                        path,
                                        spec(2, 64),
                                        CxcFileOptions.defaults()
                                                .withInitialisationTimeout(Duration.ofMillis(20))))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("never marked initialised within 20 ms")
                .hasMessageContaining("created by PID " + ProcessHandle.current().pid());
    }

    @Test
    void aBadChecksumIsRefusedBeforeTheKind() throws Exception {
        Path path = create(2, 64);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), CHECKSUM_OFFSET);
        }
        assertRefused(path, spec(2, 64), "header checksum mismatch (stored 0x04030201");
    }

    @Test
    void anotherKindAndAnotherLayoutVersionAreRefusedWithTheirHint() throws Exception {
        Path path = create(2, 64);
        rewrite(path, h -> h.putInt(KIND_OFFSET, 60_999));
        assertRefused(path, spec(2, 64), "it holds an unknown kind (code 60999), not a test-slots");

        Path older = create(2, 64);
        assertRefused(
                older,
                spec(2, 2, 64, SLOTS),
                "layout version 1, but this CXC reads version 2",
                "older CXC release");
        Path newer = create(2, 64);
        rewrite(newer, h -> h.putInt(LAYOUT_VERSION_OFFSET, 0x8000_0000));
        assertRefused(newer, spec(2, 64), "layout version 2147483648", "newer CXC release");
        rewrite(newer, h -> h.putInt(LAYOUT_VERSION_OFFSET, 2));
        assertRefused(newer, spec(2, 64), "newer CXC release");
    }

    @Test
    void aBodyLengthMustBePositiveAlignedAndTheFilesOwn() throws Exception {
        Path path = create(2, 64); // a 128-byte body, a 192-byte file
        rewrite(path, h -> h.putLong(BODY_LENGTH_OFFSET, 0));
        assertRefused(
                path,
                spec(2, 64),
                "declares a 0-byte body, which no file can have, and the file is 192 bytes");
        rewrite(path, h -> h.putLong(BODY_LENGTH_OFFSET, -128));
        assertRefused(path, spec(2, 64), "declares a -128-byte body, which no file can have");
        rewrite(path, h -> h.putLong(BODY_LENGTH_OFFSET, 129));
        assertRefused(
                path,
                spec(2, 64),
                "declares a 129-byte body, so the file should be 193 bytes, but it is 192");
        rewrite(path, h -> h.putLong(BODY_LENGTH_OFFSET, 192));
        assertRefused(path, spec(2, 64), "so the file should be 256 bytes, but it is 192");
        rewrite(path, h -> h.putLong(BODY_LENGTH_OFFSET, Long.MAX_VALUE - 63));
        assertRefused(path, spec(2, 64), "should be 9223372036854775808 bytes");
        rewrite(path, h -> h.putLong(BODY_LENGTH_OFFSET, 128));
        open(path, spec(2, 64)).close();
    }

    @Test
    void theDeclaredShapeMustBeOneTheLayoutAllowsAndNeedTheDeclaredBody() throws Exception {
        Path path = create(2, 64);
        rewrite(path, h -> h.putInt(CAPACITY_OFFSET, 9));
        assertRefused(
                path,
                spec(1, FileSpec.ANY, FileSpec.ANY, SLOTS),
                "declares capacity 9 and slot size 64, which a test-slots cannot have (capacity must be 1..8)");
        rewrite(path, h -> h.putInt(CAPACITY_OFFSET, 1));
        assertRefused(
                path,
                spec(1, FileSpec.ANY, FileSpec.ANY, SLOTS),
                "capacity 1 and slot size 64 need a 64-byte body, but the header declares 128");
        rewrite(path, h -> h.putInt(CAPACITY_OFFSET, 2));
        try (MappedFile any = open(path, spec(FileSpec.ANY, FileSpec.ANY))) {
            assertThat(any.header().capacity()).isEqualTo(2);
        }
    }

    @Test
    void anotherCapacityIsACapacityErrorAndAnotherSlotSizeAFormatError() throws Exception {
        Path path = create(2, 64);
        assertThatThrownBy(() -> open(path, spec(4, 64)))
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining(
                        "was created with capacity 2, but was opened expecting capacity 4");
        assertThatThrownBy(() -> open(path, spec(2, 32)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("slot size 64 bytes, but this code expects 32");
        open(path, spec(2, FileSpec.ANY)).close();
        open(path, spec(FileSpec.ANY, 64)).close();
    }

    @Test
    void aFileOfAnotherOrAnUnknownPidNamespaceIsRefused() throws Exception {
        assumeTrue(PidNamespace.current() != PidNamespace.UNKNOWN, "a host that names namespaces");
        Path path = create(2, 64);
        rewrite(path, h -> h.putLong(PID_NAMESPACE_OFFSET, PidNamespace.UNKNOWN));
        assertThatThrownBy(() -> open(path, spec(2, 64)))
                .isInstanceOf(CxcPidNamespaceException.class)
                .hasMessageContaining("records no PID namespace (0)");
        rewrite(path, h -> h.putLong(PID_NAMESPACE_OFFSET, PidNamespace.current() + 1));
        assertThatThrownBy(() -> open(path, spec(2, 64)))
                .isInstanceOf(CxcPidNamespaceException.class)
                .hasMessageContaining(
                        "was created in PID namespace " + (PidNamespace.current() + 1));
        rewrite(path, h -> h.putLong(PID_NAMESPACE_OFFSET, PidNamespace.current()));
        open(path, spec(2, 64)).close();
    }

    @Test
    void aDirectoryOrAFifoIsNoCxcFile() throws Exception {
        Path directory = Files.createDirectory(dir.resolve("directory.cxc"));
        assertThatThrownBy(() -> open(directory, spec(2, 64)))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("as a test-slots file: it is a directory");
        Path fifo = dir.resolve("fifo.cxc");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mkfifo.waitFor() == 0, "mkfifo");
        assertThatThrownBy(() -> open(fifo, spec(2, 64)))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("it is not a regular file");
    }

    @Test
    void aHeaderRewrittenBetweenValidationAndMappingIsRefused() throws Exception {
        Path path = create(2, 64);
        AtomicBoolean once = new AtomicBoolean();
        Thread me = Thread.currentThread();
        try (Interleaving.Installed rewriter =
                Interleaving.install(
                        point -> {
                            if (point == Point.OPEN_VALIDATED
                                    && Thread.currentThread() == me
                                    && once.compareAndSet(false, true)) {
                                try {
                                    rewrite(path, h -> h.putLong(CREATED_AT_OFFSET, 1));
                                } catch (Exception e) {
                                    throw new AssertionError(e);
                                }
                            }
                        })) {
            assertThatThrownBy(() -> open(path, spec(2, 64)))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("changed while it was being opened; retry");
        }
        open(path, spec(2, 64)).close(); // the rewritten header is itself valid
    }

    @Test
    void aReadOnlyViewOpensButNeverCreates() {
        Path path = create(2, 64);
        CxcFileOptions readOnly = CxcFileOptions.defaults().asReadOnly();
        try (MappedFile view = MappedFiles.open(path, spec(2, 64), readOnly)) {
            assertThat(view.created()).isFalse();
            assertThat(view.body().getLongVolatile(0)).isZero();
        }
        assertThatThrownBy(
                        () ->
                                MappedFiles.openOrCreate(
                                        dir.resolve("never.cxc"), spec(2, 64), b -> {}, readOnly))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("with read-only options");
        try (MappedFile again =
                MappedFiles.openOrCreate(path, spec(2, 64), b -> {}, CxcFileOptions.defaults())) {
            assertThat(again.created()).isFalse();
        }
    }
}
