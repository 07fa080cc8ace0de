package io.subetha.cxc.docs.examples;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.codec.FixedSize;
// docs:begin collections
import io.subetha.cxc.collections.*;
// docs:end collections
// docs:begin graph
import io.subetha.cxc.graph.*;
// docs:end graph
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Vectors, lists, graphs and the topology map in plain Java. */
class StructuresExample {

    void collections() throws Exception {
        // docs:begin collections

        Path dir = Path.of("/dev/shm/myapp");
        record Order(long id, int quantity, @FixedSize(16) String note) {}
        FixedCodec<Order> orders = FixedCodec.record(Order.class);

        try (SharedVec<Order> vec =
                SharedVec.openOrCreate(dir.resolve("orders.cxc"), new SharedVec.Settings<>(10_000, orders))) {
            long index = vec.push(new Order(7, 3, "rush"));   // CxcCapacityException when full
            Order o = vec.get(index);                          // lock-free, never half-written
            vec.set(index, new Order(7, 4, "rush"));
            List<Order> snapshot = vec.cloneToList();          // a consistent snapshot
            Optional<Order> last = vec.pop();
        }
        try (SharedLinkedList<Long> work = SharedLinkedList.openOrCreate(dir.resolve("work.cxc"),
                new SharedLinkedList.Settings<>(4096, FixedCodec.INT64))) {
            work.pushTail(42L);                                // any process, any thread
            Optional<Long> next = work.popHead();              // Optional.empty() when empty
        }
        // docs:end collections
    }

    void graph(Path dir) throws Exception {
        // docs:begin graph

        try (SharedGraph<String, Long> g = SharedGraph.openOrCreate(dir.resolve("services.cxc"),
                new SharedGraph.Settings<>(256, 4096, FixedCodec.string(32), FixedCodec.INT64))) {
            int api = g.addNode("api"), db = g.addNode("db");
            g.addEdge(api, db, 5L);                            // replaces the payload of an existing api -> db
            for (SharedGraph.Edge<Long> e : g.neighbors(api)) { /* a consistent out-list */ }
            int n = g.neighborIds(api, new int[64]);           // the same, allocation-free
            g.removeEdge(api, db);                             // the edge slot is reused
        }

        try (SharedTopologyMap traffic = SharedTopologyMap.openOrCreate(
                dir.resolve("traffic.cxc"), new SharedTopologyMap.Settings(4096))) {
            traffic.record(1, 7, 1);                           // source 1 sent one message to 7: lock-free
            traffic.advanceEpoch();                            // on your timer: older load counts half
            SharedTopologyMap.Recommendation r = traffic.recommend(1); // FAN_IN or FAN_OUT, figures, reason
        }
        // docs:end graph
    }
}
