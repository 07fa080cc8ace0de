package io.subetha.cxc.shedlock.boot;

import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.shedlock.CxcLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * ShedLock's {@link LockProvider} over a lease file in {@code cxc.directory} ({@code
 * <cxc.directory>/<cxc.shedlock.name>.cxc}, default {@code shedlock.cxc}), when ShedLock and the
 * cxc starter are on the classpath and the application defines no {@code LockProvider} of its own.
 * The file is opened through {@link CxcPrimitives}, so it shows in {@code /actuator/cxc} and {@code
 * cxc.ops}, and is closed with the context. With {@code cxc.leader.backend=zookeeper} (and
 * cxc-zookeeper on the classpath) each lock is also taken on ZooKeeper: across hosts.
 */
@AutoConfiguration(after = CxcAutoConfiguration.class)
@ConditionalOnClass({LockProvider.class, CxcPrimitives.class})
@ConditionalOnBooleanProperty(name = "cxc.shedlock.enabled", matchIfMissing = true)
@ConditionalOnBean(CxcPrimitives.class)
@EnableConfigurationProperties(CxcShedLockProperties.class)
public class CxcShedLockAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    CxcLockProvider cxcLockProvider(
            CxcPrimitives primitives,
            CxcShedLockProperties properties,
            ObjectProvider<LeaseBackend.Factory> backends) {
        OwnerLease leases =
                primitives.open(
                        properties.getName(),
                        (file, options) ->
                                OwnerLease.TYPE.openOrCreate(
                                        file,
                                        new OwnerLease.Settings(properties.getCapacity()),
                                        options));
        return new CxcLockProvider(
                backends.getIfAvailable(() -> LeaseBackend.Factory.LOCAL)
                        .over(leases, properties.getName()));
    }
}
