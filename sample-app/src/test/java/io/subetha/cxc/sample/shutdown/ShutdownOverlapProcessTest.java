package io.subetha.cxc.sample.shutdown;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Graceful shutdown of the leader in the middle of a long {@code @LeaderOnly} run, with real JVMs
 * on one cxc directory: the leader refuses new runs, keeps beating while the running one finishes
 * (up to {@code cxc.leader.shutdown-timeout}), and only then steps down, so the successor's first
 * run starts after the old run ended. With the drain off ({@code shutdown-timeout=0s}) the two runs
 * overlap, which shows the test can tell.
 */
class ShutdownOverlapProcessTest {

    private static final Duration STARTUP = Duration.ofSeconds(100);

    @TempDir Path temp;

    private final ChildJvmGroup children = new ChildJvmGroup();

    /** The stopped leader, for the failure messages. */
    private ChildJvm leader;

    @AfterEach
    void stopChildren() {
        children.close();
    }

    /** One {@code RUN} line. */
    private record Run(String edge, long pid, long term, long nanos) {
        static Run parse(String line) {
            String[] f = line.split(" ");
            return new Run(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]));
        }
    }

    private ChildJvm start(int i, String shutdownTimeout, long jobMillis) {
        return children.add(
                ChildJvm.start(
                        "slow-" + i,
                        List.of(
                                "-Xss512k",
                                "-XX:ReservedCodeCacheSize=64m",
                                "-Dslow.job.millis=" + jobMillis),
                        System.getProperty("java.class.path"),
                        SlowJobApplication.class.getName(),
                        List.of(
                                "--spring.main.web-application-type=none",
                                "--spring.main.banner-mode=off",
                                "--spring.application.name=slow",
                                // Not the sample's application.properties: it declares primitives
                                // whose handlers (ReportJobs, OrderShipping) this app lacks.
                                "--spring.config.name=slow",
                                "--cxc.directory=" + temp.resolve("cxc"),
                                "--cxc.leader.shutdown-timeout=" + shutdownTimeout),
                        null));
    }

    /**
     * Starts the leader, then a follower (a later, so higher, PID: it does not preempt), SIGTERMs
     * the leader at the start of a run; returns that run's start, its end (null if the JVM exited
     * first) and the successor's first start.
     */
    private Run[] stopTheLeaderMidRun(String shutdownTimeout, long jobMillis) {
        ChildJvm leader = start(1, shutdownTimeout, jobMillis);
        leader.awaitLine(l -> l.startsWith("RUN start "), STARTUP);
        ChildJvm successor = start(2, shutdownTimeout, jobMillis);
        successor.awaitLine(l -> l.contains("takes part as slot"), STARTUP);
        leader.awaitLine(l -> l.startsWith("RUN end "), Duration.ofSeconds(30));
        Run started =
                Run.parse(
                        leader.awaitLine(l -> l.startsWith("RUN start "), Duration.ofSeconds(30)));
        sigterm(leader); // Boot's graceful shutdown
        Run next =
                Run.parse(
                        successor.awaitLine(
                                l -> l.startsWith("RUN start "), Duration.ofSeconds(60)));
        assertThat(leader.waitForExit(Duration.ofSeconds(30))).isTrue();
        Run ended = null;
        try {
            ended =
                    Run.parse(
                            leader.awaitLine(l -> l.startsWith("RUN end "), Duration.ofSeconds(1)));
        } catch (AssertionError never) {
            // the JVM exited before the run ended
        }
        assertThat(started.pid()).isEqualTo(leader.pid());
        assertThat(next.pid()).isEqualTo(successor.pid());
        assertThat(next.term()).isGreaterThan(started.term());
        this.leader = leader;
        return new Run[] {started, ended, next};
    }

    /**
     * {@code kill -TERM}, not {@link Process#destroy()}: that also closes this side of the child's
     * stdout, and its last lines (the end of the run) would be lost.
     */
    private static void sigterm(ChildJvm child) {
        try {
            Process kill =
                    new ProcessBuilder("kill", "-TERM", Long.toString(child.pid()))
                            .redirectErrorStream(true)
                            .start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(kill.exitValue()).isZero();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theSuccessorsFirstRunStartsAfterTheLeadersLastRunEnded() {
        Run[] runs = stopTheLeaderMidRun("10s", 1500);
        Run leadersEnd = runs[1];
        Run successorsStart = runs[2];
        assertThat(leadersEnd)
                .as(
                        "the leader's run finished before it exited (exit %s)%s",
                        leader.process().exitValue(), leader.diagnostics())
                .isNotNull();
        System.out.printf(
                "graceful shutdown mid-run: the successor started %d ms after the old run"
                        + " ended%n",
                (successorsStart.nanos() - leadersEnd.nanos()) / 1_000_000);
        assertThat(successorsStart.nanos()).isGreaterThan(leadersEnd.nanos());
    }

    @Test
    void withoutTheDrainTheRunsOverlap() {
        // A run far longer than a handover, so that on a loaded machine too the successor starts
        // while the old run is still going.
        Run[] runs = stopTheLeaderMidRun("0s", 5000);
        Run leadersEnd = runs[1];
        Run successorsStart = runs[2];
        // The old run ended after the new one started, or never ended (the JVM exited under it).
        assertThat(leadersEnd == null || leadersEnd.nanos() > successorsStart.nanos())
                .as("overlap without the drain: %s then %s", successorsStart, leadersEnd)
                .isTrue();
    }
}
