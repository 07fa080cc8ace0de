package io.subetha.cxc.integration.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.integration.CxcLockRegistry;
import java.nio.file.Path;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

class CxcLockRegistryAutoConfigurationTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class, CxcLockRegistryAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"), "cxc.leader.enabled=false");
    }

    @Test
    void aBootAppWithSpringIntegrationGetsALockRegistryOverALeaseFile() {
        runner().withPropertyValues("cxc.lock-registry.capacity=16")
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            CxcLockRegistry registry = context.getBean(CxcLockRegistry.class);
                            assertThat(registry.leases().file())
                                    .isEqualTo(temp.resolve("cxc").resolve("locks.cxc"));
                            assertThat(registry.leases().capacity()).isEqualTo(16);
                            assertThat(context.getBean(CxcPrimitives.class).opened())
                                    .containsExactly(registry.leases());
                            Lock lock = registry.obtain("orders");
                            assertThat(lock.tryLock()).isTrue();
                            lock.unlock();
                        });
    }

    @Test
    void theRegistrysCacheCapacityIsASetting() {
        runner().run(
                        context ->
                                assertThat(context.getBean(CxcLockRegistry.class).cacheCapacity())
                                        .isEqualTo(CxcLockRegistry.DEFAULT_CACHE_CAPACITY));
        runner().withPropertyValues("cxc.lock-registry.cache-capacity=2")
                .run(
                        context -> {
                            CxcLockRegistry registry = context.getBean(CxcLockRegistry.class);
                            assertThat(registry.cacheCapacity()).isEqualTo(2);
                            Lock first = registry.obtain("a");
                            registry.obtain("b");
                            registry.obtain("c");
                            assertThat(registry.obtain("a")).isNotSameAs(first);
                        });
        runner().withPropertyValues("cxc.lock-registry.cache-capacity=0")
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .rootCause()
                                        .hasMessageContaining("cacheCapacity must be positive"));
    }

    @Test
    void anApplicationsOwnRegistryWinsAndTheSwitchesBackOff() {
        runner().withBean(DefaultLockRegistry.class)
                .run(
                        context -> {
                            assertThat(context).hasSingleBean(LockRegistry.class);
                            assertThat(context).doesNotHaveBean(CxcLockRegistry.class);
                        });
        runner().withPropertyValues("cxc.lock-registry.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockRegistry.class));
        runner().withClassLoader(new FilteredClassLoader(LockRegistry.class))
                .run(context -> assertThat(context).doesNotHaveBean(CxcLockRegistry.class));
    }

    /**
     * {@code cxc.enabled=false} runs the application as if it were the only copy: its locks are
     * still taken, in a private directory no other copy shares.
     */
    @Test
    void withCxcSwitchedOffLocksAreTakenInAPrivateDirectory() {
        runner().withPropertyValues("cxc.enabled=false")
                .run(
                        context -> {
                            Path directory =
                                    context.getBean(CxcLockRegistry.class)
                                            .leases()
                                            .file()
                                            .getParent();
                            assertThat(directory.getFileName().toString()).startsWith("cxc-alone-");
                            assertThat(directory).isNotEqualTo(temp.resolve("cxc"));
                        });
    }
}
