package io.subetha.cxc.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A fresh directory for one benchmark's files, removed on {@link #close()}. It lives in {@code
 * /dev/shm} where that exists, as a deployment would put its cxc files: mapped pages then never
 * reach a disk, so a benchmark measures memory, not write-back.
 */
final class ScratchDirectory implements AutoCloseable {

    private static final Path SHARED_MEMORY = Path.of("/dev/shm");

    private final Path path;

    private ScratchDirectory(Path path) {
        this.path = path;
    }

    static ScratchDirectory create() {
        try {
            return Files.isDirectory(SHARED_MEMORY) && Files.isWritable(SHARED_MEMORY)
                    ? new ScratchDirectory(Files.createTempDirectory(SHARED_MEMORY, "cxc-bench-"))
                    : new ScratchDirectory(Files.createTempDirectory("cxc-bench-"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a benchmark directory", e);
        }
    }

    Path resolve(String fileName) {
        return path.resolve(fileName);
    }

    @Override
    public void close() {
        try (Stream<Path> files = Files.walk(path)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove benchmark directory " + path, e);
        }
    }
}
