package io.subetha.cxc.badinput;

import static io.subetha.cxc.mmf.HeaderDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcException;
import io.subetha.cxc.CxcFileAccessException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcPidNamespaceException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.internal.FileSpec;
import io.subetha.cxc.internal.MappedFiles;
import io.subetha.cxc.internal.PidNamespace;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveView;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bad-input catalogue of docs/RELIABILITY.md: every bad file tried against every primitive in
 * {@link PrimitiveOpener#ALL}. Each row asserts the exception type, that its message names the file
 * and the problem, and that the file's bytes and modification time are unchanged. The messages seen
 * are written to {@code target/bad-input-catalogue.tsv} for the document.
 */
class BadInputCatalogueTest {

    /** Short enough for a test, long enough to show the bounded wait happens. */
    static final CxcFileOptions QUICK =
            CxcFileOptions.defaults().withInitialisationTimeout(Duration.ofMillis(200));

    /** Builds the bad file at {@code target} from a valid file's bytes. */
    @FunctionalInterface
    interface Preparer {
        void prepare(Path target, byte[] valid, PrimitiveOpener primitive) throws Exception;
    }

    /**
     * One row of the catalogue.
     *
     * @param expected the exception the user sees
     * @param problem a fragment of its message that names the problem
     */
    record BadInput(
            String name,
            Preparer preparer,
            Class<? extends CxcException> expected,
            String problem) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final Map<String, String> OBSERVED = new TreeMap<>();

    static List<BadInput> badInputs() {
        return List.of(
                new BadInput(
                        "empty file",
                        (t, v, p) -> Files.write(t, new byte[0]),
                        CxcFormatException.class,
                        "the file is empty (0 bytes)"),
                new BadInput(
                        "truncated header",
                        (t, v, p) -> Files.write(t, Arrays.copyOf(v, 40)),
                        CxcFormatException.class,
                        "shorter than the 64-byte cxc header"),
                new BadInput(
                        "header intact, body truncated",
                        (t, v, p) -> Files.write(t, Arrays.copyOf(v, v.length - 32)),
                        CxcFormatException.class,
                        "bytes (truncated or corrupt)"),
                new BadInput(
                        "random bytes",
                        (t, v, p) -> {
                            byte[] noise = new byte[4096];
                            new Random(7).nextBytes(noise);
                            Files.write(t, noise);
                        },
                        CxcFormatException.class,
                        "wrong magic number"),
                new BadInput(
                        "wrong magic",
                        (t, v, p) -> {
                            byte[] b = v.clone();
                            b[0] = 'X';
                            Files.write(t, b);
                        },
                        CxcFormatException.class,
                        "this is not a cxc file"),
                new BadInput(
                        "another primitive's kind",
                        (t, v, p) -> Files.write(t, header(v, KIND_OFFSET, otherKind(p).code())),
                        CxcFormatException.class,
                        ", not "),
                new BadInput(
                        "unknown kind code",
                        (t, v, p) -> Files.write(t, header(v, KIND_OFFSET, 999)),
                        CxcFormatException.class,
                        "an unknown kind (code 999)"),
                new BadInput(
                        "future layout version",
                        (t, v, p) -> Files.write(t, header(v, LAYOUT_VERSION_OFFSET, 99)),
                        CxcFormatException.class,
                        "written by a newer CXC release"),
                new BadInput(
                        "body length larger than the file",
                        (t, v, p) -> Files.write(t, headerLong(v, BODY_LENGTH_OFFSET, 1 << 20)),
                        CxcFormatException.class,
                        "declares a 1048576-byte body"),
                new BadInput(
                        "body length beyond 2 GiB",
                        (t, v, p) -> Files.write(t, headerLong(v, BODY_LENGTH_OFFSET, 1L << 40)),
                        CxcFormatException.class,
                        "declares a 1099511627776-byte body"),
                new BadInput(
                        "negative body length",
                        (t, v, p) -> Files.write(t, headerLong(v, BODY_LENGTH_OFFSET, -64)),
                        CxcFormatException.class,
                        "declares a -64-byte body"),
                new BadInput(
                        "negative body length beyond the header's",
                        (t, v, p) -> Files.write(t, headerLong(v, BODY_LENGTH_OFFSET, -128)),
                        CxcFormatException.class,
                        "declares a -128-byte body, which no file can have"),
                new BadInput(
                        "body length that overflows the file size",
                        (t, v, p) ->
                                Files.write(t, headerLong(v, BODY_LENGTH_OFFSET, Long.MAX_VALUE)),
                        CxcFormatException.class,
                        "so the file should be 9223372036854775871 bytes"),
                new BadInput(
                        "capacity that lies",
                        (t, v, p) -> Files.write(t, header(v, CAPACITY_OFFSET, 1000)),
                        CxcFormatException.class,
                        "capacity 1000"),
                new BadInput(
                        "slot size that lies",
                        (t, v, p) -> Files.write(t, header(v, SLOT_SIZE_OFFSET, 4096)),
                        CxcFormatException.class,
                        "slot size 4096"),
                new BadInput(
                        "corrupt header (checksum mismatch)",
                        (t, v, p) -> {
                            byte[] b = v.clone();
                            b[CREATED_AT_OFFSET] ^= 0x55;
                            Files.write(t, b);
                        },
                        CxcFormatException.class,
                        "header checksum mismatch"),
                new BadInput(
                        "corrupt initialised marker",
                        (t, v, p) -> {
                            ByteBuffer b = FileBytes.edit(v);
                            b.putInt(INITIALISED_OFFSET, 0xDEADBEEF);
                            Files.write(t, b.array());
                        },
                        CxcFormatException.class,
                        "corrupt initialised marker 0xdeadbeef"),
                new BadInput(
                        "corrupt body (body magic)",
                        (t, v, p) -> {
                            byte[] b = v.clone();
                            b[HEADER_LENGTH] ^= 0x7F;
                            Files.write(t, b);
                        },
                        CxcFormatException.class,
                        "body magic"),
                new BadInput(
                        "PID namespace mismatch",
                        (t, v, p) ->
                                Files.write(
                                        t,
                                        headerLong(
                                                v,
                                                PID_NAMESPACE_OFFSET,
                                                PidNamespace.current() + 1)),
                        CxcPidNamespaceException.class,
                        "was created in PID namespace " + (PidNamespace.current() + 1)),
                new BadInput(
                        "no PID namespace recorded (0)",
                        (t, v, p) -> {
                            org.junit.jupiter.api.Assumptions.assumeTrue(
                                    PidNamespace.current() != PidNamespace.UNKNOWN,
                                    "this process cannot read its own PID namespace, so a file"
                                            + " without one is comparable with it");
                            Files.write(
                                    t, headerLong(v, PID_NAMESPACE_OFFSET, PidNamespace.UNKNOWN));
                        },
                        CxcPidNamespaceException.class,
                        "records no PID namespace (0), but this process runs in PID namespace "
                                + PidNamespace.current()),
                new BadInput(
                        "being created by another process (marker never set)",
                        (t, v, p) -> {
                            ByteBuffer b = FileBytes.edit(v);
                            b.putInt(INITIALISED_OFFSET, 0);
                            Files.write(t, b.array());
                        },
                        CxcTimeoutException.class,
                        "was never marked initialised within 200 ms"),
                new BadInput(
                        "directory in its place",
                        (t, v, p) -> Files.createDirectory(t),
                        CxcFileAccessException.class,
                        "it is a directory"),
                new BadInput(
                        "symbolic link to a valid file",
                        (t, v, p) -> {
                            Path real = t.resolveSibling("real-" + t.getFileName());
                            Files.write(real, v);
                            Files.createSymbolicLink(t, real);
                        },
                        CxcFileAccessException.class,
                        "it is a symbolic link"),
                new BadInput(
                        "FIFO in its place",
                        (t, v, p) -> {
                            Process mkfifo = new ProcessBuilder("mkfifo", t.toString()).start();
                            assertThat(mkfifo.waitFor()).isZero();
                        },
                        CxcFileAccessException.class,
                        "not a regular file"),
                new BadInput(
                        "no such file",
                        (t, v, p) -> {},
                        CxcFileAccessException.class,
                        "no such file"));
    }

    static Stream<Arguments> rows() {
        return badInputs().stream()
                .flatMap(
                        bad ->
                                PrimitiveOpener.ALL.stream()
                                        .map(primitive -> Arguments.of(bad, primitive)));
    }

    @TempDir Path dir;

    /** What the kinds' defaults refer to (a watchdog's heartbeat table) exists beforehand. */
    @BeforeEach
    void prepareCompanions() {
        PrimitiveOpener.ALL.forEach(primitive -> primitive.prepare(dir));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("rows")
    void badFileIsRefusedClearlyAndLeftUntouched(BadInput bad, PrimitiveOpener primitive)
            throws Exception {
        byte[] valid = validFile(primitive);
        Path target = dir.resolve("bad.cxc");
        bad.preparer().prepare(target, valid, primitive);
        // A fixed mtime in the past: an open that wrote would move it.
        boolean regular = Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS);
        if (regular) {
            Files.setLastModifiedTime(target, FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
        }
        List<Path> before = listing();
        FileBytes bytesBefore = regular ? FileBytes.of(target) : null;
        FileBytes linkTargetBefore =
                Files.isSymbolicLink(target) ? FileBytes.of(Files.readSymbolicLink(target)) : null;

        Throwable thrown = catchThrowable(() -> primitive.open(target, QUICK).close());

        assertThat(thrown)
                .isInstanceOf(bad.expected())
                .hasMessageContaining(target.toString())
                .hasMessageContaining(bad.problem());
        assertThat(thrown.getMessage())
                .as("no size in a message is negative")
                .doesNotContainPattern("be -[0-9]");
        if (bad.expected() == CxcFormatException.class) {
            assertThat(thrown).hasMessageContaining("left untouched");
        }
        if (regular) {
            assertThat(FileBytes.of(target).sameAs(bytesBefore))
                    .as("bytes and mtime unchanged")
                    .isTrue();
        }
        if (linkTargetBefore != null) {
            assertThat(FileBytes.of(Files.readSymbolicLink(target)).sameAs(linkTargetBefore))
                    .isTrue();
        }
        assertThat(listing()).as("no file created or removed").isEqualTo(before);
        OBSERVED.put(
                bad.name() + "\t" + primitive.name(),
                thrown.getClass().getSimpleName()
                        + "\t"
                        + thrown.getMessage().replace(dir.toString(), "<dir>"));
    }

    /** Missing parent directory: open never creates one. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("primitives")
    void missingDirectoryIsReportedAndNotCreated(PrimitiveOpener primitive) {
        Path target = dir.resolve("absent").resolve("x.cxc");
        assertThatThrownBy(() -> primitive.open(target, QUICK))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining(target.toString())
                .hasMessageContaining("does not exist");
        assertThat(dir.resolve("absent")).doesNotExist();
    }

    /** PID 0 (the "no process" value) and PIDs beyond u32 never reach the file. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("primitivesTakingPids")
    void pidZeroAndOutOfRangePidsAreRefusedWithoutWriting(PrimitiveOpener primitive)
            throws Exception {
        Path file = dir.resolve("p.cxc");
        try (MappedPrimitive opened = primitive.create(file, CxcFileOptions.defaults())) {
            FileBytes before = FileBytes.of(file);
            for (long pid : new long[] {0, -1, 1L << 32, Long.MAX_VALUE}) {
                assertThatThrownBy(() -> primitive.usePid().accept(opened, pid))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("PID " + pid);
            }
            assertThat(Files.readAllBytes(file)).isEqualTo(before.bytes());
            OBSERVED.put(
                    "PID 0\t" + primitive.name(),
                    "IllegalArgumentException\t"
                            + catchThrowable(() -> primitive.usePid().accept(opened, 0))
                                    .getMessage());
            OBSERVED.put(
                    "PID 2^32\t" + primitive.name(),
                    "IllegalArgumentException\t"
                            + catchThrowable(() -> primitive.usePid().accept(opened, 1L << 32))
                                    .getMessage());
        }
    }

    /** Capacity mismatch on open, for the primitives that have a capacity. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("capacityMismatches")
    void capacityMismatchOnOpenIsACapacityErrorAndLeavesTheFile(
            String name, PrimitiveOpener primitive, OpenWithCapacity openWithCapacity)
            throws Exception {
        Path file = dir.resolve("sized.cxc");
        primitive.create(file, CxcFileOptions.defaults()).close();
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
        FileBytes before = FileBytes.of(file);

        Throwable thrown = catchThrowable(() -> openWithCapacity.open(file, 16).close());

        assertThat(thrown)
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining(
                        "created with capacity " + HeartbeatTable.Settings.DEFAULT_CAPACITY)
                .hasMessageContaining("expecting capacity 16");
        assertThat(FileBytes.of(file).sameAs(before)).isTrue();
        OBSERVED.put(
                "capacity mismatch on open\t" + name,
                "CxcCapacityException\t" + thrown.getMessage().replace(dir.toString(), "<dir>"));
    }

    @FunctionalInterface
    interface OpenWithCapacity {
        AutoCloseable open(Path path, int capacity);
    }

    static Stream<Arguments> capacityMismatches() {
        return Stream.of(
                Arguments.of(
                        "heartbeat-table",
                        opener("heartbeat-table"),
                        (OpenWithCapacity)
                                (path, capacity) ->
                                        io.subetha.cxc.liveness.HeartbeatTable.TYPE.open(
                                                path,
                                                new io.subetha.cxc.liveness.HeartbeatTable.Settings(
                                                        capacity),
                                                QUICK)),
                Arguments.of(
                        "epoch-barrier",
                        opener("epoch-barrier"),
                        (OpenWithCapacity)
                                (path, capacity) ->
                                        io.subetha.cxc.liveness.EpochBarrier.TYPE.open(
                                                path,
                                                new io.subetha.cxc.liveness.EpochBarrier.Settings(
                                                        capacity),
                                                QUICK)));
    }

    private static PrimitiveOpener opener(String name) {
        return PrimitiveOpener.ALL.stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    static List<PrimitiveOpener> primitivesTakingPids() {
        return PrimitiveOpener.ALL.stream().filter(PrimitiveOpener::takesPids).toList();
    }

    /** The substrate's own capacity check, with a spec of its own. */
    @Test
    void substrateCapacityMismatchIsACapacityErrorAndLeavesTheFile() throws Exception {
        BodyLayout perSlot = (capacity, slotSize) -> 64L * Math.max(1, capacity);
        FileSpec eight =
                new FileSpec(
                        PrimitiveKinds.HEARTBEAT_TABLE.code(),
                        PrimitiveKinds.HEARTBEAT_TABLE.name(),
                        1,
                        8,
                        0,
                        perSlot,
                        PrimitiveKinds::nameOf);
        Path file = dir.resolve("table.cxc");
        MappedFiles.create(file, eight, body -> {}, CxcFileOptions.defaults()).close();
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
        FileBytes before = FileBytes.of(file);

        Throwable thrown =
                catchThrowable(
                        () ->
                                MappedFiles.open(
                                                file,
                                                new FileSpec(
                                                        eight.kindCode(),
                                                        eight.kindName(),
                                                        1,
                                                        16,
                                                        0,
                                                        perSlot,
                                                        PrimitiveKinds::nameOf),
                                                QUICK)
                                        .close());

        assertThat(thrown)
                .isInstanceOf(CxcCapacityException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("created with capacity 8")
                .hasMessageContaining("expecting capacity 16");
        assertThat(FileBytes.of(file).sameAs(before)).isTrue();
        OBSERVED.put(
                "capacity mismatch on open\t(substrate)",
                "CxcCapacityException\t" + thrown.getMessage().replace(dir.toString(), "<dir>"));
    }

    /** The other side of "being created": a marker that appears during the wait is accepted. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("primitives")
    void fileFinishedByItsCreatorDuringTheWaitOpens(PrimitiveOpener primitive) throws Exception {
        byte[] valid = validFile(primitive);
        Path file = dir.resolve("late.cxc");
        ByteBuffer unfinished = FileBytes.edit(valid);
        unfinished.putInt(INITIALISED_OFFSET, 0);
        Files.write(file, unfinished.array());
        CxcFileOptions patient =
                CxcFileOptions.defaults().withInitialisationTimeout(Duration.ofSeconds(20));
        var opened = new CompletableFuture<PrimitiveView>();
        Thread opener =
                new Thread(
                        () -> {
                            try {
                                opened.complete(primitive.open(file, patient));
                            } catch (Throwable t) {
                                opened.completeExceptionally(t);
                            }
                        });
        opener.start();
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> opener.getState() == Thread.State.TIMED_WAITING);

        try (var channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer marker = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            marker.putInt(0, INITIALISED);
            channel.write(marker, INITIALISED_OFFSET);
        }

        try (PrimitiveView primitiveHandle = opened.get(10, TimeUnit.SECONDS)) {
            PrimitiveOpener.readState(primitiveHandle);
        }
        assertThat(Files.readAllBytes(file)).isEqualTo(valid);
    }

    static List<PrimitiveOpener> primitives() {
        return PrimitiveOpener.ALL;
    }

    @AfterAll
    static void writeObservedMessages() throws IOException {
        List<String> lines = new ArrayList<>();
        OBSERVED.forEach((row, seen) -> lines.add(row + "\t" + seen));
        Path out = Path.of("target", "bad-input-catalogue.tsv");
        Files.createDirectories(out.getParent());
        Files.write(out, lines);
    }

    private List<Path> listing() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.sorted().toList();
        }
    }

    private byte[] validFile(PrimitiveOpener primitive) throws Exception {
        Path scratch = Files.createTempDirectory(dir, "valid");
        Path file = scratch.resolve("valid.cxc");
        primitive.prepare(scratch);
        primitive.create(file, CxcFileOptions.defaults()).close();
        byte[] bytes = Files.readAllBytes(file);
        try (Stream<Path> files = Files.list(scratch)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(scratch);
        return bytes;
    }

    static PrimitiveKinds.Kind otherKind(PrimitiveOpener primitive) {
        return PrimitiveKinds.all().stream()
                .filter(kind -> kind.code() != primitive.type().code())
                .findFirst()
                .orElseThrow();
    }

    /** A valid file with one u32 header field replaced and the checksum fixed. */
    static byte[] header(byte[] valid, int offset, int value) {
        ByteBuffer b = FileBytes.edit(valid);
        b.putInt(offset, value);
        return FileBytes.withChecksum(b);
    }

    /** A valid file with one u64 header field replaced and the checksum fixed. */
    static byte[] headerLong(byte[] valid, int offset, long value) {
        ByteBuffer b = FileBytes.edit(valid);
        b.putLong(offset, value);
        return FileBytes.withChecksum(b);
    }
}
