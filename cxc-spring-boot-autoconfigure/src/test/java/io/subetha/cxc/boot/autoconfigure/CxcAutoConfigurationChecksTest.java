package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.aop.LeaderOnlyDrain;
import io.subetha.cxc.boot.ticker.LeaderTicker;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The core auto-configuration's own checks, each at its edge: the leader's tick and grace bounds
 * (core's record's, reported against the property) and the heartbeat's (mapped directly: no context
 * needed), {@code cxc.leader.shutdown-timeout} against the shutdown phase, the ZooKeeper backend
 * asked for without its module, and what a process that takes no part in the election says at
 * startup.
 */
class CxcAutoConfigurationChecksTest {

    @TempDir Path temp;

    private LogLines log;

    @BeforeEach
    void logs() {
        log = LogLines.of(CxcAutoConfiguration.class);
    }

    @AfterEach
    void close() {
        log.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"), "cxc.leader.tick-interval=1h");
    }

    private static CxcProperties.Leader leader(Duration tickInterval, long graceEpochs) {
        CxcProperties.Leader leader = new CxcProperties().getLeader();
        leader.setTickInterval(tickInterval);
        leader.setGraceEpochs(graceEpochs);
        return leader;
    }

    private static Consumer<InvalidCxcPropertyException> refused(
            String property, Object value, String reason) {
        return e -> {
            assertThat(e.property()).isEqualTo(property);
            assertThat(e.value()).isEqualTo(value);
            assertThat(e.reason()).isEqualTo(reason);
        };
    }

    private static void assertRefused(
            Runnable check, String property, Object value, String reason) {
        assertThatThrownBy(check::run)
                .isInstanceOfSatisfying(
                        InvalidCxcPropertyException.class, refused(property, value, reason));
    }

    private static void assertStartupRefused(
            AssertableApplicationContext context, String property, Object value, String reason) {
        assertThat(context).hasFailed();
        Throwable cause = context.getStartupFailure();
        while (!(cause instanceof InvalidCxcPropertyException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        assertThat(cause)
                .isInstanceOfSatisfying(
                        InvalidCxcPropertyException.class, refused(property, value, reason));
    }

    @Test
    void theTickIntervalIsOneMillisecondToOneHourAndPositive() {
        for (Duration ok : new Duration[] {Duration.ofMillis(1), Duration.ofHours(1)}) {
            assertThatNoException().isThrownBy(() -> CxcSettings.leader(leader(ok, 3)));
        }
        for (Duration tooFine : new Duration[] {Duration.ofNanos(999_999), Duration.ofNanos(1)}) {
            assertRefused(
                    () -> CxcSettings.leader(leader(tooFine, 3)),
                    "cxc.leader.tick-interval",
                    tooFine,
                    "it must be 1 ms..1 h");
        }
        Duration tooLong = Duration.ofHours(1).plusNanos(1);
        assertRefused(
                () -> CxcSettings.leader(leader(tooLong, 3)),
                "cxc.leader.tick-interval",
                tooLong,
                "it must be 1 ms..1 h");
        for (Duration notPositive : new Duration[] {Duration.ZERO, Duration.ofMillis(-50), null}) {
            assertRefused(
                    () -> CxcSettings.leader(leader(notPositive, 3)),
                    "cxc.leader.tick-interval",
                    notPositive,
                    "it must be 1 ms..1 h");
        }
    }

    @Test
    void theGraceIsZeroToTheElectionFilesMaximum() {
        long max = SharedLeaderElection.Settings.MAX_GRACE_EPOCHS;
        for (long ok : new long[] {0, max}) {
            assertThatNoException()
                    .isThrownBy(() -> CxcSettings.leader(leader(Duration.ofMillis(50), ok)));
        }
        assertRefused(
                () -> CxcSettings.leader(leader(Duration.ofMillis(50), -1)),
                "cxc.leader.grace-epochs",
                -1L,
                "it must be 0.." + max);
        assertRefused(
                () -> CxcSettings.leader(leader(Duration.ofMillis(50), max + 1)),
                "cxc.leader.grace-epochs",
                max + 1,
                "it must be 0.." + max);
    }

    @Test
    void theLeaderAndHeartbeatNamesArePlainFileNamesAndTheHeartbeatGraceIsZeroOrMore() {
        CxcProperties.Leader leader = leader(Duration.ofMillis(50), 3);
        leader.setName("../leader");
        assertThatThrownBy(() -> CxcSettings.leader(leader))
                .isInstanceOfSatisfying(
                        InvalidCxcPropertyException.class,
                        e -> assertThat(e.property()).isEqualTo("cxc.leader.name"));

        CxcProperties.Heartbeat heartbeat = new CxcProperties().getHeartbeat();
        heartbeat.setGraceEpochs(0);
        assertThatNoException().isThrownBy(() -> CxcSettings.heartbeat(heartbeat));
        heartbeat.setGraceEpochs(-1);
        assertRefused(
                () -> CxcSettings.heartbeat(heartbeat),
                "cxc.heartbeat.grace-epochs",
                -1L,
                "it must be 0 or more");
    }

    @Test
    void aBadLeaderValueIsRefusedByNameBeforeTheElectionFileIsWritten() {
        runner().withPropertyValues("cxc.heartbeat.enabled=false", "cxc.leader.grace-epochs=-1")
                .run(
                        context ->
                                assertStartupRefused(
                                        context,
                                        "cxc.leader.grace-epochs",
                                        -1L,
                                        "it must be 0.."
                                                + SharedLeaderElection.Settings.MAX_GRACE_EPOCHS));
        assertThat(temp.resolve("cxc").resolve("leader.cxc")).doesNotExist();
    }

    @Test
    void theTickerChecksItsOwnValuesOverAnApplicationsElectionBean() {
        Path file = temp.resolve("mine.cxc");
        runner().withPropertyValues("cxc.heartbeat.enabled=false", "cxc.leader.tick-interval=0s")
                .withBean(
                        SharedLeaderElection.class,
                        () -> SharedLeaderElection.openOrCreate(file),
                        definition -> definition.setDestroyMethodName("close"))
                .run(
                        context ->
                                assertStartupRefused(
                                        context,
                                        "cxc.leader.tick-interval",
                                        Duration.ZERO,
                                        "it must be 1 ms..1 h"));
    }

    @Test
    void theShutdownTimeoutMustBeZeroOrMoreAndShorterThanTheShutdownPhase() {
        runner().withPropertyValues("cxc.leader.shutdown-timeout=30s")
                .run(
                        context ->
                                assertStartupRefused(
                                        context,
                                        "cxc.leader.shutdown-timeout",
                                        Duration.ofSeconds(30),
                                        "it must be 0 or more and shorter than"
                                                + " spring.lifecycle.timeout-per-shutdown-phase"
                                                + " (PT30S), within which the whole shutdown phase"
                                                + " must end"));
        runner().withPropertyValues("cxc.leader.shutdown-timeout=-1ms")
                .run(
                        context ->
                                assertStartupRefused(
                                        context,
                                        "cxc.leader.shutdown-timeout",
                                        Duration.ofMillis(-1),
                                        "it must be 0 or more and shorter than"
                                                + " spring.lifecycle.timeout-per-shutdown-phase"
                                                + " (PT30S), within which the whole shutdown phase"
                                                + " must end"));
        // Bound as Boot binds it, in a bare context too (its environment converts no Duration).
        runner().withPropertyValues(
                        "cxc.leader.shutdown-timeout=30s",
                        "spring.lifecycle.timeout-per-shutdown-phase=31s")
                .run(
                        context ->
                                assertThat(context)
                                        .hasNotFailed()
                                        .hasSingleBean(LeaderOnlyDrain.class));
        runner().withPropertyValues(
                        "cxc.leader.shutdown-timeout=10s",
                        "spring.lifecycle.timeout-per-shutdown-phase=5s")
                .run(
                        context ->
                                assertStartupRefused(
                                        context,
                                        "cxc.leader.shutdown-timeout",
                                        Duration.ofSeconds(10),
                                        "it must be 0 or more and shorter than"
                                                + " spring.lifecycle.timeout-per-shutdown-phase"
                                                + " (PT5S), within which the whole shutdown phase"
                                                + " must end"));
        runner().withPropertyValues("cxc.leader.shutdown-timeout=0s")
                .run(
                        context ->
                                assertThat(context)
                                        .hasNotFailed()
                                        .hasSingleBean(LeaderOnlyDrain.class));
    }

    @Test
    void theZooKeeperBackendAskedForWithoutItsModuleFailsStartupNamingWhatAskedForIt() {
        String reason = "the ZooKeeper backend (module cxc-zookeeper) is not on the classpath";
        runner().withPropertyValues("cxc.leader.backend=zookeeper")
                .run(
                        context ->
                                assertStartupRefused(
                                        context, "cxc.leader.backend", "zookeeper", reason));
        runner().withPropertyValues("cxc.zookeeper.connect-string=zk1:2181")
                .run(
                        context ->
                                assertStartupRefused(
                                        context,
                                        "cxc.zookeeper.connect-string",
                                        "zk1:2181",
                                        reason));
        // Asked for this host's election, or a blank connect string: this host's leadership.
        runner().withPropertyValues(
                        "cxc.leader.backend=local", "cxc.zookeeper.connect-string=zk1:2181")
                .run(
                        context ->
                                assertThat(context.getBean(CxcLeadership.class))
                                        .isExactlyInstanceOf(
                                                context.getBean(LeaderTicker.class)
                                                        .leadership()
                                                        .getClass()));
        runner().withPropertyValues("cxc.zookeeper.connect-string= ")
                .run(
                        context ->
                                assertThat(context.getBean(CxcLeadership.class).isLeader())
                                        .isTrue());
    }

    @Test
    void aProcessOutOfTheElectionSaysWhichSwitchIsOffAtTheLevelItDeserves() {
        runner().withPropertyValues("cxc.leader.enabled=false")
                .run(
                        context ->
                                assertThat(context.getBean(CxcLeadership.class))
                                        .hasToString(
                                                "CxcLeadership[pid="
                                                        + Pids.current()
                                                        + ", not taking part:"
                                                        + " cxc.leader.enabled=false]"));
        assertThat(log.lines())
                .containsExactly(
                        "INFO cxc: cxc.leader.enabled=false: this process never leads; @LeaderOnly"
                                + " methods are skipped here");
        runner().withPropertyValues("cxc.enabled=false")
                .run(
                        context ->
                                assertThat(context.getBean(CxcLeadership.class))
                                        .hasToString(
                                                "CxcLeadership[pid="
                                                        + Pids.current()
                                                        + ", not taking part: cxc.enabled=false]"));
        assertThat(log.lines())
                .hasSize(2)
                .last()
                .asString()
                .startsWith("WARN cxc is off (cxc.enabled=false)");
    }
}
