package io.subetha.cxc.testing;

import io.subetha.cxc.primitive.MappedPrimitive;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * One new file per Lincheck invocation and a handle of its own on it for each parallel thread, so
 * every thread acts as a separate process's view of the file: only the mapped bytes are shared, no
 * Java object of a handle. The first handle creates the file, the others open it; the file's name
 * is removed once all are open (the mappings outlive it), so a run of many thousand invocations
 * leaves no files behind. The files live in {@code /dev/shm} where there is one: creating a file
 * there costs a fraction of what it costs on a disk-backed directory.
 *
 * <p>Lincheck numbers a scenario's threads from its initial part up to its post part: {@link
 * #of(int)} takes that number, from an operation's {@code ThreadIdGen} parameter. The initial and
 * the post part run alone, before and after the parallel part, so they share handles with it.
 */
public final class ProcessHandles<P extends MappedPrimitive> {

    /** Handles per invocation: one per parallel thread ({@link Linearizability#THREADS}). */
    public static final int HANDLES = Linearizability.THREADS;

    private static final Path DIRECTORY = directory();
    private static final AtomicLong FILES = new AtomicLong();

    private final List<P> handles;

    private ProcessHandles(List<P> handles) {
        this.handles = handles;
    }

    /**
     * Creates a new file with {@code create} and opens it {@value #HANDLES}-1 more times with
     * {@code open}.
     */
    public static <P extends MappedPrimitive> ProcessHandles<P> on(
            String name, Function<Path, P> create, Function<Path, P> open) {
        Path path = DIRECTORY.resolve(name + "-" + FILES.incrementAndGet() + ".cxc");
        List<P> handles = new ArrayList<>(HANDLES);
        handles.add(create.apply(path));
        for (int i = 1; i < HANDLES; i++) {
            handles.add(open.apply(path));
        }
        try {
            Files.delete(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ProcessHandles<>(handles);
    }

    /** The handle of Lincheck thread {@code threadId}. */
    public P of(int threadId) {
        return handles.get(threadId % HANDLES);
    }

    private static Path directory() {
        try {
            Path memory = Path.of("/dev/shm");
            Path dir =
                    Files.isDirectory(memory) && Files.isWritable(memory)
                            ? Files.createTempDirectory(memory, "cxc-lincheck-")
                            : Files.createTempDirectory("cxc-lincheck-");
            dir.toFile().deleteOnExit();
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
