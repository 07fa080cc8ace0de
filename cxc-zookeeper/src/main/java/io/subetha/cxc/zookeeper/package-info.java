/**
 * The same primitives across hosts: leadership and leases on ZooKeeper through Curator, layered
 * over the host-local primitives.
 */
@NullMarked
package io.subetha.cxc.zookeeper;

import org.jspecify.annotations.NullMarked;
