package io.subetha.cxc.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.graph.SharedTopologyMap.Link;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topology map across real JVMs: both record, both see the sum; a recorder killed mid-record.
 */
class TopologyProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    static long total(SharedTopologyMap map) {
        long total = 0;
        for (int s = 0; s < 4; s++) {
            total += map.fanOut(s).stream().mapToLong(Link::load).sum();
        }
        return total;
    }

    @Test
    void twoJvmsRecordingTheSameTrafficAtOnceSeeExactlyTheSum() {
        Path path = dir.resolve("topology.cxc");
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(path, new SharedTopologyMap.Settings(64))) {
            ChildJvm other = children.add(ChildJvm.start("recorder", GraphChild.class));
            other.send("topo-open " + path + " 64");
            assertThat(other.readLine(STEP)).isEqualTo("ok");
            other.send("topo-script 50000");
            GraphChild.script(map, 50_000);
            assertThat(other.readLine(STEP)).isEqualTo("done");
            assertThat(total(map)).isEqualTo(2 * SharedTopologyMapTest.scriptLoad(50_000));
            assertThat(map.linkCount()).as("one slot per link, whoever claimed it").isEqualTo(20);
            assertThat(map.fanOut(0)).allMatch(l -> l.samples() == 2 * 50_000 / 20);
        }
    }

    @Test
    void aRecorderKilledMidRecordLeavesEveryLinkInOneSlotAndTheOthersRecording() {
        Path path = dir.resolve("topology.cxc");
        try (SharedTopologyMap map =
                SharedTopologyMap.TYPE.create(path, new SharedTopologyMap.Settings(64))) {
            ChildJvm victim = children.add(ChildJvm.start("recorder", GraphChild.class));
            victim.send("topo-open " + path + " 64");
            assertThat(victim.readLine(STEP)).isEqualTo("ok");
            victim.send("topo-forever");
            assertThat(victim.readLine(STEP)).isEqualTo("running");
            LockSupport.parkNanos(Duration.ofMillis(150).toNanos()); // any moment will do
            victim.kill();
            long before = total(map);
            Set<Long> keys = new HashSet<>();
            for (int s = 0; s < 4; s++) {
                for (Link l : map.fanOut(s)) {
                    assertThat(keys.add(((long) l.source() << 32) | l.destination())).isTrue();
                }
            }
            assertThat(map.linkCount()).isLessThanOrEqualTo(20);
            GraphChild.script(map, 1000);
            assertThat(total(map)).isEqualTo(before + SharedTopologyMapTest.scriptLoad(1000));
            List<Link> out = map.fanOut(0);
            assertThat(out).hasSize(5);
        }
    }
}
