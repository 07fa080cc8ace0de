package io.subetha.cxc.versioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.versioned.VersionRead.Status;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedVersionedChainTest {

    @TempDir Path dir;

    @Test
    void pushesMakeVersionsOneTwoThreeAndRetainedOnesReadBack() {
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        dir.resolve("c.cxc"),
                        new SharedVersionedChain.Settings<>(4, FixedCodec.INT64))) {
            assertThat(chain.currentVersion()).isZero();
            assertThat(chain.current()).isEmpty();
            assertThat(chain.visibleMask()).isZero();
            for (long i = 1; i <= 6; i++) {
                assertThat(chain.push(i * 10)).isEqualTo(i);
            }
            assertThat(chain.currentVersion()).isEqualTo(6);
            assertThat(chain.current()).contains(60L);
            assertThat(chain.readAt(6)).contains(60L);
            assertThat(chain.readAt(3)).contains(30L);
            assertThat(chain.readAt(2)).isEmpty();
            assertThat(chain.lookup(2).status()).isEqualTo(Status.NOT_RETAINED);
            assertThat(chain.lookup(0).status()).isEqualTo(Status.NEVER_PUSHED);
            assertThat(chain.lookup(7).status()).isEqualTo(Status.NEVER_PUSHED);
            assertThat(chain.lookup(5).orElseThrow()).isEqualTo(50L);
            assertThatThrownBy(() -> chain.lookup(1).orElseThrow())
                    .hasMessageContaining("version 1 is NOT_RETAINED");
            assertThat(chain.visibleMask()).isEqualTo(0b1111);
            assertThat(chain.describe()).containsEntry("currentVersion", 6L);
            assertThat(chain.opCounts()).containsKeys("push", "read_at", "current", "visible_mask");
        }
    }

    @Test
    void aValueTheCodecRefusesLeavesItsVersionNotWrittenAndLaterPushesGoOn() {
        try (SharedVersionedChain<String> chain =
                SharedVersionedChain.TYPE.create(
                        dir.resolve("s.cxc"),
                        new SharedVersionedChain.Settings<>(8, FixedCodec.string(3)))) {
            chain.push("abc");
            assertThatThrownBy(() -> chain.push("abcd"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(chain.push("x")).isEqualTo(3);
            assertThat(chain.lookup(2).status()).isEqualTo(Status.NOT_WRITTEN);
            assertThat(chain.visibleMask()).isEqualTo(0b101);
            assertThatThrownBy(() -> chain.push(null)).hasMessageContaining("must not be null");
        }
    }

    @Test
    void openChecksTheCodecAndBadSettingsNameTheirLimit() {
        Path path = dir.resolve("o.cxc");
        SharedVersionedChain.TYPE
                .create(path, new SharedVersionedChain.Settings<>(8, FixedCodec.INT64))
                .close();
        try (var chain =
                SharedVersionedChain.open(
                        path, new SharedVersionedChain.Settings<>(8, FixedCodec.INT64))) {
            assertThat(chain.retained()).isEqualTo(8);
        }
        assertThatThrownBy(
                        () ->
                                SharedVersionedChain.open(
                                        path,
                                        new SharedVersionedChain.Settings<>(8, FixedCodec.INT32)))
                .isInstanceOf(CxcFormatException.class);
        assertThatThrownBy(
                        () ->
                                SharedVersionedChain.TYPE.create(
                                        dir.resolve("x"),
                                        new SharedVersionedChain.Settings<>(0, FixedCodec.INT64)))
                .isInstanceOfSatisfying(
                        CxcSettingsException.class,
                        e -> assertThat(e.setting()).isEqualTo("retained"))
                .hasMessageContaining("1..1048576 (MAX_RETAINED), got 0");
    }

    @Test
    void concurrentPushersGetDistinctGapFreeVersionsAndRacingReadersNeverSeeWrongBytes()
            throws Exception {
        int pushers = 2;
        int each = 5_000;
        try (SharedVersionedChain<Sample> chain =
                SharedVersionedChain.TYPE.create(
                        dir.resolve("r.cxc"),
                        new SharedVersionedChain.Settings<>(4, Sample.CODEC))) {
            ExecutorService pool = Executors.newFixedThreadPool(pushers + 1);
            AtomicBoolean done = new AtomicBoolean();
            long[][] versions = new long[pushers][each];
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int p = 0; p < pushers; p++) {
                    int producer = p;
                    futures.add(
                            pool.submit(
                                    () -> {
                                        for (int n = 1; n <= each; n++) {
                                            versions[producer][n - 1] =
                                                    chain.push(Sample.of(producer, n));
                                        }
                                    }));
                }
                Future<long[]> reader =
                        pool.submit(
                                () -> {
                                    long readable = 0;
                                    long torn = 0;
                                    while (!done.get()) {
                                        long newest = chain.currentVersion();
                                        long v =
                                                Math.max(
                                                        1,
                                                        newest
                                                                - ThreadLocalRandom.current()
                                                                        .nextInt(6));
                                        var read = chain.lookup(v);
                                        if (read.isReadable()) {
                                            readable++;
                                            torn += read.value().whole() ? 0 : 1;
                                        }
                                    }
                                    return new long[] {readable, torn};
                                });
                for (Future<?> f : futures) {
                    f.get(60, TimeUnit.SECONDS);
                }
                done.set(true);
                long[] seen = reader.get(60, TimeUnit.SECONDS);
                assertThat(seen[1]).as("torn values read").isZero();
            } finally {
                done.set(true);
                pool.shutdownNow();
            }
            List<Long> all = new ArrayList<>();
            for (long[] ofOne : versions) {
                for (int i = 1; i < ofOne.length; i++) {
                    assertThat(ofOne[i]).isGreaterThan(ofOne[i - 1]);
                }
                for (long v : ofOne) {
                    all.add(v);
                }
            }
            assertThat(all).doesNotHaveDuplicates().hasSize(pushers * each);
            assertThat(all.stream().mapToLong(Long::longValue).max().orElseThrow())
                    .isEqualTo(pushers * each);
            assertThat(chain.currentVersion()).isEqualTo(pushers * each);
        }
    }

    @Test
    void everyReadOpIsCountedOnce() {
        try (SharedVersionedChain<Long> chain =
                SharedVersionedChain.TYPE.create(
                        dir.resolve("n.cxc"),
                        new SharedVersionedChain.Settings<>(4, FixedCodec.INT64))) {
            chain.push(1L);
            chain.readAt(1);
            chain.lookup(1);
            chain.lookup(2);
            chain.current();
            chain.visibleMask();
            chain.visibleMask();
            assertThat(chain.opCounts())
                    .containsEntry("push", 1L)
                    .containsEntry("read_at", 3L)
                    .containsEntry("current", 1L)
                    .containsEntry("visible_mask", 2L);
            // Lap keys as the layout gives them: version / retained + 1.
            assertThat(SharedVersionedChainDescriptor.lapKey(1, 4)).isEqualTo(1);
            assertThat(SharedVersionedChainDescriptor.lapKey(9, 4)).isEqualTo(3);
            assertThat(SharedVersionedChainDescriptor.lapKey(0xFFFF_FFFFL * 4, 4)).isEqualTo(1);
        }
    }
}
