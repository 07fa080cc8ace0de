package io.subetha.cxc.zookeeper.boot;

import io.subetha.cxc.lease.LeaseBackend;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.zookeeper.GlobalLeases;
import io.subetha.cxc.zookeeper.GlobalTierSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.curator.utils.ZKPaths;

/**
 * The lock providers' lease tables across hosts: each table's {@link GlobalLeases} (its own
 * ZooKeeper session) under {@code <the latch path's parent>/leases/<table>}, beside the leader's
 * latch, and closed with the context.
 */
final class ZooKeeperLeaseBackends implements LeaseBackend.Factory, AutoCloseable {

    private final Function<OwnerLease, GlobalTierSettings> settings;
    private final List<GlobalLeases> opened = new ArrayList<>();

    ZooKeeperLeaseBackends(Function<OwnerLease, GlobalTierSettings> settings) {
        this.settings = settings;
    }

    @Override
    public synchronized LeaseBackend over(OwnerLease local, String table) {
        GlobalTierSettings zooKeeper = settings.apply(local);
        String parent = ZKPaths.getPathAndNode(zooKeeper.latchPath()).getPath();
        GlobalLeases leases =
                new GlobalLeases(
                        local,
                        new GlobalLeases.Settings(
                                zooKeeper.connectString(),
                                zooKeeper.sessionTimeout(),
                                zooKeeper.connectionTimeout(),
                                ZKPaths.makePath(parent, "leases", table),
                                local.file().getParent(),
                                zooKeeper.hostName().replace(' ', '_')));
        opened.add(leases);
        return leases;
    }

    @Override
    public synchronized void close() {
        opened.forEach(GlobalLeases::close);
        opened.clear();
    }
}
