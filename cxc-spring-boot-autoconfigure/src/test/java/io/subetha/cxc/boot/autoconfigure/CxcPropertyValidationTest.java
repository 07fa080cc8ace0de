package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.election.SharedLeaderElection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/**
 * Each refused {@code cxc.*} value fails startup with a failure analysis naming the property, why,
 * and the fix. Permission rules are checked on owner and mode bits, so they hold under root too.
 * The analyses seen are written to {@code target/bad-property-catalogue.tsv} for
 * docs/RELIABILITY.md.
 */
@ExtendWith(OutputCaptureExtension.class)
class CxcPropertyValidationTest {

    private static final Map<String, String> OBSERVED = new TreeMap<>();

    @TempDir Path temp;

    @AfterAll
    static void writeObservedAnalyses() throws IOException {
        List<String> lines = new ArrayList<>();
        OBSERVED.forEach((properties, seen) -> lines.add(properties + "\t" + seen));
        Path out = Path.of("target", "bad-property-catalogue.tsv");
        Files.createDirectories(out.getParent());
        Files.write(out, lines);
    }

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class));

    private FailureAnalysis failure(String... properties) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.withPropertyValues(properties)
                .run(
                        (AssertableApplicationContext context) -> {
                            assertThat(context).hasFailed();
                            Throwable failure = context.getStartupFailure();
                            analysis[0] =
                                    new InvalidCxcPropertyFailureAnalyzer(null).analyze(failure);
                            assertThat(analysis[0])
                                    .as("a cxc failure analysis of %s", failure)
                                    .isNotNull();
                        });
        OBSERVED.put(
                String.join(" ", properties).replace(temp.toString(), "<dir>"),
                (analysis[0].getDescription() + "\t" + analysis[0].getAction())
                        .replace(temp.toString(), "<dir>")
                        .replace("\n", " "));
        return analysis[0];
    }

    private String dir(Path path) {
        return "cxc.directory=" + path;
    }

    /**
     * A real startup, as a user sees it: Boot's report of an invalid property, with the value as
     * typed, the file and line it came from, the reason, and the fix as the action.
     */
    @Test
    void theReportNamesTheValueAsTypedAndWhereItCameFrom(CapturedOutput output) throws IOException {
        Path properties = temp.resolve("bad1.properties");
        Files.writeString(properties, "cxc.leader.tick-interval=0ms\n");
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        assertThatThrownBy(
                        () ->
                                application.run(
                                        "--spring.config.location=file:" + properties,
                                        "--cxc.directory=" + temp.resolve("d")))
                .hasRootCauseInstanceOf(InvalidConfigurationPropertyValueException.class);
        assertThat(output)
                .contains(
                        "APPLICATION FAILED TO START",
                        "Invalid value '0ms' for configuration property 'cxc.leader.tick-interval'"
                                + " (originating from 'URL [file:"
                                + properties
                                + "] - 1:26')",
                        "Reason: it must be 1 ms..1 h",
                        "Set cxc.leader.tick-interval to e.g. 50ms (the default).");
        assertThat(temp.resolve("d")).doesNotExist();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(CxcAutoConfiguration.class)
    static class Application {}

    @Test
    void negativeGraceEpochs() {
        FailureAnalysis analysis = failure(dir(temp.resolve("d")), "cxc.leader.grace-epochs=-1");
        assertThat(analysis.getDescription())
                .contains("'cxc.leader.grace-epochs'", "'-1'", "must be 0..1000000");
        assertThat(analysis.getAction()).contains("cxc.leader.grace-epochs");
        assertThat(analysis.getCause()).isInstanceOf(InvalidCxcPropertyException.class);
        assertThat(temp.resolve("d")).as("nothing written for a refused value").doesNotExist();
    }

    @Test
    void zeroTickInterval() {
        FailureAnalysis analysis = failure(dir(temp.resolve("d")), "cxc.leader.tick-interval=0");
        assertThat(analysis.getDescription())
                .contains("'cxc.leader.tick-interval'", "must be 1 ms..1 h");
    }

    @Test
    void leaderNameThatIsNotAPlainFileName() {
        FailureAnalysis analysis = failure(dir(temp.resolve("d")), "cxc.leader.name=../escape");
        assertThat(analysis.getDescription()).contains("'cxc.leader.name'", "plain file name");
    }

    @Test
    void filePermissionsThatAreNotPermissions() {
        FailureAnalysis analysis = failure(dir(temp.resolve("d")), "cxc.file-permissions=rwx");
        assertThat(analysis.getDescription()).contains("'cxc.file-permissions'", "'rwx'");
    }

    @Test
    void filePermissionsThatLetOthersWriteUnlessStrictIsOff() {
        FailureAnalysis analysis =
                failure(dir(temp.resolve("d")), "cxc.file-permissions=rw-rw-rw-");
        assertThat(analysis.getDescription())
                .contains("'cxc.file-permissions'", "group or others write");
        assertThat(analysis.getAction()).contains("cxc.strict-permissions=false");

        runner.withPropertyValues(
                        dir(temp.resolve("d")),
                        "cxc.file-permissions=rw-rw----",
                        "cxc.strict-permissions=false")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            Path file = context.getBean(SharedLeaderElection.class).file();
                            assertThat(mode(file)).isEqualTo("rw-rw----");
                        });
    }

    @Test
    void aDirectoryThatIsAFile() throws IOException {
        Path file = Files.createFile(temp.resolve("plain"));
        FailureAnalysis analysis = failure(dir(file));
        assertThat(analysis.getDescription())
                .contains("'cxc.directory'", "it is a file, not a directory");
    }

    @Test
    void anUnwritableDirectory() throws IOException {
        Path directory = ownerOnlyDirectory("read-only");
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("r-x------"));
        FailureAnalysis analysis = failure(dir(directory));
        assertThat(analysis.getDescription())
                .contains("'cxc.directory'", "not writable", "r-x------");
        assertThat(analysis.getAction()).contains("chmod u+w");
    }

    @Test
    void aForeignOwnedDirectory() throws IOException {
        Path directory = ownerOnlyDirectory("theirs");
        Files.setOwner(directory, nobody());
        FailureAnalysis analysis = failure(dir(directory));
        assertThat(analysis.getDescription())
                .contains("'cxc.directory'", "owned by nobody", "not by you");
        assertThat(analysis.getAction()).contains("cxc.strict-permissions=false");

        runner.withPropertyValues(dir(directory), "cxc.strict-permissions=false")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aGroupOrOtherWritableDirectory() throws IOException {
        Path directory = ownerOnlyDirectory("shared");
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwx---"));
        FailureAnalysis analysis = failure(dir(directory));
        assertThat(analysis.getDescription())
                .contains("'cxc.directory'", "group or others may write it", "rwxrwx---");
        assertThat(analysis.getAction()).contains("chmod go-w", "cxc.strict-permissions=false");

        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx---rwx"));
        assertThat(failure(dir(directory)).getDescription()).contains("rwx---rwx");
    }

    @Test
    void aForeignSymlinkOnThePath() throws IOException {
        Path target = ownerOnlyDirectory("target");
        Path link = Files.createSymbolicLink(temp.resolve("link"), target);
        Files.getFileAttributeView(link, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .setOwner(nobody());
        FailureAnalysis analysis = failure(dir(link.resolve("cxc")));
        assertThat(analysis.getDescription())
                .contains("'cxc.directory'", "symbolic link " + link, "neither you");
        assertThat(target.resolve("cxc")).doesNotExist();

        // The same path through a link of our own is fine.
        Path own = Files.createSymbolicLink(temp.resolve("own-link"), target);
        runner.withPropertyValues(dir(own.resolve("cxc")))
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aForeignOwnedElectionFile() throws IOException {
        Path directory = ownerOnlyDirectory("d");
        try (SharedLeaderElection election =
                SharedLeaderElection.TYPE.create(
                        directory.resolve("leader.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            Files.setOwner(election.file(), nobody());
        }
        FailureAnalysis analysis = failure(dir(directory));
        assertThat(analysis.getDescription()).contains("'cxc.directory'", "leader.cxc", "uid");
    }

    @Test
    void directoriesAreCreatedOwnerOnly() {
        Path nested = temp.resolve("a").resolve("b");
        runner.withPropertyValues(dir(nested))
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(mode(temp.resolve("a"))).isEqualTo("rwx------");
                            assertThat(mode(nested)).isEqualTo("rwx------");
                            assertThat(mode(nested.resolve("leader.cxc"))).isEqualTo("rw-------");
                        });
    }

    @Test
    void heartbeatCapacityOutOfRange() {
        for (String capacity : new String[] {"0", "1025"}) {
            FailureAnalysis analysis =
                    failure(dir(temp.resolve("d")), "cxc.heartbeat.capacity=" + capacity);
            assertThat(analysis.getDescription())
                    .contains("'cxc.heartbeat.capacity'", "'" + capacity + "'", "1..1024");
            assertThat(analysis.getAction()).contains("cxc.heartbeat.capacity");
        }
        assertThat(temp.resolve("d").resolve("participants.heartbeat")).doesNotExist();
    }

    @Test
    void heartbeatNameOrGraceRefused() {
        assertThat(failure(dir(temp.resolve("d")), "cxc.heartbeat.name=a/b").getDescription())
                .contains("'cxc.heartbeat.name'", "plain file name");
        assertThat(
                        failure(dir(temp.resolve("d")), "cxc.heartbeat.grace-epochs=-1")
                                .getDescription())
                .contains("'cxc.heartbeat.grace-epochs'", "0 or more");
    }

    @Test
    void barrierValuesRefused() {
        assertThat(
                        failure(dir(temp.resolve("d")), "cxc.barriers.phases.capacity=0")
                                .getDescription())
                .contains("'cxc.barriers.phases.capacity'", "1..1024");
        assertThat(
                        failure(dir(temp.resolve("d")), "cxc.barriers.phases.heartbeat-interval=0")
                                .getDescription())
                .contains("'cxc.barriers.phases.heartbeat-interval'", "positive");
        assertThat(
                        failure(dir(temp.resolve("d")), "cxc.barriers.phases.grace-intervals=0")
                                .getDescription())
                .contains("'cxc.barriers.phases.grace-intervals'", "1 or more");
        // One meaning per name: grace-epochs is ticks elsewhere, so a barrier's is refused.
        assertThat(
                        failure(dir(temp.resolve("d")), "cxc.barriers.phases.grace-epochs=5")
                                .getDescription())
                .contains("'cxc.barriers.phases.grace-epochs'", "not a setting", "grace-intervals");
        assertThat(
                        failure(dir(temp.resolve("d")), "cxc.barriers[.hidden].capacity=2")
                                .getDescription())
                .contains("'cxc.barriers..hidden'", "plain file name");
        assertThat(temp.resolve("d")).as("nothing written for a refused value").doesNotExist();
    }

    @Test
    void aBadLeaderValueStopsADeclaredBarrierFromWritingItsFile() {
        FailureAnalysis analysis =
                failure(
                        dir(temp.resolve("d")),
                        "cxc.leader.tick-interval=-1s",
                        "cxc.barriers.phases.capacity=2");
        assertThat(analysis.getDescription()).contains("'cxc.leader.tick-interval'");
        assertThat(temp.resolve("d")).as("nothing written for a refused value").doesNotExist();
    }

    @Test
    void watchdogValuesRefused() {
        assertThat(
                        failure(dir(temp.resolve("d")), "cxc.watchdogs.jobs.work-per-slot=0")
                                .getDescription())
                .contains("'cxc.watchdogs.jobs.work-per-slot'", "1..4096");
        assertThat(
                        failure(dir(temp.resolve("d")), "cxc.watchdogs.jobs.grace-epochs=-2")
                                .getDescription())
                .contains("'cxc.watchdogs.jobs.grace-epochs'", "0 or more");
        FailureAnalysis withoutTable =
                failure(
                        dir(temp.resolve("d")),
                        "cxc.heartbeat.enabled=false",
                        "cxc.watchdogs.jobs.grace-epochs=3");
        assertThat(withoutTable.getDescription()).contains("'cxc.watchdogs.jobs'", "takes no part");
        // The refusal names the switch as the user wrote it, and where.
        assertThat(withoutTable.getDescription()).contains("cxc.heartbeat.enabled=false (from");
        assertThat(withoutTable.getAction()).contains("Remove cxc.heartbeat.enabled=false");
    }

    @Test
    void aDeclaredNameThatIsTakenIsRefused() {
        assertThat(
                        failure(
                                        dir(temp.resolve("d")),
                                        "cxc.barriers.work.capacity=2",
                                        "cxc.watchdogs.work.grace-epochs=3")
                                .getDescription())
                .contains("'cxc.watchdogs.work'", "same name");
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.withBean("phases", String.class, () -> "the application's")
                .withPropertyValues(dir(temp.resolve("d")), "cxc.barriers.phases.capacity=2")
                .run(
                        context -> {
                            assertThat(context).hasFailed();
                            analysis[0] =
                                    new InvalidCxcPropertyFailureAnalyzer(null)
                                            .analyze(context.getStartupFailure());
                        });
        assertThat(analysis[0].getDescription())
                .contains("'cxc.barriers.phases'", "a bean named 'phases' already exists");
    }

    @Test
    void aParentThatOthersMayWriteIsRefusedUnlessSticky() throws IOException {
        Path parent = ownerOnlyDirectory("parent");
        Files.setAttribute(parent, "unix:mode", 0777);
        FailureAnalysis analysis = failure(dir(parent.resolve("cxc")));
        assertThat(analysis.getDescription())
                .contains("'cxc.directory'", parent + " on its path", "not sticky", "777");
        assertThat(parent.resolve("cxc")).doesNotExist();

        // Sticky, as /tmp: only an entry's owner may rename it.
        Files.setAttribute(parent, "unix:mode", 01777);
        runner.withPropertyValues(dir(parent.resolve("cxc")))
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(mode(parent.resolve("cxc"))).isEqualTo("rwx------");
                        });
    }

    @Test
    void aParentOwnedByAnotherUserIsRefused() throws IOException {
        Path parent = ownerOnlyDirectory("their-parent");
        Files.setOwner(parent, nobody());
        Files.setAttribute(parent, "unix:mode", 0755);
        FailureAnalysis analysis = failure(dir(parent.resolve("cxc")));
        assertThat(analysis.getDescription())
                .contains("'cxc.directory'", parent + " on its path is owned by uid", "nor root");
    }

    private Path ownerOnlyDirectory(String name) throws IOException {
        return Files.createDirectory(
                temp.resolve(name),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    /** Giving a file away needs root (as CI runs); elsewhere these checks cannot be staged. */
    private static UserPrincipal nobody() throws IOException {
        Assumptions.assumeTrue(
                CxcDirectory.currentUid() == 0, "only root can give a file to another user");
        return java.nio.file.FileSystems.getDefault()
                .getUserPrincipalLookupService()
                .lookupPrincipalByName("nobody");
    }
}
