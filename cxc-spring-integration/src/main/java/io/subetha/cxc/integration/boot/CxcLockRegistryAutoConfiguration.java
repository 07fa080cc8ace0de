package io.subetha.cxc.integration.boot;

import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.integration.CxcLockRegistry;
import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.OwnerLease;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration's {@link LockRegistry} over a lease file in {@code cxc.directory} ({@code
 * <cxc.directory>/<cxc.lock-registry.name>.cxc}, default {@code locks.cxc}), when this module and
 * the cxc starter are on the classpath and the application defines no {@code LockRegistry} of its
 * own; {@code cxc.lock-registry.cache-capacity} bounds its lock objects. The file is opened through
 * {@link CxcPrimitives}, so it shows in {@code /actuator/cxc} and {@code cxc.ops}, and is closed
 * with the context. With {@code cxc.leader.backend=zookeeper} (and cxc-zookeeper on the classpath)
 * each lock is also taken on ZooKeeper: across hosts.
 */
@AutoConfiguration(after = CxcAutoConfiguration.class)
@ConditionalOnClass({LockRegistry.class, CxcPrimitives.class})
@ConditionalOnBooleanProperty(name = "cxc.lock-registry.enabled", matchIfMissing = true)
@ConditionalOnBean(CxcPrimitives.class)
@EnableConfigurationProperties(CxcLockRegistryProperties.class)
public class CxcLockRegistryAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    CxcLockRegistry cxcLockRegistry(
            CxcPrimitives primitives,
            CxcLockRegistryProperties properties,
            ObjectProvider<LeaseBackend.Factory> backends) {
        OwnerLease leases =
                primitives.open(
                        properties.getName(),
                        (file, options) ->
                                OwnerLease.TYPE.openOrCreate(
                                        file,
                                        new OwnerLease.Settings(properties.getCapacity()),
                                        options));
        CxcLockRegistry registry =
                new CxcLockRegistry(
                        backends.getIfAvailable(() -> LeaseBackend.Factory.LOCAL)
                                .over(leases, properties.getName()),
                        properties.getTtl());
        registry.setCacheCapacity(properties.getCacheCapacity());
        return registry;
    }
}
