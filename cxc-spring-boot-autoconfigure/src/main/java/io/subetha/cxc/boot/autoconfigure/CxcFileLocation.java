package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.mmf.CxcFileOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;

/**
 * Where this context's primitives live: {@code cxc.directory} (with the election file's checks),
 * or, with {@code cxc.enabled=false}, a private temporary directory. Off, the application still
 * starts with everything it injects, and runs as if it were the only copy: its primitives work, in
 * files no other process opens, made on first use (owner-only, under {@code /dev/shm} where it
 * exists) and deleted when the context closes. That is said once, at WARN, when the directory is
 * made.
 *
 * <p>Once started, it says at INFO whether {@code cxc.directory} survives a reboot, from the type
 * of its file store: in memory ({@code tmpfs}, the default {@code /dev/shm}) the files survive a
 * restart of the application but not a reboot of the host; on a disk they survive both.
 */
final class CxcFileLocation implements DisposableBean, SmartInitializingSingleton {

    /** File stores whose files live in memory, gone at a reboot. */
    private static final Set<String> IN_MEMORY = Set.of("tmpfs", "ramfs", "hugetlbfs");

    private static final Log logger = LogFactory.getLog(CxcFileLocation.class);

    private final CxcProperties properties;
    private final Environment environment;
    private final boolean alone;
    private @Nullable Path privateDirectory;

    CxcFileLocation(CxcProperties properties, Environment environment) {
        this.properties = properties;
        this.environment = environment;
        this.alone = isOff(environment);
    }

    static boolean isOff(Environment environment) {
        return !environment.getProperty("cxc.enabled", Boolean.class, true);
    }

    /** Whether the files are private to this context ({@code cxc.enabled=false}). */
    boolean isAlone() {
        return alone;
    }

    /** The directory, absolute; the private one is made here on first use. */
    Path directory() {
        return alone ? privateDirectory() : CxcDirectory.resolve(properties, environment);
    }

    /** The file {@code fileName} in {@link #directory()}, checked as the election file is. */
    Path file(String fileName) {
        return alone
                ? privateDirectory().resolve(fileName)
                : CxcDirectory.file(properties, environment, fileName);
    }

    CxcFileOptions options() {
        return CxcDirectory.fileOptions(properties);
    }

    private synchronized Path privateDirectory() {
        Path made = privateDirectory;
        if (made == null) {
            try {
                Path shm = Path.of("/dev/shm");
                made =
                        Files.isDirectory(shm) && Files.isWritable(shm)
                                ? Files.createTempDirectory(shm, "cxc-alone-")
                                : Files.createTempDirectory("cxc-alone-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot make cxc's private directory", e);
            }
            privateDirectory = made.toAbsolutePath();
            logger.warn(
                    "cxc is off (cxc.enabled=false): this process runs as if it were the only"
                            + " copy; its cxc primitives are in the private directory "
                            + made
                            + ", which no other process shares and which is deleted when the"
                            + " application stops");
        }
        return made;
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (alone) {
            return; // said when the private directory was made
        }
        Path directory = CxcDirectory.resolve(properties, environment);
        String store = fileStoreType(directory);
        if (store == null) {
            return;
        }
        logger.info(
                IN_MEMORY.contains(store)
                        ? "cxc: directory "
                                + directory
                                + " is in memory ("
                                + store
                                + "): its files (leadership, jobs, events) survive a restart of"
                                + " the application, not a reboot of the host"
                        : "cxc: directory "
                                + directory
                                + " is on a disk ("
                                + store
                                + "): its files (leadership, jobs, events) survive a restart and"
                                + " a reboot of the host");
    }

    /** The type of the file store of {@code path}, or of its nearest existing parent. */
    static @Nullable String fileStoreType(Path path) {
        for (Path p = path; p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                try {
                    return Files.getFileStore(p).type();
                } catch (IOException e) {
                    return null;
                }
            }
        }
        return null;
    }

    /** Deletes the private directory; the mapped files' pages go with their last mapping. */
    @Override
    public synchronized void destroy() throws IOException {
        Path made = privateDirectory;
        if (made == null || !Files.exists(made)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(made)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
        privateDirectory = null;
    }

    @Override
    public String toString() {
        return "CxcFileLocation[" + (alone ? "private " + privateDirectory : "cxc.directory") + "]";
    }
}
