package io.subetha.cxc.zookeeper;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Simulated hosts, each a directory of its own with its own {@link TierChild} processes, all on one
 * ZooKeeper latch and one shared ledger. Every child's stdout is collected in the background into
 * its {@link Member} record, so a test can ask at any time who leads, under which term, since when.
 */
final class Fleet implements AutoCloseable {

    static final long TICK_MILLIS = 50;

    /**
     * One line of a child's output, with the child's own CLOCK_MONOTONIC stamp where it has one.
     */
    record Line(String text, long receivedNanos) {}

    /** One child process of one host. */
    static final class Member {
        final String host;
        final ChildJvm jvm;
        final List<Line> lines = new ArrayList<>();
        volatile long killedNanos = -1;

        Member(String host, ChildJvm jvm) {
            this.host = host;
            this.jvm = jvm;
        }

        long pid() {
            return jvm.pid();
        }

        synchronized List<Line> lines() {
            return List.copyOf(lines);
        }

        /** The last {@code global} line's term: -1 when not leading (or never said). */
        long globalTerm() {
            List<Line> all = lines();
            for (int i = all.size() - 1; i >= 0; i--) {
                String[] w = all.get(i).text().split(" ");
                if (w[0].equals("global")) {
                    return Long.parseLong(w[1]);
                }
            }
            return -1;
        }

        /** The last {@code view} line: who leads globally as this process sees it. */
        Optional<String[]> view() {
            List<Line> all = lines();
            for (int i = all.size() - 1; i >= 0; i--) {
                String[] w = all.get(i).text().split(" ");
                if (w[0].equals("view")) {
                    return Optional.of(w);
                }
            }
            return Optional.empty();
        }

        /** Leading intervals [gained, until) in CLOCK_MONOTONIC nanos, with their terms. */
        List<long[]> leadingIntervals(long nowNanos) {
            List<long[]> intervals = new ArrayList<>();
            long term = -1;
            long since = 0;
            for (Line line : lines()) {
                String[] w = line.text().split(" ");
                if (!w[0].equals("global")) {
                    continue;
                }
                long t = Long.parseLong(w[1]);
                long at = Long.parseLong(w[2]);
                if (term != -1) {
                    intervals.add(new long[] {since, at, term});
                }
                term = t;
                since = at;
            }
            if (term != -1) {
                long end = killedNanos >= 0 ? killedNanos : nowNanos;
                intervals.add(new long[] {since, end, term});
            }
            return intervals;
        }

        /**
         * The CLOCK_MONOTONIC time of the first {@code global <term>} line with term > {@code
         * above}.
         */
        Optional<long[]> firstGainAbove(long above) {
            for (Line line : lines()) {
                String[] w = line.text().split(" ");
                if (w[0].equals("global") && Long.parseLong(w[1]) > above) {
                    return Optional.of(new long[] {Long.parseLong(w[1]), Long.parseLong(w[2])});
                }
            }
            return Optional.empty();
        }

        @Override
        public String toString() {
            return host + "/" + jvm.pid();
        }
    }

    private final ChildJvmGroup group = new ChildJvmGroup();
    private final Path root;
    private final String connectString;
    private final String latchPath;
    private final Duration session;
    private final Duration connection;
    private final Path ledger;
    private final Map<String, List<Member>> hosts = new LinkedHashMap<>();
    private final List<Member> everyone = new ArrayList<>();
    private final Map<Long, Long> killed = new ConcurrentHashMap<>();
    private int started;

    Fleet(Path root, String connectString, String latchPath, Duration session, Duration connection)
            throws Exception {
        this.root = Files.createDirectories(root);
        this.connectString = connectString;
        this.latchPath = latchPath;
        this.session = session;
        this.connection = connection;
        this.ledger = root.resolve("global-ledger.cxc");
    }

    Path hostDirectory(String host) {
        return root.resolve(host);
    }

    Path ledger() {
        return ledger;
    }

    /** Starts a process on {@code host} and waits until it says ready. */
    synchronized Member start(String host) {
        ChildJvm jvm =
                group.add(
                        ChildJvm.start(
                                host + "-" + (++started),
                                List.of(),
                                System.getProperty("java.class.path"),
                                TierChild.class.getName(),
                                List.of(
                                        hostDirectory(host).toString(),
                                        connectString,
                                        latchPath,
                                        host,
                                        Long.toString(session.toMillis()),
                                        Long.toString(connection.toMillis()),
                                        Long.toString(TICK_MILLIS),
                                        ledger.toString()),
                                null));
        jvm.awaitPrefixed("ready ", Duration.ofSeconds(60));
        Member member = new Member(host, jvm);
        hosts.computeIfAbsent(host, h -> new ArrayList<>()).add(member);
        everyone.add(member);
        collect(
                jvm,
                text -> {
                    synchronized (member) {
                        member.lines.add(new Line(text, System.nanoTime()));
                    }
                });
        return member;
    }

    /**
     * Hands every stdout line of {@code jvm} to {@code sink}, on a daemon thread, until it exits.
     */
    static void collect(ChildJvm jvm, java.util.function.Consumer<String> sink) {
        Thread collector =
                new Thread(
                        () -> {
                            while (true) {
                                String text;
                                try {
                                    text = jvm.readLine(Duration.ofSeconds(2));
                                } catch (AssertionError timeout) {
                                    if (!jvm.isAlive()) {
                                        return;
                                    }
                                    continue;
                                }
                                sink.accept(text);
                            }
                        },
                        "collect-" + jvm.name());
        collector.setDaemon(true);
        collector.start();
    }

    synchronized List<Member> alive() {
        return everyone.stream().filter(m -> m.jvm.isAlive()).toList();
    }

    synchronized List<Member> everyone() {
        return List.copyOf(everyone);
    }

    synchronized List<Member> aliveOn(String host) {
        return hosts.getOrDefault(host, List.of()).stream().filter(m -> m.jvm.isAlive()).toList();
    }

    /** SIGKILL; the member's leading interval ends when the process is gone. */
    void kill(Member member) {
        member.jvm.process().destroyForcibly();
        member.jvm.waitForExit(Duration.ofSeconds(30));
        member.killedNanos = System.nanoTime();
        killed.put(member.pid(), member.killedNanos);
    }

    /** PIDs the test SIGKILLed, with when they were gone. */
    Map<Long, Long> killed() {
        return Map.copyOf(killed);
    }

    /** The living members that say they lead globally now. */
    List<Member> leaders() {
        return alive().stream().filter(m -> m.globalTerm() != -1).toList();
    }

    /**
     * Every pair of leading intervals of two different processes that overlap, as text; empty when
     * no two processes ever led at once.
     */
    List<String> overlaps() {
        long now = System.nanoTime();
        List<String> found = new ArrayList<>();
        List<Member> all = everyone();
        for (int i = 0; i < all.size(); i++) {
            for (int j = i + 1; j < all.size(); j++) {
                for (long[] a : all.get(i).leadingIntervals(now)) {
                    for (long[] b : all.get(j).leadingIntervals(now)) {
                        long overlap = Math.min(a[1], b[1]) - Math.max(a[0], b[0]);
                        if (overlap > 0) {
                            found.add(
                                    all.get(i)
                                            + " term "
                                            + a[2]
                                            + " and "
                                            + all.get(j)
                                            + " term "
                                            + b[2]
                                            + " overlapped "
                                            + overlap / 1_000
                                            + " µs");
                        }
                    }
                }
            }
        }
        return found;
    }

    /** Every {@code accepted <term> <nanos>} line of every member: [term, nanos, pid]. */
    List<long[]> acceptedWrites() {
        List<long[]> writes = new ArrayList<>();
        for (Member m : everyone()) {
            for (Line line : m.lines()) {
                String[] w = line.text().split(" ");
                if (w[0].equals("accepted")) {
                    writes.add(new long[] {Long.parseLong(w[1]), Long.parseLong(w[2]), m.pid()});
                }
            }
        }
        return writes;
    }

    /** Every {@code rejected} line of every member, as text. */
    List<String> rejectedWrites() {
        List<String> rejected = new ArrayList<>();
        for (Member m : everyone()) {
            for (Line line : m.lines()) {
                if (line.text().startsWith("rejected ")) {
                    rejected.add(m + ": " + line.text());
                }
            }
        }
        return rejected;
    }

    /** Diagnostics of every member, for assertion messages. */
    String describe() {
        StringBuilder text = new StringBuilder();
        for (Member m : everyone()) {
            text.append("\n== ").append(m).append(m.jvm.isAlive() ? "" : " (dead)").append('\n');
            m.lines().stream()
                    .skip(Math.max(0, m.lines().size() - 15))
                    .forEach(l -> text.append("   ").append(l.text()).append('\n'));
        }
        return text.toString();
    }

    @Override
    public void close() {
        group.close();
    }
}
