package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real Boot applications handle the items of one declared fan-out ({@code cxc.fanouts.work} and
 * a {@code FanoutHandler} bean, {@link FanoutWorkerApp}): each item is handled once, by one of
 * them; an item failing on every attempt is dead-lettered after exactly max-attempts attempts in
 * all, however the two took turns (the count is kept in the file); the one handling an item is
 * SIGKILLed mid-item, and the other handles it as the item's second attempt.
 */
class FanoutProcessTest {

    private static final int ITEMS = 400;
    private static final int MAX_ATTEMPTS = 6;

    @TempDir Path dir;
    private final ChildJvmGroup children = new ChildJvmGroup();
    private final List<ChildJvm> apps = new ArrayList<>();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void eachItemIsHandledOnceAndAKilledHandlersItemIsHandledByTheOtherApp() throws Exception {
        try {
            run();
        } catch (AssertionError | RuntimeException e) {
            StringBuilder children = new StringBuilder();
            apps.forEach(app -> children.append(app.diagnostics()));
            throw new AssertionError(e.getMessage() + children, e);
        }
    }

    private void run() throws Exception {
        Path cxc = Files.createDirectory(dir.resolve("cxc"));
        Files.setPosixFilePermissions(cxc, PosixFilePermissions.fromString("rwx------"));
        Path handled = Files.createDirectory(dir.resolve("handled"));
        Path hangFile = dir.resolve("hanging");
        Path attempts = Files.createDirectory(dir.resolve("attempts"));
        for (int i = 0; i < 2; i++) {
            apps.add(
                    children.add(
                            ChildJvm.start(
                                    "fanout-app-" + i,
                                    FanoutWorkerApp.class,
                                    "--hang-file=" + hangFile,
                                    "--handled-dir=" + handled,
                                    "--attempts-dir=" + attempts,
                                    "--cxc.fanouts.work.retry.max-attempts=" + MAX_ATTEMPTS,
                                    "--cxc.fanouts.work.retry.backoff=1ms",
                                    "--cxc.directory=" + cxc,
                                    "--cxc.fanouts.work.capacity=512",
                                    "--cxc.fanouts.work.workers=2",
                                    "--spring.main.banner-mode=off",
                                    "--spring.main.web-application-type=none",
                                    "--logging.level.root=WARN")));
        }
        for (ChildJvm app : apps) {
            app.awaitPrefixed("started ", Duration.ofSeconds(90));
        }
        try (PriorityFanout<Long> work =
                PriorityFanout.open(
                        cxc.resolve("work.fanout"),
                        new PriorityFanout.Settings<>(512, FixedCodec.INT64))) {
            for (long i = 0; i < ITEMS; i++) {
                work.submit((int) (i % PriorityFanout.MAX_PRIORITIES), i);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> handled(handled).size() >= ITEMS);
            assertThat(handled(handled))
                    .as("each item once")
                    .containsExactlyInAnyOrderElementsOf(
                            LongStream.range(0, ITEMS).boxed().toList());

            // Fails on every attempt, in either app: tried exactly MAX_ATTEMPTS times in all.
            work.submit(6, -2L);
            await().atMost(Duration.ofSeconds(60))
                    .until(
                            () ->
                                    attemptLines(attempts).stream()
                                            .anyMatch(l -> l.startsWith("dead")));
            List<String> tries = attemptLines(attempts);
            assertThat(tries.stream().filter(l -> l.startsWith("dead")))
                    .containsExactly("dead -2 " + MAX_ATTEMPTS);
            assertThat(tries.stream().filter(l -> l.startsWith("-2 ")).sorted())
                    .containsExactlyElementsOf(
                            LongStream.rangeClosed(1, MAX_ATTEMPTS)
                                    .mapToObj(n -> "-2 " + n)
                                    .sorted()
                                    .toList());
            assertThat(work.depth(6)).isZero();

            work.submit(7, -1L);
            ChildJvm holder = HangFile.awaitHolder(hangFile, apps);
            ChildJvm survivor = apps.get(0) == holder ? apps.get(1) : apps.get(0);
            holder.kill();
            long killedAt = System.nanoTime();
            Path survivors = handled.resolve(Long.toString(survivor.pid()));
            await().atMost(Duration.ofSeconds(60)).until(() -> lines(survivors).contains(-1L));
            long recoveryMillis = (System.nanoTime() - killedAt) / 1_000_000;
            assertThat(handled(handled)).hasSize(ITEMS + 1).containsOnlyOnce(-1L);
            // The killed handler's attempt counted: the survivor's was the second.
            assertThat(attemptLines(attempts)).contains("-1 1", "-1 2").doesNotContain("-1 3");
            assertThat(survivor.isAlive()).isTrue();
            System.out.printf(
                    "fan-out (Boot): %d items handled once each by two apps; the SIGKILLed"
                            + " handler's item handled by the other app %d ms after the kill%n",
                    ITEMS, recoveryMillis);
        }
    }

    /** Every complete attempt line either app recorded. */
    private static List<String> attemptLines(Path dir) throws IOException {
        List<String> all = new ArrayList<>();
        try (var files = Files.list(dir)) {
            for (Path file : files.toList()) {
                String text = Files.readString(file);
                text.substring(0, text.lastIndexOf('\n') + 1).lines().forEach(all::add);
            }
        }
        return all;
    }

    /** Every item either app recorded, in one list (repeats kept). */
    private static List<Long> handled(Path dir) throws IOException {
        List<Long> all = new ArrayList<>();
        try (var files = Files.list(dir)) {
            files.forEach(file -> all.addAll(lines(file)));
        }
        return all;
    }

    /** The complete lines of one app's record (a line being written is left for the next read). */
    private static List<Long> lines(Path file) {
        try {
            if (!Files.exists(file)) {
                return List.of();
            }
            String text = Files.readString(file);
            String complete = text.substring(0, text.lastIndexOf('\n') + 1);
            return complete.lines().map(Long::parseLong).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
