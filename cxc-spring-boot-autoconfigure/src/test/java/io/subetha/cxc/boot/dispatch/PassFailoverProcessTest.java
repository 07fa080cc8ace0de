package io.subetha.cxc.boot.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.dispatch.PassOwnerDiedException;
import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three copies of one service register the same {@code @PassId(7)} handler, started together in any
 * order: one owns the id, two stand by. The owner is SIGKILLed while a caller calls in a loop: the
 * calls continue, answered by a standby that took the id over. Prints calls per second before and
 * after the kill and the longest gap between answers across it (figures, not assertions).
 */
class PassFailoverProcessTest {

    private static final Duration START = Duration.ofSeconds(120);

    /** Calls answered before the kill, and by a standby after it: for the figures. */
    private static final int CALLS = Integer.getInteger("cxc.dispatch.failover-calls", 500);

    @TempDir Path dir;
    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    private final List<ChildJvm> copies = new ArrayList<>();

    @Test
    void callsContinueOnAStandbyWhenTheOwnerIsKilled() throws Exception {
        try {
            run();
        } catch (AssertionError | RuntimeException e) {
            StringBuilder output = new StringBuilder();
            copies.forEach(copy -> output.append(copy.diagnostics()));
            throw new AssertionError(e.getMessage() + output, e);
        }
    }

    private void run() throws Exception {
        Path cxc = Files.createDirectory(dir.resolve("cxc"));
        Files.setPosixFilePermissions(cxc, PosixFilePermissions.fromString("rwx------"));
        for (int i = 0; i < 3; i++) {
            copies.add(
                    children.add(
                            ChildJvm.start(
                                    "copy-" + i,
                                    PassHandlerApp.class,
                                    "--cxc.directory=" + cxc,
                                    "--cxc.pass-registries.calls.max-passes=8",
                                    "--spring.main.banner-mode=off",
                                    "--spring.main.web-application-type=none",
                                    "--spring.main.keep-alive=true",
                                    "--logging.level.root=WARN",
                                    "--logging.level.io.subetha.cxc.boot.dispatch=INFO")));
        }
        for (ChildJvm copy : copies) {
            copy.awaitPrefixed("started ", START);
        }
        try (PassRegistry calls =
                PassRegistry.openOrCreate(
                        cxc.resolve("calls.passes"), new PassRegistry.Settings(8, 8, 1024))) {
            long owner = answer(calls);
            ChildJvm ownerCopy =
                    copies.stream().filter(c -> c.pid() == owner).findFirst().orElseThrow();

            // A caller in a loop, recording who answered when, and every failure.
            AtomicBoolean calling = new AtomicBoolean(true);
            AtomicLong answered = new AtomicLong();
            List<long[]> answers = java.util.Collections.synchronizedList(new ArrayList<>());
            Map<String, Integer> failures = new ConcurrentHashMap<>();
            Thread caller =
                    new Thread(
                            () -> {
                                while (calling.get()) {
                                    try {
                                        long pid = answer(calls);
                                        answers.add(new long[] {System.nanoTime(), pid});
                                        answered.incrementAndGet();
                                    } catch (PassOwnerDiedException e) {
                                        failures.merge(
                                                "owner changed, mayHaveRun=" + e.mayHaveRun(),
                                                1,
                                                Integer::sum);
                                    } catch (RuntimeException e) {
                                        failures.merge(
                                                e.getClass().getSimpleName(), 1, Integer::sum);
                                    }
                                }
                            },
                            "caller");
            caller.start();
            try {
                await().atMost(START)
                        .conditionEvaluationListener(
                                c -> {
                                    if (!c.isSatisfied() && c.getRemainingTimeInMS() < 1_000) {
                                        System.out.println(
                                                "answered " + answered + ", failures " + failures);
                                    }
                                })
                        .until(() -> answered.get() >= CALLS);
                long killedAt = System.nanoTime();
                ownerCopy.kill();
                await().atMost(START)
                        .until(
                                () -> {
                                    synchronized (answers) {
                                        return answers.stream().filter(a -> a[1] != owner).count()
                                                >= CALLS;
                                    }
                                });
                calling.set(false);
                caller.join(START.toMillis());
                report(answers, failures, owner, killedAt);
            } finally {
                calling.set(false);
            }
            List<long[]> after;
            synchronized (answers) {
                after = answers.stream().filter(a -> a[1] != owner).toList();
            }
            assertThat(after).isNotEmpty();
            assertThat(copies.stream().filter(c -> c != ownerCopy).map(ChildJvm::pid))
                    .contains(after.get(after.size() - 1)[1]);
            // The only failures a caller may see: the owner changed under a pending call.
            assertThat(failures.keySet()).allMatch(k -> k.startsWith("owner changed"));
        }
    }

    private static long answer(PassRegistry calls) {
        return ByteBuffer.wrap(calls.execute(7, new byte[8], Duration.ofSeconds(30))).getLong();
    }

    private static void report(
            List<long[]> answers, Map<String, Integer> failures, long owner, long killedAt) {
        List<long[]> all;
        synchronized (answers) {
            all = new ArrayList<>(answers);
        }
        long[] lastBefore = null;
        long[] firstAfter = null;
        int before = 0;
        int after = 0;
        for (long[] a : all) {
            if (a[0] < killedAt) {
                lastBefore = a;
                before++;
            } else {
                if (firstAfter == null && a[1] != owner) {
                    firstAfter = a;
                }
                after++;
            }
        }
        double beforeSeconds = (killedAt - all.get(0)[0]) / 1e9;
        double afterSeconds = (all.get(all.size() - 1)[0] - killedAt) / 1e9;
        System.out.printf(
                "pass failover: %d calls in %.2f s before the kill (%.0f calls/s), %d in %.2f s"
                        + " after (%.0f calls/s); SIGKILL to the first answer by a standby: %.1f"
                        + " ms; last answer before the kill to it: %.1f ms; failures %s%n",
                before,
                beforeSeconds,
                before / beforeSeconds,
                after,
                afterSeconds,
                after / afterSeconds,
                (firstAfter[0] - killedAt) / 1e6,
                (firstAfter[0] - lastBefore[0]) / 1e6,
                failures);
    }
}
