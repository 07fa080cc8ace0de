package io.subetha.cxc.docs.examples;

import io.subetha.cxc.codec.FixedCodec;
// docs:begin resolution
import io.subetha.cxc.resolution.*;
// docs:end resolution
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Once-cells, cascades and adaptive sets in plain Java. */
class ResolutionExample {

    interface AuthServer {
        long issueToken();
    }

    interface Repository {
        Long price(Long id);
    }

    private AuthServer authServer;
    private Repository repository;

    void resolution() throws Exception {
        // docs:begin resolution

        Path dir = Path.of("/dev/shm/myapp");

        // A cross-process once-cell: exactly one fetch runs across every process on the host.
        SharedAsyncPointer<Long> token = SharedAsyncPointer.openOrCreate(
                dir.resolve("token.cxc"), new SharedAsyncPointer.Settings<>(FixedCodec.INT64));
        long t = token.getOrFetch(() -> authServer.issueToken(), Duration.ofSeconds(10));
        token.reset();                                  // the next caller fetches again

        // Layered caches: this process's memory, a mapped-file table every process shares, the source.
        KTowerCascade<Long, Long> prices = KTowerCascade.<Long, Long>builder()
                .level(new BoundedLevel<>("memory", 10_000))
                .level(CascadeSharedLevel.openOrCreate(dir.resolve("prices.cxc"),
                        new CascadeSharedLevel.Settings<>(65_536, FixedCodec.INT64, FixedCodec.INT64)))
                .level(new LoaderLevel<>("database", id -> repository.price(id)))
                .build();
        Optional<Long> p = prices.get(42L);             // what one process loaded, the others find
        prices.stats();                                 // hits and misses per level

        // A shared set that changes representation on demand.
        SharedUniversal<Long> members = SharedUniversal.openOrCreate(
                dir.resolve("members.cxc"), new SharedUniversal.Settings<>(4096, FixedCodec.INT64));
        members.insert(7L);
        members.migrate(members.recommended());         // SORTED_ARRAY up to 64 keys, HASH above
        // docs:end resolution
    }
}
