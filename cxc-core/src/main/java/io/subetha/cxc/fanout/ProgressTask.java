package io.subetha.cxc.fanout;

import static io.subetha.cxc.fanout.ProgressTaskDescriptor.*;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A long-running task's progress, shared by every process: workers {@link #advance} it (one atomic
 * add, never blocked by readers), observers {@link #read} it, and it ends once, {@link #complete}d
 * or {@link #fail}ed with a reason. Layout: {@link ProgressTaskDescriptor}.
 *
 * <p><b>Protocol.</b> {@code done} only grows, by atomic adds. The task ends by one CAS on the
 * state word from {@code RUNNING}, so it ends exactly once: {@code complete} CASes to {@code
 * COMPLETED}; {@code fail} CASes to {@code FAILING} under its own PID, then writes the reason
 * (nobody else may write it: nobody else won that CAS) and publishes {@code FAILED}. A failer
 * killed before publishing leaves {@code FAILING} under a dead PID, which readers report as failed
 * with the reason unknown; one still alive is simply still writing, and readers report it failed
 * without a reason until it publishes. An {@code advance} racing with the end is counted (the count
 * is still true) but does not reopen the task.
 *
 * <p>Thread-safe; no process owns anything in the file, so there is nothing to reclaim.
 */
public final class ProgressTask extends MappedPrimitive {

    /** The ops a progress task counts. */
    public enum Op implements OpKind {
        ADVANCE(1),
        READ(2),
        COMPLETE(3),
        FAIL(4);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /**
     * A task's creation settings.
     *
     * @param total the units of work the task has, 1 or more; fixed at creation
     */
    public record Settings(long total) {
        public Settings {
            if (total < 1) {
                throw new CxcSettingsException(
                        "total", "total must be 1 or more units of work, got " + total);
            }
        }
    }

    public static final PrimitiveType<ProgressTask, Settings> TYPE =
            PrimitiveType.<ProgressTask, Settings>define(
                            PrimitiveKinds.PROGRESS_TASK, Settings.class)
                    .layoutVersion(LAYOUT_VERSION)
                    .bodyMagic(MAGIC)
                    .ops(Op.class)
                    .fixedBody(BODY_LENGTH)
                    .initialiser(
                            (body, s) -> {
                                body.setLongPlain(TOTAL_OFFSET, s.total());
                                body.setLongPlain(LAST_UPDATE_OFFSET, System.currentTimeMillis());
                            })
                    .bodyCheck(ProgressTask::bodyProblem)
                    .defaults(new Settings(100))
                    .recorded(file -> new Settings(file.body().getLongAcquire(TOTAL_OFFSET)))
                    .construct((file, settings, options) -> new ProgressTask(file));

    private static final long OWN_PID = Pids.current();

    private final long total;

    private ProgressTask(MappedFile file) {
        super(file, TYPE);
        this.total = body.getLongAcquire(TOTAL_OFFSET);
    }

    private static @Nullable String bodyProblem(AtomicBuffer body) {
        long total = body.getLongAcquire(TOTAL_OFFSET);
        if (total < 1) {
            return "it declares a total of " + total + " units, not 1 or more";
        }
        int length = body.getIntAcquire(REASON_LENGTH_OFFSET);
        if (length < 0 || length > MAX_REASON_BYTES) {
            return "it declares a "
                    + Integer.toUnsignedString(length)
                    + "-byte failure reason, outside 0.."
                    + MAX_REASON_BYTES;
        }
        int state = state(body.getLongAcquire(STATE_OFFSET));
        if (state < RUNNING || state > FAILED) {
            return "it declares state " + state + ", not one of 0..3";
        }
        return null;
    }

    // ---------------------------------------------------------------------------- factories

    /** Opens an existing task, whatever its total. */
    public static ProgressTask open(Path path) {
        return TYPE.openAsRecorded(path, CxcFileOptions.defaults());
    }

    /**
     * Opens the task, or creates it with {@code settings}' total; race-safe across processes.
     *
     * @throws CxcSettingsException if the existing task has another total
     */
    public static ProgressTask openOrCreate(Path path, Settings settings) {
        ProgressTask task = TYPE.openOrCreate(path, settings);
        if (task.total != settings.total()) {
            task.close();
            throw new CxcSettingsException(
                    "total",
                    path
                            + " is a task of "
                            + task.total
                            + " units, not "
                            + settings.total()
                            + ": give it the total it was created with, or a new file");
        }
        return task;
    }

    // ------------------------------------------------------------------------------ writes

    /**
     * Adds {@code n} units of work done.
     *
     * @throws IllegalArgumentException if {@code n} is negative
     * @throws IllegalStateException if the task already ended
     */
    public void advance(long n) {
        passFileCheck();
        if (n < 0) {
            throw new IllegalArgumentException("n must be 0 or more units, got " + n);
        }
        requireRunning("advance");
        countOp(Op.ADVANCE);
        body.getAndAddLong(DONE_OFFSET, n);
        touch();
    }

    /**
     * Marks the task finished; again is a no-op.
     *
     * @throws IllegalStateException if it failed
     */
    public void complete() {
        countOp(Op.COMPLETE);
        long running = stateWord(RUNNING, 0);
        if (body.compareAndSetLong(STATE_OFFSET, running, stateWord(COMPLETED, OWN_PID))) {
            touch();
            return;
        }
        if (state(body.getLongVolatile(STATE_OFFSET)) != COMPLETED) {
            throw new IllegalStateException(
                    "cannot complete " + file.path() + ": " + describeEnd(read()));
        }
    }

    /**
     * Marks the task failed, saying why (the first {@value ProgressTaskDescriptor#MAX_REASON_BYTES}
     * UTF-8 bytes are kept).
     *
     * @return false if it had already ended (the first ending stands)
     */
    public boolean fail(String reason) {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("reason must say why the task failed, got none");
        }
        countOp(Op.FAIL);
        if (!body.compareAndSetLong(
                STATE_OFFSET, stateWord(RUNNING, 0), stateWord(FAILING, OWN_PID))) {
            return false;
        }
        byte[] bytes = truncated(reason);
        body.putBytes(REASON_OFFSET, bytes);
        body.setIntRelease(REASON_LENGTH_OFFSET, bytes.length);
        touch();
        body.setLongRelease(STATE_OFFSET, stateWord(FAILED, OWN_PID));
        return true;
    }

    private static byte[] truncated(String reason) {
        byte[] bytes = reason.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_REASON_BYTES) {
            return bytes;
        }
        int end = MAX_REASON_BYTES;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--; // do not cut a UTF-8 sequence
        }
        return Arrays.copyOf(bytes, end);
    }

    private void touch() {
        long now = System.currentTimeMillis();
        long last = body.getLongVolatile(LAST_UPDATE_OFFSET);
        if (now > last) {
            body.compareAndSetLong(LAST_UPDATE_OFFSET, last, now); // lost only to a newer one
        }
    }

    private void requireRunning(String what) {
        long word = body.getLongAcquire(STATE_OFFSET);
        if (state(word) != RUNNING) {
            throw new IllegalStateException(
                    "cannot " + what + " " + file.path() + ": " + describeEnd(read()));
        }
    }

    private static String describeEnd(ProgressSnapshot s) {
        return s.completed()
                ? "the task already completed"
                : "the task already failed (" + s.reason().orElse("reason unknown") + ")";
    }

    // ------------------------------------------------------------------------------- reads

    /** The task's progress now; never blocks a worker. */
    public ProgressSnapshot read() {
        countOp(Op.READ);
        long done = body.getLongVolatile(DONE_OFFSET);
        long word = body.getLongAcquire(STATE_OFFSET);
        int state = state(word);
        String reason = null;
        if (state == FAILED) {
            int length = body.getIntAcquire(REASON_LENGTH_OFFSET);
            if (length >= 0 && length <= MAX_REASON_BYTES) {
                byte[] bytes = new byte[length];
                body.getBytes(REASON_OFFSET, bytes);
                reason = new String(bytes, StandardCharsets.UTF_8);
            }
        } else if (state == FAILING
                && ProcessProbe.status(pid(word), ProcessProbe.UNKNOWN_START_TIME)
                        == ProcessStatus.DEAD) {
            reason = "unknown: process " + pid(word) + " died while recording it";
        }
        return new ProgressSnapshot(
                done,
                total,
                state == COMPLETED,
                state == FAILED || state == FAILING,
                reason,
                Instant.ofEpochMilli(body.getLongAcquire(LAST_UPDATE_OFFSET)));
    }

    public long total() {
        return total;
    }

    @Override
    public Map<String, Object> describe() {
        long done = body.getLongVolatile(DONE_OFFSET);
        int state = state(body.getLongAcquire(STATE_OFFSET));
        double percent = Math.min(100.0, Math.max(0, done) * 100.0 / total);
        return fields(
                "done",
                done,
                "total",
                total,
                "percent",
                Math.round(percent * 10) / 10.0,
                "state",
                switch (state) {
                    case COMPLETED -> "completed";
                    case FAILING, FAILED -> "failed";
                    default -> "running";
                },
                "lastUpdate",
                Instant.ofEpochMilli(body.getLongAcquire(LAST_UPDATE_OFFSET)).toString());
    }
}
