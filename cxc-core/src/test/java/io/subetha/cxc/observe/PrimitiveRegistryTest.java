package io.subetha.cxc.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.ownership.SharedLeaderElection;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrimitiveRegistryTest {

    @TempDir Path dir;

    @Test
    void rawCreateIsUnregisteredAndRegisterAddsOnceAndCloseDrops() {
        PrimitiveRegistry registry = new PrimitiveRegistry();
        SharedLeaderElection raw = SharedLeaderElection.create(dir.resolve("a.cxc"));
        assertThat(registry.primitives()).isEmpty();

        SharedLeaderElection registered = registry.register(raw);
        registry.register(raw);
        assertThat(registered).isSameAs(raw);
        assertThat(registry.primitives()).containsExactly(raw);
        assertThat(registry.primitives().get(0).kind().displayName()).isEqualTo("leader-election");

        raw.close();
        assertThat(registry.primitives()).isEmpty();
    }

    @Test
    void theGlobalRegistryIsOneInstance() {
        assertThat(PrimitiveRegistry.global()).isSameAs(PrimitiveRegistry.global());
    }
}
