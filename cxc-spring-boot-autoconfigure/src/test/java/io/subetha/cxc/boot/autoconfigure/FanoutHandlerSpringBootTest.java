package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.FanoutItem;
import io.subetha.cxc.boot.actuate.metrics.FanoutMeters;
import io.subetha.cxc.fanout.PriorityFanout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
 * A Boot application as a fan-out user writes it: {@code cxc.fanouts.work.*} in its properties and
 * one {@link FanoutHandler} bean, which the starter runs: items handled highest priority first,
 * FIFO within a level; an item whose handler throws is returned and handled again; the items' gauge
 * and the handled counter.
 */
@SpringBootTest(
        classes = FanoutHandlerSpringBootTest.App.class,
        properties = {
            "cxc.fanouts.work.capacity=64",
            "cxc.fanouts.work.workers=1",
            "cxc.fanouts.work.retry.max-attempts=5",
            "cxc.fanouts.work.retry.backoff=1ms",
            "spring.main.banner-mode=off"
        })
class FanoutHandlerSpringBootTest {

    @DynamicPropertySource
    static void directory(DynamicPropertyRegistry registry) throws IOException {
        Path directory = Files.createTempDirectory("cxc-fanout-boot");
        registry.add("cxc.directory", () -> directory.resolve("cxc").toString());
    }

    /** Records each item; holds item 0 until released; throws on item 13's first two attempts. */
    static final class Recording extends WorkHandler {
        final List<FanoutItem<Long>> handled = new CopyOnWriteArrayList<>();
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void handle(FanoutItem<Long> item) throws InterruptedException {
            handled.add(item);
            if (item.item() == 0) {
                holding.countDown();
                release.await();
            }
            if (item.item() == 13 && item.attempt() < 3) {
                throw new IllegalStateException("not yet");
            }
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Recording recording() {
            return new Recording();
        }
    }

    @Autowired Recording handler;

    @Autowired
    @Qualifier("work")
    PriorityFanout<Long> work;

    @Autowired FanoutMeters meters;

    @Test
    void itemsAreHandledHighestPriorityFirstAndAThrowingOneIsReturnedAndRetried() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        meters.bindTo(registry);
        work.submit(1, 0L); // held by the one worker while the others queue
        assertThat(handler.holding.await(60, TimeUnit.SECONDS)).isTrue();
        work.submit(0, 1L);
        work.submit(3, 2L);
        work.submit(7, 3L);
        work.submit(3, 4L);
        work.submit(7, 5L);
        work.submit(5, 13L);
        assertThat(items(registry, 7)).isEqualTo(2);
        assertThat(items(registry, 3)).isEqualTo(2);
        assertThat(items(registry, 0)).isEqualTo(1);
        assertThat(items(registry, 6)).isZero();

        handler.release.countDown();
        await().atMost(Duration.ofSeconds(60)).until(() -> handler.handled.size() == 9);
        // 13 is returned ahead of its level's later items, so it comes back before level 3.
        assertThat(handler.handled)
                .extracting(FanoutItem::item)
                .containsExactly(0L, 3L, 5L, 13L, 13L, 13L, 2L, 4L, 1L);
        assertThat(handler.handled)
                .filteredOn(i -> i.item() == 13)
                .extracting(FanoutItem::attempt, FanoutItem::priority)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, 5),
                        org.assertj.core.groups.Tuple.tuple(2, 5),
                        org.assertj.core.groups.Tuple.tuple(3, 5));
        await().atMost(Duration.ofSeconds(60)).until(() -> handled(registry, "handled") == 7);
        assertThat(handled(registry, "returned")).isEqualTo(2);
        assertThat(handled(registry, "dead-lettered")).isZero();
        for (int p = 0; p < PriorityFanout.MAX_PRIORITIES; p++) {
            assertThat(items(registry, p)).as("priority %d", p).isZero();
        }
    }

    private static double items(MeterRegistry registry, int priority) {
        return registry.get("cxc.fanout.items")
                .tag("fanout", "work")
                .tag("priority", Integer.toString(priority))
                .gauge()
                .value();
    }

    private static double handled(MeterRegistry registry, String outcome) {
        FunctionCounter counter =
                registry.get("cxc.fanout.handled")
                        .tag("fanout", "work")
                        .tag("outcome", outcome)
                        .functionCounter();
        return counter.count();
    }
}
