package io.subetha.cxc.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.resolution.AsyncPointerChild.Pair;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The async pointer across real JVMs on one file: exactly one fetch, and a killed fetcher. */
class SharedAsyncPointerProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);

    /** SIGKILLs of a churning child; {@code -Dcxc.resolution.pointerKills=200} for a long run. */
    static final int KILLS = Integer.getInteger("cxc.resolution.pointerKills", 3);

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    @Test
    void sixJvmsFetchExactlyOnceAndAKilledFetcherIsReplacedByExactlyOneMoreFetch()
            throws IOException {
        Path path = dir.resolve("pointer.cxc");
        Path count = dir.resolve("fetches.txt");
        List<ChildJvm> jvms = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            jvms.add(children.add(ChildJvm.start("pointer-" + i, AsyncPointerChild.class)));
        }
        for (ChildJvm jvm : jvms) {
            jvm.ask("open " + path);
        }

        // All six at once: one fetch, one value everywhere.
        jvms.forEach(jvm -> jvm.send("fetch " + count + " slow 60000"));
        Set<String> values = new HashSet<>();
        for (ChildJvm jvm : jvms) {
            String answer = jvm.readLine(STEP);
            assertThat(answer).as("%s", jvm).startsWith("value ");
            values.add(answer);
        }
        assertThat(Files.readAllLines(count)).hasSize(1);
        assertThat(values).containsExactly("value 1");

        // Again after a reset; the fetch that writes line 2 hangs, and its process is killed.
        try (SharedAsyncPointer<Long> pointer =
                SharedAsyncPointer.open(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))) {
            pointer.reset();
            jvms.forEach(jvm -> jvm.send("fetch " + count + " hang-at-2 60000"));
            await().atMost(STEP).until(() -> pointer.fetcher().isPresent());
            long fetcherPid = pointer.fetcher().getAsLong();
            ChildJvm fetcher =
                    jvms.stream().filter(j -> j.pid() == fetcherPid).findFirst().orElseThrow();
            fetcher.kill();

            values.clear();
            for (ChildJvm jvm : jvms) {
                if (jvm != fetcher) {
                    String answer = jvm.readLine(STEP);
                    assertThat(answer).as("%s", jvm).startsWith("value ");
                    values.add(answer);
                }
            }
            assertThat(Files.readAllLines(count)).hasSize(3);
            assertThat(values).containsExactly("value 3");
            assertThat(pointer.takeovers()).isEqualTo(1);
            assertThat(pointer.fetches()).isEqualTo(3);
            assertThat(pointer.tryGet()).contains(3L);
        }
    }

    /**
     * A child resets and re-fetches in a hot loop and is SIGKILLed at random points, mid-fetch or
     * mid-publish; after each kill this process finds either a whole value or an empty cell, and
     * its own getOrFetch completes (a dead claim never blocks).
     */
    @Test
    void aFetcherKilledAtRandomPointsNeverBlocksTheCellNorLeavesATornValue() {
        Path path = dir.resolve("pairs.cxc");
        try (SharedAsyncPointer<Pair> pointer =
                SharedAsyncPointer.openOrCreate(
                        path, new SharedAsyncPointer.Settings<>(AsyncPointerChild.PAIR))) {
            for (int round = 0; round < KILLS; round++) {
                try (ChildJvm child = ChildJvm.start("churn-" + round, AsyncPointerChild.class)) {
                    child.ask("open-pair " + path);
                    child.ask("churn");
                    long before = pointer.fetches();
                    await().atMost(STEP).until(() -> pointer.fetches() > before + 50);
                    LockSupport.parkNanos(
                            ThreadLocalRandom.current().nextLong(1_000_000, 20_000_000));
                    child.kill();
                    assertThat(child.diagnostics()).doesNotContain("torn ");
                }
                pointer.tryGet().ifPresent(p -> assertThat(p.whole()).as("%s", p).isTrue());
                Pair got = pointer.getOrFetch(() -> Pair.of(-1 - 0L), STEP);
                assertThat(got.whole()).as("%s", got).isTrue();
                assertThat(pointer.fetcher()).isEmpty();
                pointer.reset();
            }
        }
    }
}
