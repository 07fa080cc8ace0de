package io.subetha.cxc.docs.examples.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;

/**
 * The job-runner example of the guide and the README, run as an application finds it: by component
 * scan, so its beans get the names an application gives them (a handler named after its scheduler
 * would collide with the scheduler's bean and stop startup). A job fails, is FAILED after its
 * retries, is re-run and succeeds; an urgent job with its own policy runs.
 */
class JobRunnerExampleTest {

    @Configuration
    @ComponentScan(basePackageClasses = JobRunnerExampleTest.class)
    static class Application {}

    @TempDir Path temp;

    @Test
    void theExampleRunsAFailingJobToFailedThenReRunsIt() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class))
                .withUserConfiguration(Application.class)
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "cxc.schedulers.thumbnails.retry.initial-backoff=10ms")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Gallery gallery = context.getBean(Gallery.class);
                    long ok = gallery.add(4);
                    long unlucky = gallery.add(13);
                    await().atMost(Duration.ofSeconds(60)).until(() -> {
                        gallery.collect();
                        return Thumbnailing.STORED.containsKey(ok)
                                && !Thumbnailing.STORED.containsKey(unlucky)
                                && gallery.failed() == 1;
                    });
                    Thumbnailing.STORED.put(-1L, 0L); // lucky from now on
                    gallery.rerunFailed();
                    long urgent = gallery.addUrgent(5);
                    await().atMost(Duration.ofSeconds(60)).until(() -> {
                        gallery.collect();
                        return Thumbnailing.STORED.containsKey(unlucky)
                                && Thumbnailing.STORED.containsKey(urgent);
                    });
                    assertThat(Thumbnailing.STORED).containsEntry(unlucky, 130L).containsEntry(urgent, 50L);
                });
    }
}
