package io.subetha.cxc.boot.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import io.subetha.cxc.boot.LongJobHandler;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code cxc.schedulers.<name>.trace-context=true}: a job submitted inside an Observation runs in
 * an Observation that is its submit's child, in the same trace, though the worker only read the job
 * from the file. Boot's real ObservationRegistry, with a handler that propagates a W3C {@code
 * traceparent} as a tracer's would and records each span's parent.
 */
@SpringBootTest(
        properties = {
            "cxc.schedulers.traced.capacity=64",
            "cxc.schedulers.traced.workers=1",
            "cxc.schedulers.traced.trace-context=true"
        })
class SchedulerTracePropagationBootTest {

    private static final Path DIRECTORY = temporaryDirectory();

    @DynamicPropertySource
    static void directory(DynamicPropertyRegistry properties) {
        properties.add("cxc.directory", DIRECTORY::toString);
    }

    /** A span as the recorder saw it start. */
    record Span(String name, String traceId, String spanId, @Nullable String parentId) {}

    /** Starts a span per Observation, its parent the enclosing one's or the carrier's. */
    static final class W3cRecorder implements ObservationHandler<Observation.Context> {
        final List<Span> spans = new CopyOnWriteArrayList<>();

        @Override
        public void onStart(Observation.Context context) {
            String traceId = null;
            String parentId = null;
            if (context instanceof ReceiverContext<?> receiver) {
                String traceparent = traceparent(receiver);
                if (traceparent != null) {
                    String[] parts = traceparent.split("-");
                    traceId = parts[1];
                    parentId = parts[2];
                }
            } else if (context.getParentObservation() != null) {
                Span parent = context.getParentObservation().getContextView().get(Span.class);
                if (parent != null) {
                    traceId = parent.traceId();
                    parentId = parent.spanId();
                }
            }
            Span span =
                    new Span(
                            context.getName(),
                            traceId == null ? hex(32) : traceId,
                            hex(16),
                            parentId);
            context.put(Span.class, span);
            spans.add(span);
            if (context instanceof SenderContext<?> sender) {
                inject(sender, "00-" + span.traceId() + "-" + span.spanId() + "-01");
            }
        }

        @SuppressWarnings("unchecked")
        private static <C> @Nullable String traceparent(ReceiverContext<C> receiver) {
            return receiver.getGetter().get(receiver.getCarrier(), "traceparent");
        }

        @SuppressWarnings("unchecked")
        private static <C> void inject(SenderContext<C> sender, String traceparent) {
            sender.getSetter().set(sender.getCarrier(), "traceparent", traceparent);
        }

        private static String hex(int digits) {
            StringBuilder hex = new StringBuilder();
            while (hex.length() < digits) {
                hex.append(Long.toHexString(ThreadLocalRandom.current().nextLong() | 1L << 63));
            }
            return hex.substring(0, digits);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        Optional<Span> named(String name) {
            return spans.stream().filter(s -> s.name().equals(name)).findFirst();
        }
    }

    /** Echoes its job. */
    static final class Echo extends LongJobHandler {
        Echo() {
            super("traced");
        }

        @Override
        public Long handle(Job<Long> job) {
            return job.payload();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Echo echo() {
            return new Echo();
        }

        @Bean
        W3cRecorder recorder() {
            return new W3cRecorder();
        }
    }

    @Autowired W3cRecorder recorder;

    @Autowired ObservationRegistry registry;

    @Autowired
    @Qualifier("traced")
    BackgroundScheduler<Long, Long> traced;

    @Test
    void aJobsRunIsTheChildOfItsSubmitInTheSubmittersTrace() {
        Observation request = Observation.start("test.request", registry);
        long id;
        try (Observation.Scope scope = request.openScope()) {
            id = traced.submit(7L);
        } finally {
            request.stop();
        }
        await().atMost(Duration.ofSeconds(60))
                .until(() -> traced.collector().result(id), Optional::isPresent);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> recorder.named("cxc.scheduler.job").isPresent());
        Span root = recorder.named("test.request").orElseThrow();
        Span submit = recorder.named("cxc.scheduler.submit").orElseThrow();
        Span run = recorder.named("cxc.scheduler.job").orElseThrow();
        assertThat(submit.parentId()).isEqualTo(root.spanId());
        assertThat(run.parentId()).isEqualTo(submit.spanId());
        assertThat(run.traceId()).isEqualTo(root.traceId());
    }

    private static Path temporaryDirectory() {
        try {
            Path directory = Files.createTempDirectory("cxc-job-trace");
            directory.toFile().deleteOnExit();
            return directory.resolve("cxc");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
