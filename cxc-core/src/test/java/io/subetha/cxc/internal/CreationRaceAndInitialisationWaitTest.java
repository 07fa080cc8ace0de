package io.subetha.cxc.internal;

import static io.subetha.cxc.mmf.HeaderDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcFileAccessException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.CxcFileOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What creation does when another creator gets there first (held at {@code NEW_FILE_WRITTEN}, just
 * before its link), when its temporary file vanishes, and how an opener waits for a file whose
 * creator has not marked it initialised yet.
 */
class CreationRaceAndInitialisationWaitTest {

    @TempDir Path dir;

    private static final FileSpec SPEC = HeaderValidationTest.spec(2, 64);

    @Test
    void openOrCreateOfANewPathCreatesItAndRunsTheInitialiser() {
        Path path = dir.resolve("new.cxc");
        try (MappedFile file =
                MappedFiles.openOrCreate(
                        path, SPEC, b -> b.setLongPlain(0, 99), CxcFileOptions.defaults())) {
            assertThat(file.created()).isTrue();
            assertThat(file.body().getLongVolatile(0)).isEqualTo(99);
        }
    }

    @Test
    void aCreatorThatLosesTheLinkOpensTheWinnersFile() {
        Path path = dir.resolve("raced.cxc");
        AtomicBoolean once = new AtomicBoolean();
        try (Interleaving.Installed rival =
                Interleaving.install(
                        point -> {
                            if (point == Interleaving.Point.NEW_FILE_WRITTEN
                                    && once.compareAndSet(false, true)) {
                                // Another process creates and publishes the file first.
                                MappedFiles.create(
                                                path,
                                                SPEC,
                                                b -> b.setLongPlain(0, 2),
                                                CxcFileOptions.defaults())
                                        .close();
                            }
                        })) {
            try (MappedFile loser =
                    MappedFiles.openOrCreate(
                            path, SPEC, b -> b.setLongPlain(0, 1), CxcFileOptions.defaults())) {
                assertThat(loser.created()).isFalse();
                assertThat(loser.body().getLongVolatile(0)).isEqualTo(2);
            }
        }
        assertThat(once).isTrue();
        assertThatThrownBy(() -> MappedFiles.create(path, SPEC, b -> {}, CxcFileOptions.defaults()))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessageContaining("already exists");
        try (Stream<Path> left = listing()) {
            assertThat(left).containsExactly(path);
        }
    }

    @Test
    void aTemporaryFileThatVanishesBeforeItsLinkIsAnIoErrorNotAMissingHardLink() {
        Path path = dir.resolve("vanished.cxc");
        try (Interleaving.Installed deleter =
                Interleaving.install(
                        point -> {
                            if (point == Interleaving.Point.NEW_FILE_WRITTEN) {
                                try (Stream<Path> temporary = listing()) {
                                    temporary.forEach(
                                            p -> {
                                                try {
                                                    Files.delete(p);
                                                } catch (java.io.IOException e) {
                                                    throw new java.io.UncheckedIOException(e);
                                                }
                                            });
                                }
                            }
                        })) {
            assertThatThrownBy(
                            () ->
                                    MappedFiles.create(
                                            path, SPEC, b -> {}, CxcFileOptions.defaults()))
                    .isInstanceOf(CxcFileAccessException.class)
                    .hasMessageStartingWith("cannot create " + path + ": ")
                    .hasMessageContaining("NoSuchFileException")
                    .hasMessageNotContaining("hard link");
        }
        assertThat(path).doesNotExist();
    }

    @Test
    void aFileShorterThanItsHeaderSaysIsTruncatedNotHeaderless() throws Exception {
        Path path = dir.resolve("cut.cxc");
        MappedFiles.create(path, SPEC, b -> {}, CxcFileOptions.defaults()).close();
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            channel.truncate(HEADER_LENGTH);
        }
        assertThatThrownBy(() -> MappedFiles.open(path, SPEC, CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("so the file should be 192 bytes, but it is 64 bytes");
    }

    @Test
    void anOpenerWaitsForACreatorToMarkTheFileInitialised() throws Exception {
        Path path = dir.resolve("slow.cxc");
        MappedFiles.create(path, SPEC, b -> b.setLongPlain(0, 7), CxcFileOptions.defaults())
                .close();
        setMarker(path, 0); // as a creator still writing it leaves it
        CompletableFuture<Long> opened =
                CompletableFuture.supplyAsync(
                        () -> {
                            try (MappedFile file =
                                    MappedFiles.open(
                                            path,
                                            SPEC,
                                            CxcFileOptions.defaults()
                                                    .withInitialisationTimeout(
                                                            Duration.ofSeconds(60)))) {
                                return file.body().getLongVolatile(0);
                            }
                        });
        // The opener holds the file open while it waits: only then does the creator finish.
        await().atMost(Duration.ofSeconds(60)).until(() -> opened.isDone() || holdsOpen(path));
        setMarker(path, INITIALISED);
        assertThat(opened.get(60, TimeUnit.SECONDS)).isEqualTo(7);
    }

    private static void setMarker(Path path, int marker) throws Exception {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            bytes.putInt(0, marker);
            channel.write(bytes, INITIALISED_OFFSET);
        }
    }

    /** Whether this process has a descriptor open on {@code path} (other than in this call). */
    private static boolean holdsOpen(Path path) throws Exception {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.anyMatch(
                    fd -> {
                        try {
                            return Files.readSymbolicLink(fd).equals(path.toAbsolutePath());
                        } catch (Exception e) {
                            return false;
                        }
                    });
        }
    }

    private Stream<Path> listing() {
        try {
            return Files.list(dir);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
