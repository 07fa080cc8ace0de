package io.subetha.cxc.liveness;

import io.subetha.cxc.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Measures what one {@link EpochBarrier} phase costs with real processes: starts {@code jvms}
 * children ({@link LivenessChild}), lets them run {@code phases} empty phases through one barrier
 * after a warm-up, and prints the slowest child's time divided by the phases. A measurement, not a
 * test (speed is never asserted in tests); the JMH module holds the benchmarks.
 *
 * <p>Run from {@code cxc-core} after {@code mvn test-compile}: {@code java -cp
 * target/test-classes:target/classes:<test classpath> io.subetha.cxc.liveness.BarrierPhaseCost
 * [jvms] [phases] [rounds]}
 */
public final class BarrierPhaseCost {

    private BarrierPhaseCost() {}

    public static void main(String[] args) throws Exception {
        int jvms = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int phases = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Path dir = Files.createTempDirectory("barrier-cost");
        Path path = dir.resolve("barrier.cxc");
        EpochBarrier.TYPE.create(path, new EpochBarrier.Settings(jvms)).close();
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < jvms; i++) {
                ChildJvm child = ChildJvm.start("cost-" + i, LivenessChild.class);
                children.add(child);
                child.send("barrier-open " + path + " " + jvms);
                child.awaitLine("ok"::equals, Duration.ofSeconds(30));
            }
            for (ChildJvm child : children) {
                child.send("join");
                child.awaitPrefixed("epoch ", Duration.ofSeconds(30));
            }
            for (int round = 0; round <= rounds; round++) {
                int count = round == 0 ? phases / 4 : phases; // round 0 warms up
                children.forEach(c -> c.send("run-phases " + count + " - 0"));
                long slowest = 0;
                for (ChildJvm child : children) {
                    String done = child.awaitPrefixed("done ", Duration.ofMinutes(5));
                    slowest = Math.max(slowest, Long.parseLong(done));
                }
                if (round > 0) {
                    System.out.printf(
                            "%d JVMs, %d phases: %.1f µs per phase%n",
                            jvms, count, slowest / 1_000.0 / count);
                }
                // The children's next epoch follows on from this round.
                children.forEach(c -> c.send("join-epoch-advance " + count));
                for (ChildJvm child : children) {
                    child.awaitPrefixed("epoch ", Duration.ofSeconds(30));
                }
            }
        } finally {
            children.forEach(ChildJvm::close);
            Files.deleteIfExists(path);
            Files.deleteIfExists(dir);
        }
    }
}
