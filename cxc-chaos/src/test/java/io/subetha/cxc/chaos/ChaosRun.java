package io.subetha.cxc.chaos;

import io.subetha.cxc.chaos.ChaosEvent.Kind;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.election.LeaderElectionDescriptor;
import io.subetha.cxc.election.LeaderSnapshot;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.ProcessProbe;
import io.subetha.cxc.process.ProcessStatus;
import io.subetha.cxc.testing.ChildJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;

/**
 * The chaos harness: keeps N participant JVMs ({@link ChaosParticipant}) on one election file and,
 * for K handovers, waits for a settled leader, then SIGKILLs it, stops it gracefully (SIGTERM), or
 * freezes it (SIGSTOP) past the grace window and thaws it (SIGCONT), or replaces the election file
 * under every running participant (REPLACE). A killed or stopped leader is replaced by a warm spare
 * JVM started ahead, so N stays constant and the run is not bound by JVM start-up. Afterwards
 * {@link ChaosAnalysis} computes the figures from every participant's log.
 *
 * <p>It lives in test scope because it launches participants with cxc-core's test harness ({@link
 * ChildJvm}: orphan guard, signals); {@code ChaosRunTest} runs it, and {@link #main} runs it from
 * an IDE. Exit status 1 when a safety figure is broken.
 *
 * <p>Options: {@code --participants 3 --handovers 30 --seed 42 --dir target/chaos --tick-ms 50
 * --grace 3 --work-ms 10 --pause-ms 600}
 */
public final class ChaosRun {

    /** Run options; see the class comment for the command-line names. */
    public record Options(
            int participants,
            int handovers,
            long seed,
            Path dir,
            Duration tick,
            long graceEpochs,
            Duration work,
            Duration pause) {

        public Options {
            if (participants < 2 || participants > 16) {
                throw new IllegalArgumentException(
                        "participants must be 2..16, got " + participants);
            }
            if (handovers < 1) {
                throw new IllegalArgumentException("handovers must be positive");
            }
            long graceWindow = (graceEpochs + 1) * tick.toNanos();
            if (pause.toNanos() <= 2 * graceWindow) {
                throw new IllegalArgumentException(
                        "pause "
                                + pause.toMillis()
                                + " ms must exceed twice the grace window ("
                                + graceWindow / 1_000_000
                                + " ms) so a successor surely takes over during it");
            }
        }

        public static Options parse(String... args) {
            int participants = 3;
            int handovers = 30;
            long seed = 42;
            Path dir = Path.of("target", "chaos");
            long tickMs = 50;
            long grace = 3;
            long workMs = 10;
            long pauseMs = 600;
            for (int i = 0; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                String value = args[i + 1];
                switch (args[i]) {
                    case "--participants" -> participants = Integer.parseInt(value);
                    case "--handovers" -> handovers = Integer.parseInt(value);
                    case "--seed" -> seed = Long.parseLong(value);
                    case "--dir" -> dir = Path.of(value);
                    case "--tick-ms" -> tickMs = Long.parseLong(value);
                    case "--grace" -> grace = Long.parseLong(value);
                    case "--work-ms" -> workMs = Long.parseLong(value);
                    case "--pause-ms" -> pauseMs = Long.parseLong(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            return new Options(
                    participants,
                    handovers,
                    seed,
                    dir,
                    Duration.ofMillis(tickMs),
                    grace,
                    Duration.ofMillis(workMs),
                    Duration.ofMillis(pauseMs));
        }

        ChaosReport.Setup setup() {
            return new ChaosReport.Setup(
                    participants, handovers, seed, tick, graceEpochs, work, pause);
        }
    }

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);
    private static final double PAUSE_SHARE = 1.0 / 7;
    private static final double STOP_SHARE = 1.0 / 5;
    private static final double REPLACE_SHARE = 1.0 / 12;

    /** {@code -Dchaos.preemption=none}: participants run with stable leadership. */
    private static final boolean STABLE = "none".equals(System.getProperty("chaos.preemption"));

    private final Options options;
    private final Path runDir;
    private final Path logDir;
    private final Random random;
    private final List<ChildJvm> active = new ArrayList<>();
    private final List<ChaosEvent> events = new ArrayList<>();
    private final ExecutorService spareStarter =
            Executors.newSingleThreadExecutor(
                    r -> {
                        Thread t = new Thread(r, "spare-starter");
                        t.setDaemon(true);
                        return t;
                    });
    private int started;

    private ChaosRun(Options options, Path runDir) {
        this.options = options;
        this.runDir = runDir;
        this.logDir = runDir.resolve("logs");
        this.random = new Random(options.seed());
    }

    public static void main(String[] args) {
        ChaosReport report = run(Options.parse(args));
        System.out.print(report.render());
        System.exit(report.safe() ? 0 : 1);
    }

    /** Runs the chaos and returns its figures; the run's files stay in a new directory. */
    public static ChaosReport run(Options options) {
        try {
            Files.createDirectories(options.dir());
            Path runDir = Files.createTempDirectory(options.dir(), "run-");
            return new ChaosRun(options, runDir).execute();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ChaosReport execute() throws IOException {
        Files.createDirectories(logDir);
        Path electionFile = runDir.resolve("leader.cxc");
        Path ledgerFile = runDir.resolve("ledger.cxc");
        long rejectedStale;
        long rejectedConflict;
        SharedLeaderElection election = SharedLeaderElection.TYPE.create(electionFile, settings());
        try (FencedLedger ledger =
                FencedLedger.TYPE.create(ledgerFile, FencedLedger.Settings.NONE)) {
            try {
                List<CompletableFuture<ChildJvm>> first = new ArrayList<>();
                for (int i = 0; i < options.participants(); i++) {
                    first.add(startSpare(electionFile, ledgerFile));
                }
                for (CompletableFuture<ChildJvm> f : first) {
                    activate(f.join());
                }
                CompletableFuture<ChildJvm> spare = startSpare(electionFile, ledgerFile);
                for (int i = 0; i < options.handovers(); i++) {
                    ChildJvm leader = awaitSettledLeader(election);
                    long term = LeaderElectionDescriptor.term(election.leaderWord());
                    // A random phase against the ticks, so faults land anywhere in the loop.
                    LockSupport.parkNanos(Duration.ofMillis(10 + random.nextInt(90)).toNanos());
                    double dice = random.nextDouble();
                    Kind kind =
                            dice < PAUSE_SHARE
                                    ? Kind.PAUSE
                                    : dice < PAUSE_SHARE + STOP_SHARE
                                            ? Kind.STOP
                                            : dice < PAUSE_SHARE + STOP_SHARE + REPLACE_SHARE
                                                    ? Kind.REPLACE
                                                    : Kind.KILL;
                    long startTime = ProcessProbe.startTime(leader.pid());
                    switch (kind) {
                        case KILL -> {
                            long at = System.nanoTime();
                            leader.process().destroyForcibly();
                            long dead = awaitDead(leader.pid(), startTime);
                            record(new ChaosEvent(kind, leader.pid(), term, at, dead, 0));
                            spare = replace(leader, spare, electionFile, ledgerFile);
                        }
                        case STOP -> {
                            long at = System.nanoTime();
                            leader.process().destroy();
                            long dead = awaitDead(leader.pid(), startTime);
                            record(new ChaosEvent(kind, leader.pid(), term, at, dead, 0));
                            spare = replace(leader, spare, electionFile, ledgerFile);
                        }
                        case PAUSE -> {
                            long at = System.nanoTime();
                            leader.suspend();
                            // The fault itself: the process stays frozen this long, while we
                            // watch for the moment its heartbeat goes stale.
                            long stale = watchFrozen(election, leader.pid(), term, at);
                            long resumed = System.nanoTime(); // it cannot run before SIGCONT
                            leader.resume();
                            record(new ChaosEvent(kind, leader.pid(), term, at, stale, resumed));
                        }
                        case REPLACE -> {
                            long at = System.nanoTime();
                            replaceFile(electionFile, term);
                            long replaced = System.nanoTime();
                            election.close();
                            election = SharedLeaderElection.open(electionFile);
                            record(new ChaosEvent(kind, leader.pid(), term, at, replaced, 0));
                        }
                    }
                }
                awaitSettledLeader(election); // the last successor beats before we stop
                spare.join().close();
            } finally {
                rejectedStale = ledger.rejectedStaleWrites();
                rejectedConflict = ledger.rejectedConflictingWrites();
                active.forEach(ChildJvm::close);
                spareStarter.shutdownNow();
            }
        } finally {
            election.close();
        }
        ChaosReport report =
                ChaosAnalysis.analyse(
                        options.setup(),
                        events,
                        ChaosAnalysis.readLogs(logDir),
                        rejectedStale,
                        rejectedConflict);
        Files.writeString(runDir.resolve("report.txt"), report.render(), StandardCharsets.UTF_8);
        return report;
    }

    /**
     * Deletes the election file under the running participants and puts a new one in its place, as
     * a tmp cleaner and then a newcomer would. The new file's term is set to the old one's, so that
     * a participant still leading the orphaned file and one leading the new file would claim the
     * same next term, which the split-brain figure would catch (with the boot-seconds seed alone,
     * they would only lead different terms at once).
     */
    private SharedLeaderElection.Settings settings() {
        return new SharedLeaderElection.Settings(options.tick(), options.graceEpochs());
    }

    private void replaceFile(Path electionFile, long term) throws IOException {
        Path fresh = electionFile.resolveSibling(electionFile.getFileName() + ".new");
        try (SharedLeaderElection created = SharedLeaderElection.TYPE.create(fresh, settings())) {
            created.raiseTermFloor(term);
        }
        Files.delete(electionFile);
        Files.move(fresh, electionFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private CompletableFuture<ChildJvm> startSpare(Path electionFile, Path ledgerFile) {
        int number = ++started;
        return CompletableFuture.supplyAsync(
                () -> {
                    ChildJvm child =
                            ChildJvm.start(
                                    "participant-" + number,
                                    List.of(),
                                    System.getProperty("java.class.path"),
                                    ChaosParticipant.class.getName(),
                                    List.of(
                                            electionFile.toString(),
                                            ledgerFile.toString(),
                                            logDir.toString(),
                                            Long.toString(options.tick().toMillis()),
                                            Long.toString(options.graceEpochs()),
                                            Long.toString(options.work().toMillis()),
                                            System.getProperty("chaos.preemption", "lowest-pid")),
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
        child.send("go");
        child.awaitLine("ticking"::equals, START_TIMEOUT);
        active.add(child);
    }

    /** The warm spare takes the victim's place; a new spare starts in the background. */
    private CompletableFuture<ChildJvm> replace(
            ChildJvm victim,
            CompletableFuture<ChildJvm> spare,
            Path electionFile,
            Path ledgerFile) {
        active.remove(victim);
        activate(spare.join());
        victim.waitForExit(Duration.ofSeconds(30));
        victim.close();
        return startSpare(electionFile, ledgerFile);
    }

    /**
     * Waits until the leader is the lowest PID of the active participants (which no one preempts)
     * and that participant has logged its gain of the current term.
     */
    private ChildJvm awaitSettledLeader(SharedLeaderElection election) {
        long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
        ChildJvm lowest =
                active.stream().min((a, b) -> Long.compare(a.pid(), b.pid())).orElseThrow();
        while (System.nanoTime() - deadline < 0) {
            long word = election.leaderWord();
            long leaderPid = LeaderElectionDescriptor.leaderPid(word);
            // Without preemption nobody takes the seat from a healthy leader: any active one is
            // settled. With it, only the lowest is.
            ChildJvm leader =
                    STABLE
                            ? active.stream()
                                    .filter(j -> j.pid() == leaderPid)
                                    .findFirst()
                                    .orElse(null)
                            : leaderPid == lowest.pid() ? lowest : null;
            if (leader != null) {
                String gained = "gained " + LeaderElectionDescriptor.term(word);
                leader.awaitLine(gained::equals, SETTLE_TIMEOUT);
                if (election.leaderWord() == word) {
                    return leader;
                }
            }
            LockSupport.parkNanos(1_000_000);
        }
        throw new IllegalStateException(
                "no settled leader within "
                        + SETTLE_TIMEOUT
                        + ": the file says "
                        + election
                        + ", the lowest participant is "
                        + lowest
                        + lowest.diagnostics());
    }

    /**
     * Polls {@code /proc} as the participants do until the victim shows dead.
     *
     * @return when it was first seen dead, or 0 if not within 10 s
     */
    private static long awaitDead(long pid, long startTime) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (ProcessProbe.status(pid, startTime) == ProcessStatus.DEAD) {
                return System.nanoTime();
            }
            LockSupport.parkNanos(1_000_000); // 1 ms: fine enough, light on a busy host
        }
        return 0;
    }

    /**
     * Keeps the victim frozen for the pause, watching the election file.
     *
     * @return when its heartbeat was first seen more than grace epochs behind (or the leadership
     *     already moved on), or 0 if neither happened during the pause
     */
    private long watchFrozen(SharedLeaderElection election, long pid, long term, long frozenAt) {
        long end = frozenAt + options.pause().toNanos();
        long detectable = 0;
        while (System.nanoTime() - end < 0) {
            if (detectable == 0) {
                LeaderSnapshot s = election.snapshot();
                boolean moved = s.leaderPid() != pid || s.term() != term;
                if (moved || s.isStale(options.graceEpochs())) {
                    detectable = System.nanoTime();
                }
            }
            LockSupport.parkNanos(Math.min(1_000_000, Math.max(0, end - System.nanoTime())));
        }
        return detectable;
    }

    private void record(ChaosEvent event) {
        events.add(event);
        try {
            Files.writeString(
                    runDir.resolve("events.log"),
                    event.format() + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
