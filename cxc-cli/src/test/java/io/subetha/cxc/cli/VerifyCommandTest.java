package io.subetha.cxc.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.primitive.PrimitiveKinds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code cxc verify}: sound files exit 0; each damaged file from the bad-input catalogue exits 1
 * with exactly the message {@code open} gives, one line per problem, and is left byte for byte as
 * it was; usage errors exit 2.
 */
class VerifyCommandTest {

    @TempDir Path temp;

    @Test
    void soundFilesOfEveryKindExitZero() {
        Path dir = temp.resolve("every");
        int files = Fixtures.oneOfEveryKind(dir).size() + 1; // and the watchdog's default table

        CxcRun run = CxcRun.run("verify", dir.toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).isEqualTo(files + " files sound\n");
    }

    @ParameterizedTest
    @EnumSource(Fixtures.Damage.class)
    void aDamagedFileExitsOneWithOpensMessageAndIsLeftUntouched(Fixtures.Damage damage)
            throws Exception {
        Path dir = temp.resolve("app");
        Path damaged = dir.resolve("leader.cxc");
        SharedLeaderElection.TYPE.create(damaged, SharedLeaderElection.Settings.DEFAULTS).close();
        SharedLeaderElection.TYPE
                .create(dir.resolve("sound.cxc"), SharedLeaderElection.Settings.DEFAULTS)
                .close();
        damage.applyTo(damaged);
        String expected = Fixtures.openMessage(damaged, PrimitiveKinds.LEADER_ELECTION);
        Map<String, String> before = CxcRun.tree(dir);

        CxcRun ofDirectory = CxcRun.run("verify", dir.toString());
        CxcRun ofFile = CxcRun.run("verify", damaged.toString());

        assertThat(ofDirectory.exitCode()).as(ofDirectory.toString()).isEqualTo(Cxc.PROBLEMS);
        assertThat(ofDirectory.out()).isEqualTo(expected + "\n");
        assertThat(ofFile.exitCode()).isEqualTo(Cxc.PROBLEMS);
        assertThat(ofFile.out()).isEqualTo(expected + "\n");
        assertThat(CxcRun.tree(dir)).isEqualTo(before);
    }

    @Test
    void everyProblemHasItsOwnLine() throws Exception {
        Path dir = temp.resolve("app");
        for (Fixtures.Damage damage : Fixtures.Damage.values()) {
            Path file = dir.resolve(damage.name().toLowerCase() + ".cxc");
            SharedLeaderElection.TYPE.create(file, SharedLeaderElection.Settings.DEFAULTS).close();
            damage.applyTo(file);
        }
        Files.write(dir.resolve("empty"), new byte[0]);
        byte[] noise = new byte[4096];
        new Random(7).nextBytes(noise);
        Files.write(dir.resolve("noise"), noise);

        CxcRun run = CxcRun.run("verify", dir.toString());

        assertThat(run.exitCode()).isEqualTo(Cxc.PROBLEMS);
        assertThat(run.out().lines())
                .hasSize(Fixtures.Damage.values().length + 2)
                .allMatch(line -> line.startsWith("cannot open " + dir))
                .allMatch(line -> line.endsWith("The file was left untouched."))
                .contains(
                        "cannot open "
                                + dir.resolve("empty")
                                + " as a cxc file: the file is empty (0 bytes). The file was left"
                                + " untouched.",
                        "cannot open "
                                + dir.resolve("noise")
                                + " as a cxc file: wrong magic number: expected"
                                + String.format(
                                        " 0x%016x (\"SUBETHA1\"), found 0x%016x",
                                        io.subetha.cxc.mmf.HeaderDescriptor.MAGIC,
                                        java.nio.ByteBuffer.wrap(noise)
                                                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                                                .getLong())
                                + "; this is not a cxc file. The file was left untouched.");
    }

    @Test
    void anEmptyDirectoryIsSound() throws Exception {
        Path empty = Files.createDirectory(temp.resolve("empty"));

        CxcRun run = CxcRun.run("verify", empty.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).isEqualTo("no files in " + empty + "\n");
    }

    @Test
    void usageErrorsExitTwo() {
        Path missing = temp.resolve("missing");
        assertUsageError(CxcRun.run(), "cxc: a command is needed");
        assertUsageError(CxcRun.run("frobnicate"), "Unmatched argument");
        assertUsageError(CxcRun.run("verify"), "Missing required parameter: 'PATH'");
        assertUsageError(CxcRun.run("verify", "--bogus", "x"), "Unknown option: '--bogus'");
        assertUsageError(
                CxcRun.run("verify", missing.toString()),
                "cxc verify: no such file or directory: " + missing);
        assertUsageError(
                CxcRun.run("inspect", missing.toString()),
                "cxc inspect: no such file or directory: " + missing);
        assertUsageError(
                CxcRun.run("inspect", "--grace-epochs", "-1", temp.toString()),
                "--grace-epochs must be 0 or more");
        assertUsageError(
                CxcRun.run("inspect", "--grace-epochs", "soon", temp.toString()),
                "Invalid value for option '--grace-epochs'");
        assertUsageError(
                CxcRun.run("watch", "--interval", "1ms", temp.toString()),
                "--interval must be at least 10ms");
        assertUsageError(
                CxcRun.run("watch", "--interval", "soon", temp.toString()),
                "'soon' is not a duration");
        assertUsageError(
                CxcRun.run("watch", "--iterations", "-1", temp.toString()),
                "--iterations must be 0 or more");
        assertThat(missing).doesNotExist();
    }

    private static void assertUsageError(CxcRun run, String message) {
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(Cxc.USAGE);
        assertThat(run.err()).as(run.toString()).contains(message);
        assertThat(run.out()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "inspect", "watch", "verify"})
    void everyCommandHasHelpWithItsExitCodes(String command) {
        CxcRun run = command.isEmpty() ? CxcRun.run("--help") : CxcRun.run(command, "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .startsWith("Usage: cxc" + (command.isEmpty() ? "" : " " + command))
                .contains("Exit codes:")
                .containsPattern("(?m)^  0 +")
                .containsPattern("(?m)^  2 +usage error");
    }
}
