package io.subetha.cxc.chaos.crash;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One process's append-only history: one {@link HistoryLine} per line, written and flushed whole by
 * one call so a SIGKILL loses at most the line being written (the page cache keeps what was
 * flushed; no fsync: the host does not crash, the process does). An operation is written as done
 * only after the primitive returned; what was under way is its {@code -begin} line alone.
 */
public final class History implements AutoCloseable {

    private final int worker;
    private final BufferedWriter out;

    private History(int worker, BufferedWriter out) {
        this.worker = worker;
        this.out = out;
    }

    /** Appends to {@code history-<worker>.log} in {@code dir}, creating it if needed. */
    public static History open(Path dir, int worker) {
        try {
            return new History(
                    worker,
                    Files.newBufferedWriter(
                            file(dir, worker),
                            StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Path file(Path dir, int worker) {
        return dir.resolve("history-" + worker + ".log");
    }

    public int worker() {
        return worker;
    }

    /** Logs one line stamped now ({@link System#nanoTime()}: one clock for every process). */
    public void log(Family family, String op, Object... fields) {
        StringBuilder line = new StringBuilder(64);
        line.append(System.nanoTime()).append(' ').append(worker).append(' ');
        line.append(family.code()).append(' ').append(op);
        for (Object field : fields) {
            line.append(' ').append(field);
        }
        line.append('\n');
        synchronized (this) {
            try {
                out.write(line.toString());
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
