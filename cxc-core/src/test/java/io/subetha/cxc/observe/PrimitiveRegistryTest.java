package io.subetha.cxc.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.election.SharedLeaderElection;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrimitiveRegistryTest {

    @TempDir Path dir;

    @Test
    void rawCreateIsUnregisteredAndRegisterAddsOnceAndCloseDrops() {
        PrimitiveRegistry registry = new PrimitiveRegistry();
        SharedLeaderElection raw =
                SharedLeaderElection.TYPE.create(
                        dir.resolve("a.cxc"), SharedLeaderElection.Settings.DEFAULTS);
        assertThat(registry.primitives()).isEmpty();

        SharedLeaderElection registered = registry.register(raw);
        registry.register(raw);
        assertThat(registered).isSameAs(raw);
        assertThat(registry.primitives()).containsExactly(raw);
        assertThat(registry.primitives().get(0).kind()).isEqualTo("leader-election");

        raw.close();
        assertThat(registry.primitives()).isEmpty();
    }

    @Test
    void aSubscriberSeesThePrimitivesRegisteredBeforeAndAfterUntilItUnsubscribes() {
        PrimitiveRegistry registry = new PrimitiveRegistry();
        try (SharedLeaderElection before =
                        registry.register(
                                SharedLeaderElection.TYPE.create(
                                        dir.resolve("before.cxc"),
                                        SharedLeaderElection.Settings.DEFAULTS));
                SharedLeaderElection after =
                        SharedLeaderElection.TYPE.create(
                                dir.resolve("after.cxc"), SharedLeaderElection.Settings.DEFAULTS);
                SharedLeaderElection late =
                        SharedLeaderElection.TYPE.create(
                                dir.resolve("late.cxc"), SharedLeaderElection.Settings.DEFAULTS)) {
            List<ObservedPrimitive> seen = new CopyOnWriteArrayList<>();
            PrimitiveRegistry.Subscription subscription = registry.subscribe(seen::add);
            assertThat(seen).containsExactly(before);

            registry.register(after);
            registry.register(after); // already registered: not told again
            assertThat(seen).containsExactly(before, after);

            subscription.close();
            registry.register(late);
            assertThat(seen).containsExactly(before, after);
            assertThat(registry.primitives()).containsExactly(before, after, late);
        }
    }

    @Test
    void aFailingSubscriberDoesNotFailTheRegistration() {
        PrimitiveRegistry registry = new PrimitiveRegistry();
        List<ObservedPrimitive> seen = new CopyOnWriteArrayList<>();
        registry.subscribe(
                p -> {
                    throw new IllegalStateException("broken observer");
                });
        registry.subscribe(seen::add);
        try (SharedLeaderElection election =
                registry.register(
                        SharedLeaderElection.TYPE.create(
                                dir.resolve("a.cxc"), SharedLeaderElection.Settings.DEFAULTS))) {
            assertThat(registry.primitives()).containsExactly(election);
            assertThat(seen).containsExactly(election);
        }
    }

    @Test
    void theGlobalRegistryIsOneInstance() {
        assertThat(PrimitiveRegistry.global()).isSameAs(PrimitiveRegistry.global());
    }
}
