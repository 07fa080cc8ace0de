package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.util.FileSystemUtils;

/** The starter says once, at INFO, whether its directory survives a reboot, from its file store. */
@ExtendWith(OutputCaptureExtension.class)
class DurabilityLogTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner(Path directory) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class))
                .withPropertyValues("cxc.directory=" + directory);
    }

    @Test
    void aDirectoryInMemoryIsSaidNotToSurviveAReboot(CapturedOutput output) throws IOException {
        Path shm = Path.of("/dev/shm");
        String store = Files.getFileStore(shm).type();
        org.junit.jupiter.api.Assumptions.assumeTrue(
                store.equals("tmpfs"), "/dev/shm is " + store + " here");
        Path directory = Files.createTempDirectory(shm, "cxc-durability-");
        try {
            runner(directory.resolve("cxc")).run(context -> assertThat(context).hasNotFailed());
        } finally {
            FileSystemUtils.deleteRecursively(directory);
        }
        assertThat(output.getAll())
                .contains("INFO", "(tmpfs)", "survive a restart", "not a reboot");
        assertThat(output.getAll().split("survive", -1)).hasSize(2); // once
    }

    @Test
    void aDirectoryOnDiskIsSaidToSurviveAReboot(CapturedOutput output) throws IOException {
        String store = Files.getFileStore(temp).type();
        org.junit.jupiter.api.Assumptions.assumeFalse(
                store.equals("tmpfs"), "the temporary directory is in memory here");
        runner(temp.resolve("cxc")).run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getAll())
                .contains("INFO", "(" + store + ")", "survive a restart and a reboot");
    }
}
