package io.subetha.cxc.boot.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.JobHandler;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobEntry;
import io.subetha.cxc.scheduling.JobOptions;
import io.subetha.cxc.scheduling.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

/**
 * The README's job-runner example, compiled and run: its Java block is this file's {@link
 * Thumbnails} and {@link Gallery}, line for line.
 */
class ReadmeJobRunnerExampleTest {

    static final Map<Long, Long> STORED = new ConcurrentHashMap<>();

    static long render(long imageId) {
        if (imageId == 13 && STORED.get(-1L) == null) {
            throw new IllegalStateException("unlucky");
        }
        return imageId * 10;
    }

    static void alert(long jobId, Exception e) {}

    static void store(long jobId, long thumbnail) {
        STORED.put(jobId, thumbnail);
    }

    // README: begin
    @Component
    static class Thumbnails implements JobHandler<Long, Long> {
        public String scheduler() { // the declared name
            return "thumbnails";
        }

        public FixedCodec<Long> jobCodec() {
            return FixedCodec.INT64;
        }

        public FixedCodec<Long> resultCodec() {
            return FixedCodec.INT64;
        }

        public Long handle(Job<Long> job) { // if it throws: retried, then FAILED
            return render(job.payload());
        }

        public void onFailed(Job<Long> job, Exception e) { // optional: attempts spent
            alert(job.id(), e);
        }
    }

    @Service // anywhere (this or another instance): submit, collect, re-run what failed
    static class Gallery {
        private final BackgroundScheduler<Long, Long> thumbnails;

        Gallery(@Qualifier("thumbnails") BackgroundScheduler<Long, Long> thumbnails) {
            this.thumbnails = thumbnails;
        }

        long add(long imageId) {
            return thumbnails.submit(imageId);
        }

        long addUrgent(long imageId) { // this job's own policy, not the scheduler's
            RetryPolicy policy = RetryPolicy.fixed(5, Duration.ofSeconds(10));
            return thumbnails.submit(imageId, JobOptions.DEFAULT.withRetry(policy));
        }

        void collect() {
            thumbnails.collector().take(100).forEach(r -> store(r.jobId(), r.result()));
        }

        void rerunFailed() {
            thumbnails.jobs().stream()
                    .filter(job -> job.state() == JobEntry.State.FAILED)
                    .forEach(job -> thumbnails.rerun(job.id()));
        }
    }

    // README: end

    @TempDir Path temp;

    @Test
    void theExampleRunsAFailingJobToFailedThenReRunsIt() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class))
                .withBean(Thumbnails.class)
                .withBean(Gallery.class)
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "cxc.schedulers.thumbnails.retry.initial-backoff=10ms")
                .run(
                        context -> {
                            Gallery gallery = context.getBean(Gallery.class);
                            long ok = gallery.add(4);
                            long unlucky = gallery.add(13);
                            await().atMost(Duration.ofSeconds(60))
                                    .until(
                                            () -> {
                                                gallery.collect();
                                                return STORED.containsKey(ok)
                                                        && !STORED.containsKey(unlucky)
                                                        && gallery.thumbnails.counts().failed()
                                                                == 1;
                                            });
                            STORED.put(-1L, 0L); // lucky from now on
                            gallery.rerunFailed();
                            long urgent = gallery.addUrgent(5);
                            await().atMost(Duration.ofSeconds(60))
                                    .until(
                                            () -> {
                                                gallery.collect();
                                                return STORED.containsKey(unlucky)
                                                        && STORED.containsKey(urgent);
                                            });
                            assertThat(STORED).containsEntry(unlucky, 130L);
                        });
    }

    @Test
    void theReadmeShowsThisFilesExample() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        Matcher block =
                Pattern.compile(
                                "\\*\\*As a job runner in Spring Boot\\*\\*.*?```java\\n(.*?)```",
                                Pattern.DOTALL)
                        .matcher(readme);
        assertThat(block.find()).as("the README's job-runner example").isTrue();
        String source =
                Files.readString(
                        Path.of(
                                "src/test/java/io/subetha/cxc/boot/scheduling",
                                "ReadmeJobRunnerExampleTest.java"));
        String example =
                source.substring(
                        source.indexOf("// README: begin") + 16, source.indexOf("// README: end"));
        assertThat(lines(block.group(1)))
                .isEqualTo(lines(example.replace("static class", "class")));
    }

    private static List<String> lines(String code) {
        return code.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
    }
}
