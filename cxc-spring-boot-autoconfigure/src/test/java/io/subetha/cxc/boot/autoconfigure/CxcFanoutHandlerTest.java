package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.FanoutCodec;
import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.FanoutItem;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.scheduling.FanoutWorkers;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.FanoutClaim;
import io.subetha.cxc.fanout.PriorityFanout;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;

/**
 * {@code cxc.fanouts.<name>.*} with a {@link FanoutHandler}: what is refused at startup, how
 * shutdown returns an item still being handled, and an item that fails on every attempt. (Priority
 * order, retries and the meters: {@code FanoutHandlerSpringBootTest}; two processes: {@code
 * FanoutProcessTest}.)
 */
class CxcFanoutHandlerTest {

    @TempDir Path temp;

    /** Records every item; throws on every attempt at a negative one. */
    static final class Recording extends WorkHandler {
        final List<FanoutItem<Long>> handled = new CopyOnWriteArrayList<>();
        final List<FanoutItem<Long>> deadLettered = new CopyOnWriteArrayList<>();

        @Override
        public void handle(FanoutItem<Long> item) {
            handled.add(item);
            if (item.item() < 0) {
                throw new IllegalStateException("never");
            }
        }

        @Override
        public void onDeadLetter(FanoutItem<Long> item, Exception last) {
            deadLettered.add(item);
        }
    }

    /** Holds every item until interrupted. */
    static final class Stuck extends WorkHandler {
        final CountDownLatch started = new CountDownLatch(1);

        @Override
        public void handle(FanoutItem<Long> item) throws InterruptedException {
            started.countDown();
            new CountDownLatch(1).await(); // until shutdown interrupts it
        }
    }

    /** Holds every item until released. */
    static final class Blocking extends WorkHandler {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void handle(FanoutItem<Long> item) throws InterruptedException {
            started.countDown();
            release.await();
        }
    }

    /** A handler of another item type, for a file made with longs. */
    static final class Strings implements FanoutHandler<String> {
        @Override
        public String fanout() {
            return "work";
        }

        @Override
        public FixedCodec<String> codec() {
            return FixedCodec.string(32);
        }

        @Override
        public void handle(FanoutItem<String> item) {}
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class, CxcMetricsAutoConfiguration.class))
                .withPropertyValues("cxc.directory=" + temp.resolve("cxc"));
    }

    private static void failsNaming(AssertableApplicationContext context, String... parts) {
        assertThat(context)
                .getFailure()
                .extracting(NestedExceptionUtils::getMostSpecificCause)
                .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                .message()
                .contains(parts);
    }

    @Test
    void aHandlerNamingAFanoutNothingDeclaresFailsStartupNamingIt() {
        runner().withBean(Recording.class, Recording::new)
                .withBean(
                        "other", FanoutCodec.class, () -> FanoutCodec.of("nope", FixedCodec.INT64))
                .withPropertyValues("cxc.fanouts.work.capacity=64")
                .run(
                        context ->
                                failsNaming(
                                        context,
                                        "'cxc.fanouts.nope'",
                                        "bean 'other' names fan-out 'nope'",
                                        "declared: [work]"));
        // Nothing declared at all: still refused, not silently never run.
        runner().withBean(Recording.class, Recording::new)
                .run(context -> failsNaming(context, "'cxc.fanouts.work'", "no cxc.fanouts.work"));
    }

    @Test
    void aHandlerNamingAnotherKindOfDeclaredPrimitiveFailsStartupSayingWhatItIs() {
        runner().withBean(Recording.class, Recording::new)
                .withPropertyValues("cxc.progress-tasks.work.total=10")
                .run(
                        context ->
                                failsNaming(
                                        context,
                                        "'cxc.fanouts.work'",
                                        "is a bean of type ProgressTask, not a declared fan-out"));
    }

    @Test
    void aHandlerOfAnotherItemTypeThanTheFilesFailsStartupNamingBoth() {
        PriorityFanout.openOrCreate(
                        temp.resolve("cxc").resolve("work.fanout"),
                        new PriorityFanout.Settings<>(64, FixedCodec.INT64))
                .close();
        runner().withBean(Strings.class, Strings::new)
                .withPropertyValues("cxc.fanouts.work.capacity=64")
                .run(
                        context ->
                                failsNaming(
                                        context,
                                        "'cxc.fanouts.work'",
                                        "does not open with the codec of bean",
                                        "a different payload type"));
    }

    @Test
    void noHandlerNorCodecFailsStartupNamingTheFanoutAndTheFix() {
        runner().withPropertyValues("cxc.fanouts.work.capacity=64")
                .run(
                        context -> {
                            failsNaming(
                                    context,
                                    "'cxc.fanouts.work'",
                                    "no FanoutHandler or FanoutCodec");
                            assertThat(context)
                                    .getFailure()
                                    .extracting(NestedExceptionUtils::getMostSpecificCause)
                                    .asInstanceOf(
                                            InstanceOfAssertFactories.type(
                                                    InvalidCxcPropertyException.class))
                                    .extracting(InvalidCxcPropertyException::action)
                                    .isEqualTo(
                                            "Declare a FanoutHandler bean whose fanout() is"
                                                    + " \"work\" to handle its items here, or, to"
                                                    + " only submit, a bean"
                                                    + " FanoutCodec.of(\"work\", codec); or"
                                                    + " remove cxc.fanouts.work.*.");
                        });
    }

    @Test
    void aBadPropertyFailsStartupNamingIt() {
        runner().withBean(Recording.class, Recording::new)
                .withPropertyValues("cxc.fanouts.work.capacity=0")
                .run(context -> failsNaming(context, "'cxc.fanouts.work.capacity'", "1048576"));
        runner().withBean(Recording.class, Recording::new)
                .withPropertyValues("cxc.fanouts.work.retry.max-attempts=0")
                .run(
                        context ->
                                failsNaming(
                                        context,
                                        "'cxc.fanouts.work.retry.max-attempts'",
                                        "1..1000"));
        runner().withBean(Recording.class, Recording::new)
                .withPropertyValues("cxc.fanouts.work.retry.backoff=11m")
                .run(
                        context ->
                                failsNaming(
                                        context, "'cxc.fanouts.work.retry.backoff'", "0s..10m"));
        runner().withBean(Recording.class, Recording::new)
                .withPropertyValues("cxc.fanouts.work.workers=-1")
                .run(context -> failsNaming(context, "'cxc.fanouts.work.workers'", "0..256"));
        runner().withBean(Recording.class, Recording::new)
                .withPropertyValues("cxc.fanouts.work.codec=int64")
                .run(
                        context ->
                                failsNaming(
                                        context,
                                        "'cxc.fanouts.work.codec'",
                                        "the starter sets it itself"));
    }

    @Test
    void codecAloneSubmitsButHandlesNothingHere() {
        runner().withBean(FanoutCodec.class, () -> FanoutCodec.of("work", FixedCodec.INT64))
                .withPropertyValues("cxc.fanouts.work.capacity=64")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            PriorityFanout<?> work = context.getBean("work", PriorityFanout.class);
                            ((PriorityFanout<Long>) work).submit(3, 7L);
                            assertThat(context.getBean(FanoutWorkers.class).counts()).isEmpty();
                            assertThat(work.depth(3)).isEqualTo(1);
                        });
    }

    @Test
    void idleWorkersSleepOnTheFanoutsDoorbellAndASubmitStartsTheirItem() {
        Recording handler = new Recording();
        runner().withBean(Recording.class, () -> handler)
                .withPropertyValues("cxc.fanouts.work.capacity=64", "cxc.fanouts.work.workers=2")
                .run(
                        context -> {
                            @SuppressWarnings("unchecked")
                            PriorityFanout<Long> work =
                                    context.getBean("work", PriorityFanout.class);
                            // Both idle workers announced in the file: asleep until rung.
                            org.awaitility.Awaitility.await()
                                    .atMost(java.time.Duration.ofSeconds(30))
                                    .until(() -> (int) work.describe().get("waiters") == 2);
                            work.submit(5, 11L);
                            org.awaitility.Awaitility.await()
                                    .atMost(java.time.Duration.ofSeconds(30))
                                    .until(() -> handler.handled.size() == 1);
                            assertThat(handler.handled.get(0))
                                    .isEqualTo(new FanoutItem<>(11L, 5, 1));
                        });
    }

    @Test
    void anItemFailingOnEveryAttemptIsDeadLetteredOnItsLastAndAcknowledged() {
        Recording handler = new Recording();
        runner().withBean(Recording.class, () -> handler)
                .withPropertyValues(
                        "cxc.fanouts.work.capacity=64",
                        "cxc.fanouts.work.workers=1",
                        "cxc.fanouts.work.retry.max-attempts=3",
                        "cxc.fanouts.work.retry.backoff=1ms")
                .run(
                        context -> {
                            @SuppressWarnings("unchecked")
                            PriorityFanout<Long> work =
                                    context.getBean("work", PriorityFanout.class);
                            work.submit(2, -5L);
                            org.awaitility.Awaitility.await()
                                    .atMost(java.time.Duration.ofSeconds(30))
                                    .until(() -> handler.deadLettered.size() == 1);
                            assertThat(handler.handled)
                                    .extracting(FanoutItem::attempt)
                                    .containsExactly(1, 2, 3);
                            assertThat(handler.deadLettered.get(0))
                                    .isEqualTo(new FanoutItem<>(-5L, 2, 3));
                            org.awaitility.Awaitility.await()
                                    .atMost(java.time.Duration.ofSeconds(30))
                                    .until(
                                            () ->
                                                    context.getBean(FanoutWorkers.class)
                                                                    .counts()
                                                                    .get("work")
                                                                    .get("dead-lettered")
                                                            == 1);
                            assertThat(context.getBean(FanoutWorkers.class).counts().get("work"))
                                    .containsEntry("returned", 2L);
                            assertThat(work.depth(2)).isZero();
                        });
    }

    @Test
    void shutdownLetsAHandlerFinishWithinTheTimeoutAndAcknowledgesItsItem() throws Exception {
        Blocking finishing = new Blocking();
        runner().withBean(Blocking.class, () -> finishing)
                .withPropertyValues(
                        "cxc.fanouts.work.capacity=64",
                        "cxc.fanouts.work.workers=1",
                        "cxc.fanouts.work.shutdown-timeout=60s")
                .run(
                        context -> {
                            context.getBean("work", PriorityFanout.class).submit(2, 5L);
                            assertThat(finishing.started.await(60, TimeUnit.SECONDS)).isTrue();
                            FanoutWorkers workers = context.getBean(FanoutWorkers.class);
                            Thread releaser =
                                    new Thread(
                                            () -> {
                                                // Released once the pools are told to stop.
                                                org.awaitility.Awaitility.await()
                                                        .atMost(java.time.Duration.ofSeconds(60))
                                                        .until(workers::isStopping);
                                                finishing.release.countDown();
                                            });
                            releaser.start();
                            workers.stop();
                            releaser.join();
                            assertThat(workers.counts().get("work")).containsEntry("handled", 1L);
                        });
        try (PriorityFanout<Long> file =
                PriorityFanout.open(
                        temp.resolve("cxc").resolve("work.fanout"),
                        new PriorityFanout.Settings<>(64, FixedCodec.INT64))) {
            assertThat(file.claimHighest(8).isEmpty()).isTrue();
            assertThat(file.depth(2)).isZero();
        }
    }

    @Test
    void shutdownInterruptsAHandlerPastItsTimeoutReturnsItsItemAndLeavesNoThread()
            throws Exception {
        Stuck stuck = new Stuck();
        runner().withBean(Stuck.class, () -> stuck)
                .withPropertyValues(
                        "cxc.fanouts.work.capacity=64",
                        "cxc.fanouts.work.workers=2",
                        "cxc.fanouts.work.shutdown-timeout=0s")
                .run(
                        context -> {
                            @SuppressWarnings("unchecked")
                            PriorityFanout<Long> work =
                                    context.getBean("work", PriorityFanout.class);
                            work.submit(4, 42L);
                            assertThat(stuck.started.await(60, TimeUnit.SECONDS)).isTrue();
                        });
        assertThat(Thread.getAllStackTraces().keySet())
                .noneMatch(t -> t.getName().startsWith("cxc-fanout-work-") && t.isAlive());
        try (PriorityFanout<Long> file =
                PriorityFanout.open(
                        temp.resolve("cxc").resolve("work.fanout"),
                        new PriorityFanout.Settings<>(64, FixedCodec.INT64))) {
            FanoutClaim<Long> again = file.claimHighest(8);
            assertThat(again.items()).containsExactly(42L);
            assertThat(again.priority()).isEqualTo(4);
            assertThat(again.ack()).isTrue();
        }
    }

    @Test
    void theTickerBeatsSoAHandlerMayRunLongerThanTheGrace() throws Exception {
        Blocking slow = new Blocking();
        runner().withBean(Blocking.class, () -> slow)
                .withPropertyValues(
                        "cxc.fanouts.work.capacity=64",
                        "cxc.fanouts.work.workers=1",
                        "cxc.fanouts.work.grace=200ms")
                .run(
                        context -> {
                            @SuppressWarnings("unchecked")
                            PriorityFanout<Long> work =
                                    context.getBean("work", PriorityFanout.class);
                            work.submit(1, 9L);
                            assertThat(slow.started.await(60, TimeUnit.SECONDS)).isTrue();
                            // Five graces pass while the item is handled; another handle's scans
                            // would return a silent handler's claim, the ticker's beats keep it.
                            try (PriorityFanout<Long> other =
                                    PriorityFanout.open(
                                            temp.resolve("cxc").resolve("work.fanout"),
                                            new PriorityFanout.Settings<>(64, FixedCodec.INT64))) {
                                long from = System.nanoTime();
                                AtomicInteger returned = new AtomicInteger();
                                org.awaitility.Awaitility.await()
                                        .pollInterval(java.time.Duration.ofMillis(50))
                                        .atMost(java.time.Duration.ofSeconds(60))
                                        .until(
                                                () ->
                                                        returned.addAndGet(
                                                                                other.scan()
                                                                                        .returnedClaims())
                                                                        > 0
                                                                || System.nanoTime() - from
                                                                        > 1_000_000_000L);
                                assertThat(returned).hasValue(0);
                                assertThat(other.claimHighest(8).isEmpty()).isTrue();
                            }
                            slow.release.countDown();
                            FanoutWorkers workers = context.getBean(FanoutWorkers.class);
                            org.awaitility.Awaitility.await()
                                    .atMost(java.time.Duration.ofSeconds(60))
                                    .until(() -> workers.counts().get("work").get("handled") == 1);
                            assertThat(workers.counts().get("work"))
                                    .containsEntry("refused", 0L)
                                    .containsEntry("returned", 0L);
                        });
    }
}
