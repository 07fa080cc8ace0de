package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.codec.FixedSize;
import io.subetha.cxc.eventlog.EventLogReader;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.eventlog.EventsOverwrittenException;
import io.subetha.cxc.mmf.CxcFileOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A declared scheduler's last outcomes, in a companion file {@code <name>.history} beside its
 * {@code <name>.scheduler}: an {@link EventStateLog} that keeps the last {@code size} runs of every
 * process's pool (job id, type, attempt, started, took, outcome, and the worker's PID) and folds
 * their totals, so any process (an operator's {@code /actuator/cxcjobs}, another instance) reads
 * the same history.
 *
 * <p>Best effort, never in a job's way: a run is recorded after its outcome is, without waiting; if
 * {@code size} runs are pending (a recorder stopped between reserving its entry and writing it
 * holds the fold until it runs again or dies), the run is left out and counted as {@link
 * #dropped()}.
 */
public final class SchedulerHistory implements JobRunObserver, AutoCloseable {

    /** The suffix of a history file, beside its scheduler's. */
    public static final String SUFFIX = ".history";

    /** The bytes of UTF-8 a run's type keeps. */
    public static final int TYPE_BYTES = 48;

    /**
     * One run in the history.
     *
     * @param jobId the job's id
     * @param type its type, as its handler names it, cut to {@value #TYPE_BYTES} bytes
     * @param attempt the attempt the run was
     * @param startedMillis when it started, in ms since the epoch
     * @param tookNanos how long the handler ran
     * @param outcome {@code succeeded}, {@code retried} or {@code failed}
     * @param pid the process whose worker ran it
     */
    public record Entry(
            long jobId,
            @FixedSize(TYPE_BYTES) String type,
            long attempt,
            long startedMillis,
            long tookNanos,
            @FixedSize(12) String outcome,
            long pid) {

        public Instant started() {
            return Instant.ofEpochMilli(startedMillis);
        }

        public Duration took() {
            return Duration.ofNanos(tookNanos);
        }
    }

    /** Every run ever recorded, by outcome: the history's folded state. */
    public record Totals(long succeeded, long retried, long failed) {
        Totals plus(Entry entry) {
            return switch (entry.outcome()) {
                case "succeeded" -> new Totals(succeeded + 1, retried, failed);
                case "retried" -> new Totals(succeeded, retried + 1, failed);
                default -> new Totals(succeeded, retried, failed + 1);
            };
        }
    }

    private static final long PID = ProcessHandle.current().pid();
    private static final FixedCodec<Entry> ENTRIES = FixedCodec.record(Entry.class);
    private static final FixedCodec<Totals> TOTALS = FixedCodec.record(Totals.class);

    private final String scheduler;
    private final EventStateLog<Entry, Totals> log;
    private final AtomicLong dropped = new AtomicLong();

    private SchedulerHistory(String scheduler, EventStateLog<Entry, Totals> log) {
        this.scheduler = scheduler;
        this.log = log;
    }

    /**
     * Opens (or creates) the history of the scheduler whose file is {@code schedulerFile}, keeping
     * its last {@code size} runs (fixed when the file is created), with the scheduler's file
     * options.
     */
    public static SchedulerHistory open(
            String scheduler, Path schedulerFile, int size, CxcFileOptions options) {
        Path file = schedulerFile.resolveSibling(SchedulerWorkers.nameOf(schedulerFile) + SUFFIX);
        EventStateLog.Settings<Entry, Totals> settings =
                new EventStateLog.Settings<>(size, ENTRIES, TOTALS, new Totals(0, 0, 0));
        @SuppressWarnings("unchecked") // the type opens the settings' own parameters
        EventStateLog<Entry, Totals> log =
                (EventStateLog<Entry, Totals>)
                        EventStateLog.TYPE.openOrCreate(file, settings, options);
        return new SchedulerHistory(scheduler, log);
    }

    /** {@link #open(String, Path, int, CxcFileOptions)} with the default file options. */
    public static SchedulerHistory open(String scheduler, Path schedulerFile, int size) {
        return open(scheduler, schedulerFile, size, CxcFileOptions.defaults());
    }

    @Override
    public void ended(JobRun run) {
        if (!run.scheduler().equals(scheduler)
                || run.outcome() == JobRun.Outcome.HANDED_BACK
                || log.isClosed()) {
            return;
        }
        Entry entry =
                new Entry(
                        run.jobId(),
                        cut(run.type()),
                        run.attempt(),
                        run.started().toEpochMilli(),
                        run.took().toNanos(),
                        run.outcome().tag(),
                        PID);
        if (!log.tryEmit(entry) && !(fold() && log.tryEmit(entry))) {
            dropped.incrementAndGet();
            return;
        }
        if (log.pendingCount() * 2 >= log.capacity()) {
            fold();
        }
    }

    /** Folds what is pending, unless another recorder is folding now. */
    private boolean fold() {
        try {
            log.drainAndFold(Totals::plus, Duration.ZERO);
            return true;
        } catch (CxcTimeoutException busy) {
            return false;
        }
    }

    /** The last {@code n} runs recorded, oldest first. */
    public List<Entry> last(int n) {
        for (int tries = 0; ; tries++) {
            long from = Math.max(log.oldestRetained(), log.emittedCount() - n);
            List<Entry> entries = new ArrayList<>();
            try (EventLogReader<Entry> reader = log.reader(from)) {
                reader.poll(entries::add, n);
                return entries;
            } catch (EventsOverwrittenException overtaken) {
                if (tries == 3) {
                    return entries; // recorders outpace this reader: what it read
                }
            }
        }
    }

    /** Every run recorded and folded, by outcome. */
    public Totals totals() {
        return log.readCurrent();
    }

    /** Runs this process left out of the history because it was full. */
    public long dropped() {
        return dropped.get();
    }

    /** The runs the history keeps. */
    public int size() {
        return log.capacity();
    }

    public Path file() {
        return log.file();
    }

    @Override
    public void close() {
        log.close();
    }

    /** At most {@value #TYPE_BYTES} bytes of UTF-8, cut between characters. */
    static String cut(String type) {
        String cut = type;
        while (cut.getBytes(StandardCharsets.UTF_8).length > TYPE_BYTES) {
            cut = cut.substring(0, cut.offsetByCodePoints(cut.length(), -1));
        }
        return cut;
    }

    @Override
    public String toString() {
        return "SchedulerHistory[" + scheduler + "]";
    }
}
