package io.subetha.cxc.chaos.crash;

import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.testing.ChildJvm;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The crash harness: keeps N {@link CrashWorker} JVMs running the mixed workload on one directory
 * and, until K kills are done, waits a random moment and then SIGKILLs a random worker (a warm
 * spare takes its place at once, so N stays constant and the run is not bound by JVM start-up) or
 * freezes it with SIGSTOP past every grace and thaws it with SIGCONT. Meanwhile it follows the
 * event log with a reader ({@link EventTrail}). At the end it kills every worker, recovers the
 * files as a survivor would ({@link CrashRecovery}) and checks every history and file ({@link
 * CrashCheck}).
 *
 * <p>It lives in test scope because it starts workers with cxc-core's test harness ({@link
 * ChildJvm}: orphan guard, signals); {@code CrashRunTest} runs it and {@link #main} runs it from an
 * IDE. Exit status 1 when a promise was broken. Every worker is killed in a {@code finally}.
 *
 * <p>Options: {@code --workers 3 --kills 6 --seed 42 --dir target/crash --stop-share 0.3 --pause-ms
 * 1000 --gap-ms 400}
 */
public final class CrashRun {

    /** Run options; see the class comment for the command-line names. */
    public record Options(
            int workers,
            int kills,
            long seed,
            Path dir,
            double stopShare,
            Duration pause,
            Duration gap,
            CrashSettings settings) {

        public Options {
            if (workers < 2 || workers > 16) {
                throw new IllegalArgumentException("workers must be 2..16, got " + workers);
            }
            if (kills < 1) {
                throw new IllegalArgumentException("kills must be positive, got " + kills);
            }
            if (pause.compareTo(settings.longestGrace().multipliedBy(2)) <= 0) {
                throw new IllegalArgumentException(
                        "pause "
                                + pause.toMillis()
                                + " ms must exceed twice the longest grace ("
                                + settings.longestGrace().toMillis()
                                + " ms), so a stopped worker's jobs, claims and lease surely pass"
                                + " to others");
            }
        }

        public static Options parse(String... args) {
            int workers = 3;
            int kills = 6;
            long seed = 42;
            Path dir = Path.of("target", "crash");
            double stopShare = 0.3;
            long pauseMs = 1000;
            long gapMs = 400;
            for (int i = 0; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                String value = args[i + 1];
                switch (args[i]) {
                    case "--workers" -> workers = Integer.parseInt(value);
                    case "--kills" -> kills = Integer.parseInt(value);
                    case "--seed" -> seed = Long.parseLong(value);
                    case "--dir" -> dir = Path.of(value);
                    case "--stop-share" -> stopShare = Double.parseDouble(value);
                    case "--pause-ms" -> pauseMs = Long.parseLong(value);
                    case "--gap-ms" -> gapMs = Long.parseLong(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            return new Options(
                    workers,
                    kills,
                    seed,
                    dir,
                    stopShare,
                    Duration.ofMillis(pauseMs),
                    Duration.ofMillis(gapMs),
                    CrashSettings.defaults());
        }

        String describe() {
            return workers
                    + " workers, "
                    + kills
                    + " kills, seed "
                    + seed
                    + ", stop share "
                    + stopShare
                    + ", pauses "
                    + pause.toMillis()
                    + " ms, faults every 0.."
                    + gap.toMillis()
                    + " ms, "
                    + settings;
        }
    }

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final int SPARES = 2;

    private final Options options;
    private final Path runDir;
    private final Random random;
    private final List<ChildJvm> active = new ArrayList<>();
    private final List<Integer> activeWorkers = new ArrayList<>();
    private final Deque<CompletableFuture<ChildJvm>> spares = new ArrayDeque<>();
    private final List<Fault> faults = new ArrayList<>();
    private final ExecutorService spareStarter =
            Executors.newFixedThreadPool(
                    SPARES,
                    r -> {
                        Thread t = new Thread(r, "spare-starter");
                        t.setDaemon(true);
                        return t;
                    });
    private final BufferedWriter faultLog;
    private int started;

    private CrashRun(Options options, Path runDir) throws IOException {
        this.options = options;
        this.runDir = runDir;
        this.random = new Random(options.seed());
        this.faultLog = Files.newBufferedWriter(runDir.resolve("faults.log"));
    }

    public static void main(String[] args) {
        CrashReport report = run(Options.parse(args));
        System.out.print(report.render());
        System.exit(report.safe() ? 0 : 1);
    }

    /** Runs the crash test and returns its report; the run's files stay in a new directory. */
    public static CrashReport run(Options options) {
        try {
            Files.createDirectories(options.dir());
            Path runDir = Files.createTempDirectory(options.dir(), "run-");
            return new CrashRun(options, runDir).execute();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private CrashReport execute() throws IOException {
        long begin = System.nanoTime();
        CrashFiles files = new CrashFiles(runDir, options.settings());
        createAll(files);
        int kills = 0;
        int stops = 0;
        EventTrail trail;
        try (EventStateLog<Long, Fold> events = files.events()) {
            trail = new EventTrail(events);
            Thread follower = follow(trail);
            try {
                List<CompletableFuture<ChildJvm>> first = new ArrayList<>();
                for (int i = 0; i < options.workers(); i++) {
                    first.add(startSpare());
                }
                for (CompletableFuture<ChildJvm> f : first) {
                    activate(f.join());
                }
                for (int i = 0; i < SPARES; i++) {
                    spares.add(startSpare());
                }
                while (kills < options.kills()) {
                    LockSupport.parkNanos((long) (random.nextDouble() * options.gap().toNanos()));
                    int victim = random.nextInt(active.size());
                    ChildJvm child = active.get(victim);
                    int worker = activeWorkers.get(victim);
                    if (random.nextDouble() < options.stopShare()) {
                        child.suspend();
                        record(Fault.Kind.STOP, worker, child);
                        LockSupport.parkNanos(options.pause().toNanos());
                        record(Fault.Kind.CONT, worker, child);
                        child.resume();
                        stops++;
                    } else {
                        record(Fault.Kind.KILL, worker, child);
                        child.kill();
                        active.remove(victim);
                        activeWorkers.remove(victim);
                        activate(spares.poll().join());
                        spares.add(startSpare());
                        kills++;
                    }
                }
            } finally {
                for (int i = 0; i < active.size(); i++) {
                    record(Fault.Kind.KILL, activeWorkers.get(i), active.get(i));
                    active.get(i).close();
                }
                spares.forEach(s -> s.thenAccept(ChildJvm::close));
                spareStarter.shutdown();
                awaitSpares();
                follower.interrupt();
                faultLog.close();
            }
            joinQuietly(follower);
            CrashRecovery.recover(files);
            trail.poll();
        }
        FileFacts facts = FileFacts.read(files);
        Histories histories = Histories.read(runDir);
        Findings findings = CrashCheck.check(new Evidence(histories, faults, trail, facts));
        CrashReport report =
                new CrashReport(
                        options.describe(),
                        kills,
                        stops,
                        started,
                        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - begin),
                        histories.tornLines(),
                        findings);
        Files.writeString(runDir.resolve("report.txt"), report.render(), StandardCharsets.UTF_8);
        writeTrail(trail);
        return report;
    }

    /** Creates every file before any worker starts, so no worker's open races a creation. */
    private static void createAll(CrashFiles files) {
        files.scheduler().close();
        files.fanout().close();
        files.events().close();
        files.lease().close();
        files.ledger().close();
        files.region().close();
    }

    private static Thread follow(EventTrail trail) {
        Thread follower =
                new Thread(
                        () -> {
                            while (!Thread.currentThread().isInterrupted()) {
                                if (trail.poll() == 0) {
                                    LockSupport.parkNanos(2_000_000);
                                }
                            }
                        },
                        "event-trail");
        follower.setDaemon(true);
        follower.start();
        return follower;
    }

    private static void joinQuietly(Thread thread) {
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitSpares() {
        try {
            if (!spareStarter.awaitTermination(2, TimeUnit.MINUTES)) {
                spareStarter.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private CompletableFuture<ChildJvm> startSpare() {
        int worker = ++started;
        return CompletableFuture.supplyAsync(
                () -> {
                    List<String> args = new ArrayList<>();
                    args.add(runDir.toString());
                    args.add(Integer.toString(worker));
                    args.add(Long.toString(options.seed() * 1_000_003 + worker));
                    args.addAll(options.settings().args());
                    ChildJvm child =
                            ChildJvm.start(
                                    "worker-" + worker,
                                    List.of(),
                                    System.getProperty("java.class.path"),
                                    CrashWorker.class.getName(),
                                    args,
                                    null);
                    try {
                        child.awaitLine("ready"::equals, START_TIMEOUT);
                    } catch (AssertionError e) {
                        child.close();
                        throw e;
                    }
                    return child;
                },
                spareStarter);
    }

    private void activate(ChildJvm child) {
        int worker = Integer.parseInt(child.name().substring("worker-".length()));
        record(Fault.Kind.START, worker, child);
        child.send("go");
        child.awaitLine("running"::equals, START_TIMEOUT);
        active.add(child);
        activeWorkers.add(worker);
    }

    private void record(Fault.Kind kind, int worker, ChildJvm child) {
        Fault fault = new Fault(kind, worker, child.pid(), System.nanoTime());
        faults.add(fault);
        try {
            faultLog.write(fault.format());
            faultLog.newLine();
            faultLog.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void writeTrail(EventTrail trail) throws IOException {
        try (BufferedWriter out = Files.newBufferedWriter(runDir.resolve("trail.log"))) {
            for (EventTrail.Entry e : trail.entries()) {
                out.write(e.sequence() + " " + e.event());
                out.newLine();
            }
        }
    }
}
