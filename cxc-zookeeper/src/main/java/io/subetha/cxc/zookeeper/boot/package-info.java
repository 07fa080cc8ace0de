/** The auto-configuration that puts the ZooKeeper tier under the starter's leader ticker. */
@NullMarked
package io.subetha.cxc.zookeeper.boot;

import org.jspecify.annotations.NullMarked;
