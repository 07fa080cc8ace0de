package io.subetha.cxc.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cxc watch DIR}: {@code inspect}'s table, refreshed, like {@code top} or AeronStat.
 *
 * <p><b>Ending.</b> Ctrl-C (SIGINT), SIGHUP (the terminal closed) and SIGTERM start the JVM's
 * shutdown; a shutdown hook stops the loop between two frames and waits for it, so no frame is cut
 * off and no stack trace is printed; the shell sees the signal's status (130, 129, 143). When
 * stdout is closed (the terminal is gone, or {@code | head} has read enough) the next frame fails
 * to write and the command ends with 0. {@code --iterations N} ends after N frames (for scripts and
 * tests).
 */
@Command(
        name = "watch",
        mixinStandardHelpOptions = true,
        versionProvider = Cxc.Version.class,
        description = {
            "Shows inspect's table for PATH (a directory or a file) and refreshes it every"
                    + " --interval, like top. On a terminal each refresh clears the screen; into a"
                    + " pipe or file the frames follow each other, each starting with a 'cxc watch'"
                    + " title line.",
            "PATH may not exist yet (the application has not started): the view says so and"
                    + " keeps looking; it is never created.",
            "Ends on Ctrl-C, SIGHUP or SIGTERM (between two frames), when its output is closed,"
                    + " or after --iterations frames."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:--iterations frames shown, or stdout closed",
            "2:usage error",
            "3:cxc itself failed",
            "129:ended by SIGHUP (the terminal closed), cleanly, between two frames",
            "130:ended by SIGINT (Ctrl-C), likewise",
            "143:ended by SIGTERM, likewise"
        })
final class WatchCommand implements Callable<Integer> {

    /** Cursor home, then erase the screen: each frame replaces the last. */
    static final String CLEAR_SCREEN = "\033[H\033[2J";

    /** The title line every frame starts with. */
    static final String TITLE = "cxc watch ";

    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT);

    @Spec CommandSpec spec;

    @CommandLine.ParentCommand Cxc cxc;

    @Parameters(paramLabel = "PATH", description = "a directory of cxc files, or one file")
    Path path;

    @Option(
            names = "--interval",
            paramLabel = "DURATION",
            defaultValue = "1s",
            converter = DurationConverter.class,
            description =
                    "time between refreshes: 500ms, 2s, 1m, or ISO-8601 (PT0.5S); at least 10ms"
                            + " (default: ${DEFAULT-VALUE})")
    Duration interval;

    @Option(
            names = "--iterations",
            paramLabel = "N",
            defaultValue = "0",
            description = "stop after N frames; 0 (the default) runs until stopped")
    int iterations;

    @Option(
            names = "--grace-epochs",
            paramLabel = "N",
            defaultValue = "3",
            description =
                    "epochs a heartbeat may lag before its slot counts as STALE (default:"
                            + " ${DEFAULT-VALUE}, the starter's cxc.heartbeat.grace-epochs)")
    long graceEpochs;

    @Override
    public Integer call() throws Exception {
        if (interval.compareTo(Duration.ofMillis(10)) < 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--interval must be at least 10ms, got " + interval);
        }
        if (iterations < 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--iterations must be 0 or more, got " + iterations);
        }
        GraceEpochs.check(spec, graceEpochs);
        FileInspector inspector = new FileInspector(graceEpochs);
        PrintWriter out = spec.commandLine().getOut();
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook =
                new Thread(
                        () -> {
                            stop.countDown();
                            try {
                                // Let the frame being written finish; a frame takes milliseconds.
                                stopped.await(2, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "cxc-watch-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            for (int frame = 1; iterations == 0 || frame <= iterations; frame++) {
                String text = frame(inspector, frame);
                out.print(cxc.isTerminal() ? CLEAR_SCREEN + text : (frame > 1 ? "\n" : "") + text);
                if (out.checkError()) {
                    return Cxc.SOUND; // stdout is closed: nobody is watching any more
                }
                if (frame == iterations || stop.await(interval.toNanos(), TimeUnit.NANOSECONDS)) {
                    break;
                }
            }
            return Cxc.SOUND;
        } finally {
            stopped.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it returns now that the loop has stopped.
            }
        }
    }

    private String frame(FileInspector inspector, int frame) throws java.io.IOException {
        StringBuilder text = new StringBuilder();
        text.append(TITLE)
                .append(path)
                .append("  every ")
                .append(DurationConverter.format(interval))
                .append("  ")
                .append(LocalTime.now().format(CLOCK))
                .append("  refresh ")
                .append(frame)
                .append(iterations == 0 ? "" : " of " + iterations)
                .append(cxc.isTerminal() ? "  (Ctrl-C quits)" : "")
                .append("\n\n");
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            text.append(path).append(" does not exist (yet): waiting for it\n");
        } else {
            text.append(TableView.render(inspector.inspectAll(path)));
        }
        return text.toString();
    }

    /** "500ms", "2s", "1m", "1h", or ISO-8601 ("PT0.5S"). */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

        private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h)");

        @Override
        public Duration convert(String value) {
            Matcher m = SHORT.matcher(value.trim());
            if (m.matches()) {
                long amount = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(amount);
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    default -> Duration.ofHours(amount);
                };
            }
            try {
                return Duration.parse(value.trim());
            } catch (java.time.format.DateTimeParseException e) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a duration: use 500ms, 2s, 1m or PT0.5S");
            }
        }

        static String format(Duration d) {
            long millis = d.toMillis();
            return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
        }
    }
}
