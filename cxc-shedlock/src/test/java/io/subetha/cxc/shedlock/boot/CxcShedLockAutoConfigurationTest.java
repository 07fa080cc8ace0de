package io.subetha.cxc.shedlock.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.shedlock.CxcLockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class CxcShedLockAutoConfigurationTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class, CxcShedLockAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"), "cxc.leader.enabled=false");
    }

    @Test
    void aBootAppWithShedLockGetsALockProviderOverALeaseFileInTheCxcDirectory() {
        runner().withPropertyValues("cxc.shedlock.capacity=32")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            LockProvider provider = context.getBean(LockProvider.class);
                            assertThat(provider).isInstanceOf(CxcLockProvider.class);
                            OwnerLease leases = ((CxcLockProvider) provider).leases();
                            assertThat(leases.file())
                                    .isEqualTo(temp.resolve("cxc").resolve("shedlock.cxc"));
                            assertThat(leases.capacity()).isEqualTo(32);
                            assertThat(context.getBean(CxcPrimitives.class).opened())
                                    .containsExactly(leases);
                            Optional<SimpleLock> lock =
                                    provider.lock(
                                            new LockConfiguration(
                                                    Instant.now(),
                                                    "job",
                                                    Duration.ofMinutes(1),
                                                    Duration.ZERO));
                            assertThat(lock).isPresent();
                            lock.get().unlock();
                        });
    }

    @Test
    void theFileNameIsConfigurable() {
        runner().withPropertyValues("cxc.shedlock.name=jobs")
                .run(
                        context ->
                                assertThat(context.getBean(CxcLockProvider.class).leases().file())
                                        .isEqualTo(temp.resolve("cxc").resolve("jobs.cxc")));
    }

    @Test
    void anApplicationsOwnLockProviderWins() {
        LockProvider own = configuration -> Optional.empty();
        runner().withBean(LockProvider.class, () -> own)
                .run(
                        context -> {
                            assertThat(context).hasSingleBean(LockProvider.class);
                            assertThat(context.getBean(LockProvider.class)).isSameAs(own);
                        });
    }

    @Test
    void backsOffWithoutShedLockOrWhenSwitchedOff() {
        runner().withClassLoader(new FilteredClassLoader(LockProvider.class))
                .run(context -> assertThat(context).doesNotHaveBean(CxcLockProvider.class));
        runner().withPropertyValues("cxc.shedlock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockProvider.class));
    }

    /**
     * {@code cxc.enabled=false} runs the application as if it were the only copy: its locks are
     * still taken, in a private directory no other copy shares, so every scheduled task runs here.
     */
    @Test
    void withCxcSwitchedOffLocksAreTakenInAPrivateDirectory() {
        runner().withPropertyValues("cxc.enabled=false")
                .run(
                        context -> {
                            Path file = context.getBean(CxcLockProvider.class).leases().file();
                            assertThat(file.getParent().getFileName().toString())
                                    .startsWith("cxc-alone-");
                            assertThat(file.getParent()).isNotEqualTo(temp.resolve("cxc"));
                        });
    }
}
