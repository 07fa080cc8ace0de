package io.subetha.cxc.boot.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.FanoutItem;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.PriorityFanout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The README's prioritised-jobs example (a scheduler runs its jobs in submission order; jobs that
 * need priorities go to a fan-out handler), compiled and run in a Boot application: while the one
 * worker is busy, batch jobs queue and then an urgent one is submitted; the urgent one runs next.
 */
@SpringBootTest(
        classes = ReadmePrioritisedJobsExampleTest.App.class,
        properties = {"cxc.fanouts.renders.workers=1", "spring.main.banner-mode=off"})
class ReadmePrioritisedJobsExampleTest {

    static final List<Long> RENDERED = new CopyOnWriteArrayList<>();
    static final CountDownLatch BUSY = new CountDownLatch(1);
    static final CountDownLatch RELEASE = new CountDownLatch(1);

    static void render(long id) throws InterruptedException {
        RENDERED.add(id);
        if (id == 0) {
            BUSY.countDown();
            RELEASE.await(); // the one worker is busy until released
        }
    }

    // README: begin
    @Component // cxc.fanouts.renders.workers=1
    static class Renders implements FanoutHandler<Long> {
        public String fanout() {
            return "renders";
        }

        public FixedCodec<Long> codec() {
            return FixedCodec.INT64;
        }

        public void handle(FanoutItem<Long> job) throws Exception {
            render(job.item());
        }
    }

    @Service
    static class RenderQueue {
        static final int URGENT = 7, BATCH = 0; // levels 0..7: a higher one is taken first
        private final PriorityFanout<Long> renders;

        RenderQueue(@Qualifier("renders") PriorityFanout<Long> renders) {
            this.renders = renders;
        }

        void urgent(long id) {
            renders.submit(URGENT, id);
        }

        void batch(long id) {
            renders.submit(BATCH, id);
        }
    }

    // README: end

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import({Renders.class, RenderQueue.class})
    static class App {}

    @DynamicPropertySource
    static void directory(DynamicPropertyRegistry registry) throws IOException {
        Path directory = Files.createTempDirectory("cxc-priorities");
        registry.add("cxc.directory", () -> directory.resolve("cxc").toString());
    }

    @Autowired RenderQueue queue;

    @Test
    void anUrgentJobSubmittedBehindQueuedBatchJobsRunsNextOnABusyHandler() throws Exception {
        queue.batch(0);
        assertThat(BUSY.await(60, TimeUnit.SECONDS)).isTrue();
        queue.batch(1);
        queue.batch(2);
        queue.urgent(99);
        RELEASE.countDown();
        await().atMost(Duration.ofSeconds(60)).until(() -> RENDERED.size() == 4);
        assertThat(RENDERED).containsExactly(0L, 99L, 1L, 2L);
    }

    @Test
    void theReadmeShowsThisFilesExample() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        Matcher block =
                Pattern.compile("\\*\\*Prioritised jobs\\*\\*.*?```java\\n(.*?)```", Pattern.DOTALL)
                        .matcher(readme);
        assertThat(block.find()).as("the README's prioritised-jobs example").isTrue();
        String source =
                Files.readString(
                        Path.of(
                                "src/test/java/io/subetha/cxc/boot/scheduling",
                                "ReadmePrioritisedJobsExampleTest.java"));
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
