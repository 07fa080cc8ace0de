package io.subetha.cxc.boot.eventlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.CxcEventPublisher;
import io.subetha.cxc.boot.EventLogCodecs;
import io.subetha.cxc.boot.annotation.CxcEventListener;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.boot.autoconfigure.CxcEventLogAutoConfiguration;
import io.subetha.cxc.boot.autoconfigure.CxcMetricsAutoConfiguration;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.eventlog.EventStateLog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code cxc.event-logs.<name>.*} with {@code @CxcEventListener} methods: every listener of a copy
 * gets every event in order, a restarted copy resumes after the last event it handled, what the
 * listener cannot take is refused at startup naming the method, no thread outlives the context, and
 * {@code cxc.events.pending} shows what a listener has yet to handle.
 */
class EventLogListenersTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir Path temp;

    /** An order as the log stores it. */
    public record Order(long id, int quantity) {}

    /** Two listeners of one log, recording what they got. */
    static class OrderListeners {
        final List<String> first = new CopyOnWriteArrayList<>();
        final List<Long> second = new CopyOnWriteArrayList<>();

        @CxcEventListener(log = "orders")
        void onOrder(Order order, long sequence) {
            first.add(sequence + ":" + order.id());
        }

        @CxcEventListener(log = "orders", id = "second")
        void alsoOnOrder(Order order) {
            second.add(order.id());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Orders {
        @Bean
        EventLogCodecs<Order, Long> ordersCodecs() {
            return EventLogCodecs.of(
                    "orders",
                    Order.class,
                    FixedCodec.record(Order.class),
                    FixedCodec.INT64,
                    0L,
                    (total, order) -> total + order.quantity());
        }

        @Bean
        OrderListeners orderListeners() {
            return new OrderListeners();
        }
    }

    /** A copy that publishes and does not listen. */
    @Configuration(proxyBeanMethods = false)
    static class PublisherOnly {
        @Bean
        EventLogCodecs<Order, Long> ordersCodecs() {
            return new Orders().ordersCodecs();
        }
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcEventLogAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "cxc.event-logs.orders.capacity=64",
                        "cxc.listeners.copy-name=copy-1");
    }

    @Test
    void everyListenerGetsEveryEventInOrderAndTheLeaderFoldsThem() {
        runner().withUserConfiguration(Orders.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            CxcEventPublisher events = context.getBean(CxcEventPublisher.class);
                            OrderListeners listeners = context.getBean(OrderListeners.class);
                            // In two bursts of less than the 64 the log retains: a burst of more
                            // may overwrite events a listener has not read yet (see the last test).
                            for (int half = 0; half < 2; half++) {
                                for (long id = half * 50 + 1; id <= half * 50 + 50; id++) {
                                    events.publish("orders", new Order(id, 2));
                                }
                                int seen = half * 50 + 50;
                                await().atMost(WAIT).until(() -> listeners.second.size() == seen);
                                await().atMost(WAIT).until(() -> listeners.first.size() == seen);
                            }
                            for (int i = 0; i < 100; i++) {
                                assertThat(listeners.first.get(i)).isEqualTo(i + ":" + (i + 1));
                                assertThat(listeners.second.get(i)).isEqualTo(i + 1);
                            }
                            assertThat(context.getBean(EventLogListeners.class).readerNames())
                                    .containsExactlyInAnyOrder(
                                            "copy-1/orderListeners.onOrder", "copy-1/second");
                            // 100 events through a log of 64: folded on the leader's ticks, or by
                            // a publisher that found it full; the state is the fold of them all.
                            @SuppressWarnings("unchecked")
                            EventStateLog<Order, Long> log =
                                    (EventStateLog<Order, Long>) context.getBean("orders");
                            await().atMost(WAIT).until(() -> log.readCurrent() == 200L);
                        });
    }

    @Test
    void aRestartedCopyResumesAfterTheLastEventItHandledAndNoThreadOutlivesItsContext() {
        OrderListeners[] firstRun = new OrderListeners[1];
        runner().withUserConfiguration(Orders.class)
                .run(
                        context -> {
                            publish(context.getBean(CxcEventPublisher.class), 1, 3);
                            firstRun[0] = context.getBean(OrderListeners.class);
                            await().atMost(WAIT).until(() -> firstRun[0].first.size() == 3);
                        });
        assertThat(listenerThreads()).isEmpty();
        // Published while the copy is down, by another copy.
        runner().withUserConfiguration(PublisherOnly.class)
                .run(context -> publish(context.getBean(CxcEventPublisher.class), 4, 6));
        runner().withUserConfiguration(Orders.class)
                .run(
                        context -> {
                            OrderListeners listeners = context.getBean(OrderListeners.class);
                            await().atMost(WAIT).until(() -> listeners.first.size() == 3);
                            assertThat(listeners.first).containsExactly("3:4", "4:5", "5:6");
                            assertThat(listeners.second).containsExactly(4L, 5L, 6L);
                        });
        assertThat(listenerThreads()).isEmpty();
    }

    @Test
    void aLogMadeAnewUnderItsOldReaderTableIsReadFromItsFirstEvent() {
        runner().withUserConfiguration(Orders.class)
                .run(
                        context -> {
                            publish(context.getBean(CxcEventPublisher.class), 1, 3);
                            OrderListeners listeners = context.getBean(OrderListeners.class);
                            await().atMost(WAIT).until(() -> listeners.first.size() == 3);
                        });
        // Removed while every copy is stopped (to change its capacity), its readers kept.
        assertThat(temp.resolve("cxc/orders.events").toFile().delete()).isTrue();
        runner().withUserConfiguration(Orders.class)
                .run(
                        context -> {
                            publish(context.getBean(CxcEventPublisher.class), 7, 8);
                            OrderListeners listeners = context.getBean(OrderListeners.class);
                            await().atMost(WAIT).until(() -> listeners.first.size() == 2);
                            assertThat(listeners.first).containsExactly("0:7", "1:8");
                        });
    }

    private static void publish(CxcEventPublisher events, long from, long to) {
        for (long id = from; id <= to; id++) {
            events.publish("orders", new Order(id, 1));
        }
    }

    private static List<String> listenerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(name -> name.startsWith("cxc-listener-"))
                .toList();
    }

    /** Holds every event until released. */
    static class SlowListener {
        final CountDownLatch release = new CountDownLatch(1);
        final List<Long> seen = new CopyOnWriteArrayList<>();

        @CxcEventListener(log = "counts", id = "slow")
        void onCount(long count) throws InterruptedException {
            release.await();
            seen.add(count);
        }
    }

    @Test
    void thePendingGaugeShowsWhatAListenerHasYetToHandleAndOverwrittenEventsAreSkippedAndCounted() {
        runner().withBean(SimpleMeterRegistry.class)
                .withBean(SlowListener.class)
                .withPropertyValues("cxc.event-logs.counts.capacity=4")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            CxcEventPublisher events = context.getBean(CxcEventPublisher.class);
                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            SlowListener slow = context.getBean(SlowListener.class);
                            events.publish("counts", 0L);
                            events.publish("counts", 1L);
                            await().atMost(WAIT).until(() -> pending(meters) == 2.0);
                            // More than the log retains while the listener is held at event 0.
                            for (long i = 2; i < 12; i++) {
                                events.publish("counts", i);
                            }
                            assertThat(pending(meters)).isEqualTo(12.0);
                            slow.release.countDown();
                            await().atMost(WAIT).until(() -> pending(meters) == 0.0);
                            assertThat(slow.seen).startsWith(0L).endsWith(11L).isSorted();
                            double skipped =
                                    meters.get("cxc.events.overwritten")
                                            .tags("log", "counts", "listener", "slow")
                                            .counter()
                                            .count();
                            assertThat(skipped).isPositive();
                            assertThat(slow.seen.size() + skipped).isEqualTo(12.0);
                        });
    }

    /** Throws for the event 13. */
    static class Unlucky {
        final List<Long> seen = new CopyOnWriteArrayList<>();

        @CxcEventListener(log = "counts", id = "unlucky")
        void onCount(long count) {
            if (count == 13) {
                throw new IllegalStateException("unlucky");
            }
            seen.add(count);
        }
    }

    @Test
    void anEventWhoseMethodThrowsIsLoggedCountedAndPassed() {
        runner().withBean(SimpleMeterRegistry.class)
                .withBean(Unlucky.class)
                .withPropertyValues("cxc.event-logs.counts.capacity=16")
                .run(
                        context -> {
                            CxcEventPublisher events = context.getBean(CxcEventPublisher.class);
                            for (long i = 12; i <= 14; i++) {
                                events.publish("counts", i);
                            }
                            Unlucky unlucky = context.getBean(Unlucky.class);
                            await().atMost(WAIT).until(() -> unlucky.seen.size() == 2);
                            assertThat(unlucky.seen).containsExactly(12L, 14L);
                            assertThat(
                                            context.getBean(MeterRegistry.class)
                                                    .get("cxc.events.failed")
                                                    .tags("log", "counts", "listener", "unlucky")
                                                    .counter()
                                                    .count())
                                    .isEqualTo(1.0);
                        });
    }

    private static double pending(MeterRegistry meters) {
        return meters.get("cxc.events.pending")
                .tags("log", "counts", "listener", "slow")
                .gauge()
                .value();
    }
}
